/*
 * A record's read view and its history as HTML (README "A record's page and history"): the record's fields by label,
 * values as its list shows them (references by name, linked), then its changes newest first (changes.ts), each with who
 * made it (the person, or `agent:<name>` and the approval that allowed it), when, and each field before → after as an
 * approval's preview shows them (preview.ts `shownValue`). Hooks: `data-record-view`, `data-value`, `data-history`,
 * `data-history-event` (the event's sequence), `data-kind`, `data-actor` (the audit form), `data-approval-id`,
 * `data-standing`, `data-at` (ISO 8601), `data-change` (the field) with `data-before` and `data-after`,
 * `data-no-values`, `data-history-empty`, `data-history-next`.
 */
import type { IncomingMessage } from "node:http";
import { html, queryParams, type SafeHTML } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import type { EventStore } from "../events/index.ts";
import { historyPage, parseCursor, type FieldChange, type HistoryEntry, type HistoryPage } from "./changes.ts";
import type { FieldValue } from "./merge.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { shownValue } from "./preview.ts";
import type { References } from "./references.ts";
import type { RecordValues } from "./values.ts";
import { cellHTML, timeValue, type ReferenceLink } from "./views.ts";

/** Renders a record's fields by label, `values` as its list shows them; `link` names its references. */
export function recordViewHTML(req: IncomingMessage, spec: ResourceSpec, values: RecordValues, link: ReferenceLink): SafeHTML {
  return html`<dl class="facts" data-record-view>${spec.Form.Fields.map(
    (f) => html`<dt>${T(req, f.Label)}</dt><dd data-value="${f.Name}" dir="auto">${cellHTML(req, f, values[f.Name] ?? null, link)}</dd>`,
  )}</dl>`;
}

/** What a record's page reads for its view and history: the resource, its references and events, whose records, where. */
export interface RecordParts {
  spec: ResourceSpec;
  refs: References;
  events: EventStore;
  owner: string;
  /** The route of the owner's records (a team resource's holds the team). */
  route: string;
}

/**
 * The read view of record `id` (its `values`) and the page of its history the request asks for (`before`; the newest
 * when absent, and when malformed: the read route refuses that with 400 first). The caller has checked that the person
 * may read the record.
 */
export function recordSectionsHTML(
  req: IncomingMessage,
  { spec, refs, events, owner, route }: RecordParts,
  id: string,
  values: RecordValues,
): { view: SafeHTML; history: SafeHTML } {
  const cursor = parseCursor(queryParams(req).get("before"));
  const before = cursor === "bad" ? undefined : cursor;
  const view = recordViewHTML(req, spec, values, refs.links(owner, [{ values }]));
  const shown: ShownValue = (field, value) => (field === undefined ? String(value ?? "") : shownValue(req, refs, owner, field, value));
  const page = historyPage(events, spec, id, before);
  return { view, history: historyHTML(req, spec, page, shown, (next) => `${route}/${id}/history?before=${next}#history`) };
}

/** A value of a field as the history shows it (`shownValue` for a declared field; a field no longer declared as stored). */
export type ShownValue = (field: Field | undefined, value: FieldValue) => string;

function valueHTML(req: IncomingMessage, text: string): SafeHTML {
  return text === "" ? html`<span class="muted">${T(req, "history.empty_value")}</span>` : html`<span dir="auto">${text}</span>`;
}

function changesHTML(req: IncomingMessage, spec: ResourceSpec, entry: HistoryEntry, shown: ShownValue): SafeHTML {
  if (entry.changes.length === 0) return html``;
  const field = (change: FieldChange): Field | undefined => spec.Form.Fields.find((f) => f.Name === change.field);
  const label = (change: FieldChange): string => {
    const declared = field(change);
    return declared === undefined ? change.field : T(req, declared.Label);
  };
  if (!entry.values)
    return html`<p class="muted" data-no-values>${Tf(req, "history.no_values", { fields: entry.changes.map(label).join(", ") })}</p>`;
  const row = (c: FieldChange): SafeHTML =>
    html`<tr data-change="${c.field}"><th scope="row">${label(c)}</th>${
      entry.kind === "created" ? html`` : html`<td data-before>${valueHTML(req, shown(field(c), c.before ?? null))}</td>`
    }<td data-after>${valueHTML(req, shown(field(c), c.after))}</td></tr>`;
  const heads = entry.kind === "created" ? ["history.field", "history.value"] : ["history.field", "history.before", "history.after"];
  return html`<table class="preview"><thead><tr>${heads.map((k) => html`<th scope="col">${T(req, k)}</th>`)}</tr></thead><tbody>${entry.changes.map(row)}</tbody></table>`;
}

function actorHTML(req: IncomingMessage, entry: HistoryEntry): SafeHTML {
  if (entry.actor === "human") return html`<span data-actor="human" dir="ltr">${entry.person}</span>`;
  const approval = entry.approval;
  const allowed =
    approval === undefined
      ? html``
      : html` <span data-approval-id="${approval.id}"${approval.standing ? html` data-standing` : html``}>${Tf(
          req,
          approval.standing ? "history.standing" : "history.approval",
          { id: approval.id },
        )}</span>`;
  return html`<span data-actor="${entry.actor}" dir="ltr">${entry.actor}</span>${allowed} ${Tf(req, "history.for", { person: entry.person })}`;
}

/** Renders one page of a record's history; `older` is the address of the next page, from its cursor. */
export function historyHTML(
  req: IncomingMessage,
  spec: ResourceSpec,
  page: HistoryPage,
  shown: ShownValue,
  older: (before: number) => string,
): SafeHTML {
  const kind = (entry: HistoryEntry): string =>
    ["created", "updated", "conflict", "deleted"].includes(entry.kind) ? T(req, `history.kind.${entry.kind}`) : entry.kind;
  return html`<section class="card" id="history" data-history>
<h2>${T(req, "history.title")}</h2>
${page.entries.length === 0 ? html`<p class="muted" data-history-empty>${T(req, "history.none")}</p>` : html``}
<ol class="history">${page.entries.map(
    (e) => html`<li data-history-event="${e.seq}" data-kind="${e.kind}">
<p><strong>${kind(e)}</strong> · ${actorHTML(req, e)} · <time data-at datetime="${e.at.toISOString()}">${timeValue(req, e.at.getTime())}</time></p>
${changesHTML(req, spec, e, shown)}
</li>`,
  )}</ol>
${page.next === undefined ? html`` : html`<p><a href="${older(page.next)}" rel="next" data-history-next>${T(req, "history.older")}</a></p>`}
</section>`;
}
