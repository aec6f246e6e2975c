/*
 * The HTML of a resource's pages, as fragments the application's `Ctx.Render` puts in its layout (`ResourceView`).
 * Every label goes through the catalogs, an input with a problem keeps what was entered and names its error
 * (`aria-invalid`, `aria-describedby`), and everything works without JavaScript. Stable hooks for tests and scripts:
 * `data-resource`, `data-record-id`, `data-empty`, `data-error-for`, `data-outcome`, `data-conflict`, `data-reference`,
 * `data-reference-unavailable`.
 */
import type { IncomingMessage } from "node:http";
import { html, type SafeHTML } from "../http/index.ts";
import { LocaleFrom, T, Tf } from "../i18n/index.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { formatMoney, formatMoneyInput } from "./money.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import type { ReferenceOption } from "./references.ts";
import type { FieldConflict } from "./store.ts";
import type { StoredRecord } from "./table.ts";
import { formatDate, formatInteger, parseLocalDate } from "./scalars.ts";
import { currencyOf, integerRange, maxLength, problemArgs, type FieldProblem } from "./values.ts";
import { dateTimeFormat } from "./intl.ts";

/** What a resource page hands to `Ctx.Render`: render `Body` inside the layout, titled `Title`, answering `Status`. */
export interface ResourceView {
  /** The resource's name. */
  readonly Resource: string;
  /** "list", "new", "record" or "import" (README "Import"); the view name passed to Render is `resource.<View>`. */
  readonly View: "list" | "new" | "record" | "import";
  readonly Title: string;
  readonly Status: number;
  readonly Body: SafeHTML;
  /** Asset names of the scripts the page needs (the layout loads them, `<script type="module">`): `live.js` on the list and record pages. */
  readonly Scripts: readonly string[];
}

/** Reports whether `data` (what Render received) is a `ResourceView`. */
export function isResourceView(data: unknown): data is ResourceView {
  return typeof data === "object" && data !== null && "Resource" in data && "Body" in data && "Status" in data && "Title" in data;
}

/** Returns the value of `field` as shown in a list or on a record page. */
export function displayValue(req: IncomingMessage, field: Field | undefined, value: FieldValue): string {
  if (value === null) return "";
  if (field?.Kind === Kind.Money && typeof value === "number") return formatMoney(value, LocaleFrom(req), currencyOf(field));
  if (field?.Kind === Kind.Integer && typeof value === "number") return formatInteger(value, LocaleFrom(req));
  if (field?.Kind === Kind.Date && typeof value === "string") return formatDate(value, LocaleFrom(req));
  if (field?.Kind === Kind.Boolean) return T(req, value === 1 ? "resource.yes" : "resource.no");
  // README "Attachments": a File field holds its attachment's id, which says nothing to a person; the file is downloaded from the record.
  if (field?.Kind === Kind.File) return value === "" ? "" : T(req, "resource.file.attached");
  if (field?.Kind === Kind.Choice) {
    // A value no longer among the Choices (removed from the manifest) is shown as stored.
    const choice = field.Choices?.find((c) => c.Value === value);
    return choice === undefined ? String(value) : T(req, choice.Label);
  }
  return String(value);
}

/** A referenced record as a list shows it: a link to its page, labelled; undefined when it is not found. */
export type ReferenceLink = (field: Field, id: string) => { href: string; label: string } | undefined;

/**
 * Returns the value of `field` as a list cell: a URL as a link that tells the linked site nothing (rel="noopener noreferrer"),
 * a reference as a link to the record it points to, by its name (`link`), else the value as shown.
 */
export function cellHTML(req: IncomingMessage, field: Field, value: FieldValue, link?: ReferenceLink): SafeHTML {
  if (field.Kind === Kind.Reference && typeof value === "string" && link !== undefined) {
    const target = link(field, value);
    if (target !== undefined) return html`<a href="${target.href}" data-reference="${field.Name}">${target.label}</a>`;
    // OWASP ASVS 5.0 §8.2.2: a record the person may not read (another's, another team's, deleted) is not named, and its id
    // tells them nothing either.
    return html`<span class="muted" data-reference-unavailable="${field.Name}">${T(req, "resource.reference.unavailable")}</span>`;
  }
  // Only http(s) addresses are stored (parseWebAddress, ASVS 5.0 §1.2.2); the linked page gets no window.opener and no Referer (HTML §4.6.6).
  if (field.Kind === Kind.URL && typeof value === "string" && value !== "") {
    return html`<a href="${value}" rel="noopener noreferrer">${value}</a>`;
  }
  return html`${displayValue(req, field, value)}`;
}

/** Returns the value of `field` as written in its input. */
export function inputValue(req: IncomingMessage, field: Field, value: FieldValue): string {
  if (value === null) return "";
  if (field.Kind === Kind.Money && typeof value === "number") return formatMoneyInput(value, LocaleFrom(req), currencyOf(field));
  // <input type="number"> holds plain digits in every locale, and a checkbox is checked by "1" (see `control`).
  return String(value);
}

// Frozen: intl.ts keeps a formatter by its options object.
const MEDIUM_TIME: Intl.DateTimeFormatOptions = Object.freeze({ dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** Returns a time (Unix ms) as a record's times are shown, in the request's locale (UTC). */
export function timeValue(req: IncomingMessage, at: number): string {
  return dateTimeFormat(LocaleFrom(req), MEDIUM_TIME).format(at);
}

/** Returns a fixed column's value as shown (times in the request's locale). */
export function fixedValue(req: IncomingMessage, column: string, record: StoredRecord): string {
  if (column === "created_at" || column === "updated_at") return timeValue(req, record[column]);
  return column === "id" ? record.id : "";
}

/** Renders the problem of the input `name`, which its `aria-describedby` names (`error-<name>`). */
export function errorHTML(req: IncomingMessage, name: string, problem: FieldProblem): SafeHTML {
  const args = problemArgs(problem, (key) => T(req, key));
  const text = Object.keys(args).length === 0 ? T(req, problem.key) : Tf(req, problem.key, args);
  return html`<p class="field-error" id="error-${name}" data-error-for="${name}" role="alert">${text}</p>`;
}

/** One option of a select: the value it sends and the text it shows. */
export type Option = { value: string; label: string };

/** Renders a select of `options` with `value` selected, after an empty option shown as `empty`. */
export function selectHTML(id: string, name: string, attrs: SafeHTML, empty: string, options: readonly Option[], value: string): SafeHTML {
  return html`<select id="${id}" name="${name}"${attrs}><option value="">${empty}</option>${options.map(
    (o) => html`<option value="${o.value}"${o.value === value ? html` selected` : ""}>${o.label}</option>`,
  )}</select>`;
}

/** A Choice field's choices as a select offers them, labels translated. */
export function choiceOptions(req: IncomingMessage, field: Field): Option[] {
  return (field.Choices ?? []).map((c) => ({ value: c.Value, label: T(req, c.Label) }));
}

/** What a form shows. */
export interface FormState {
  action: string;
  /** Entered text per field (what the person typed, or the stored value as written in an input). */
  entered: ReadonlyMap<string, string>;
  errors: ReadonlyMap<string, FieldProblem>;
  /** The version the form is rendered from; absent on the create form. */
  version?: number;
  conflicts?: ReadonlyMap<string, FieldConflict>;
  /** The records each Reference field's select offers (references.ts). */
  options?: ReadonlyMap<string, readonly ReferenceOption[]>;
  submit: string;
}

function input(req: IncomingMessage, field: Field, state: FormState): SafeHTML {
  const value = state.entered.get(field.Name) ?? "";
  const problem = state.errors.get(field.Name);
  const id = `field-${field.Name}`;
  const described = [problem === undefined ? "" : `error-${field.Name}`, field.Help ? `help-${field.Name}` : ""]
    .filter((x) => x !== "")
    .join(" ");
  const aria = html`${problem === undefined ? "" : html` aria-invalid="true"`}${described === "" ? "" : html` aria-describedby="${described}"`}${field.Required === true ? html` required` : ""}`;
  const control = controlHTML(req, field, id, value, aria, state.options?.get(field.Name) ?? []);
  const conflict = state.conflicts?.get(field.Name);
  return html`<div class="field${problem === undefined ? "" : " invalid"}">
  <label for="${id}">${T(req, field.Label)}</label>
  ${control}
  ${field.Help ? html`<p class="muted" id="help-${field.Name}">${T(req, field.Help)}</p>` : ""}
  ${problem === undefined ? "" : errorHTML(req, field.Name, problem)}
  ${
    conflict === undefined
      ? ""
      : html`<div class="conflict" data-conflict="${field.Name}">
    <p>${T(req, "resource.conflict.mine")}</p><pre data-conflict-mine>${displayValue(req, field, conflict.mine)}</pre>
    <p>${T(req, "resource.conflict.theirs")}</p><pre data-conflict-theirs>${displayValue(req, field, conflict.theirs)}</pre>
  </div>`
  }
</div>`;
}

// The native input of each kind: the browser's own date picker, number pad, checkbox, select, and email and URL checks.
function controlHTML(
  req: IncomingMessage,
  field: Field,
  id: string,
  value: string,
  aria: SafeHTML,
  options: readonly ReferenceOption[],
): SafeHTML {
  const name = field.Name;
  switch (field.Kind) {
    case Kind.Textarea:
      return html`<textarea id="${id}" name="${name}" rows="8" dir="auto" maxlength="${maxLength(field)}"${aria}>${value}</textarea>`;
    case Kind.Money:
      return html`<span class="money"><input id="${id}" name="${name}" type="text" inputmode="decimal" autocomplete="off" value="${value}"${aria}> <span class="currency">${currencyOf(field)}</span></span>`;
    case Kind.Date:
      // A date typed in the locale's notation ("31.12.2026"), shown again beside another field's error, as the ISO a date input holds.
      return html`<input id="${id}" name="${name}" type="date" value="${parseLocalDate(value, LocaleFrom(req)) ?? value}"${aria}>`;
    case Kind.Integer: {
      const { min, max } = integerRange(field);
      return html`<input id="${id}" name="${name}" type="number" step="1" min="${min}" max="${max}" inputmode="numeric" value="${value}"${aria}>`;
    }
    case Kind.Boolean:
      return html`<input id="${id}" name="${name}" type="checkbox" value="1"${value === "1" ? html` checked` : ""}${aria}>`;
    case Kind.Choice:
      return selectHTML(id, name, aria, "", choiceOptions(req, field), value);
    case Kind.File:
      // The file is uploaded and downloaded beside the form (files.ts filesHTML); the form only keeps it, or not.
      return html`<input id="${id}" name="${name}" type="hidden" value="${value}"><span class="muted" data-file="${name}">${value === "" ? "—" : T(req, "resource.file.attached")}</span>`;
    case Kind.Reference: {
      // The person's records of the target, newest first (REFERENCE_OPTIONS_LIMIT); labels are data, never catalog keys.
      const records = options.map((o) => ({ value: o.id, label: o.label }));
      return selectHTML(id, name, html` data-reference="${field.References ?? ""}"${aria}`, "", records, value);
    }
    default: {
      // An address is written left to right whatever the page's direction; text in its writer's.
      const type = field.Kind === Kind.Email ? "email" : field.Kind === Kind.URL ? "url" : "text";
      return html`<input id="${id}" name="${name}" type="${type}" dir="${type === "text" ? "auto" : "ltr"}" maxlength="${maxLength(field)}" value="${value}"${aria}>`;
    }
  }
}

/** Renders the form of `spec`. */
export function formHTML(req: IncomingMessage, spec: ResourceSpec, state: FormState): SafeHTML {
  return html`<form class="resource-form" method="post" action="${state.action}" data-resource="${spec.Name}">
${state.version === undefined ? "" : html`<input type="hidden" name="version" value="${state.version}">`}
${spec.Form.Fields.map((field) => input(req, field, state))}
<div class="row"><button type="submit">${state.submit}</button></div>
</form>`;
}

/** Renders a notice (saved, deleted, stale, conflict, invalid). */
export function noticeHTML(
  req: IncomingMessage,
  outcome: string,
  ok: boolean,
  extra: SafeHTML = html``,
  args: Record<string, string | number> = {},
): SafeHTML {
  return html`<div class="card notice ${ok ? "ok" : "bad"}" role="${ok ? "status" : "alert"}" data-outcome="${outcome}"><p>${Tf(req, `resource.${outcome}`, args)}</p>${extra}</div>`;
}

/** Renders what the person entered, shown with a stale update's refusal so nothing typed is lost. */
export function enteredHTML(req: IncomingMessage, spec: ResourceSpec, entered: ReadonlyMap<string, string>): SafeHTML {
  return html`<dl class="entered" data-entered>${spec.Form.Fields.map(
    (f) => html`<dt>${T(req, f.Label)}</dt><dd data-entered-for="${f.Name}">${entered.get(f.Name) ?? ""}</dd>`,
  )}</dl>`;
}
