/*
 * The list page (README "Search and export", `Filter` in spec.ts): filters and sorting read from the query string,
 * keyset pagination (`after`, an opaque cursor of the last row's sort value and id), an empty state, and one link per
 * record. A filter value that does not parse is shown inline and the page answers 400, listing nothing rather than
 * something unfiltered.
 */
import type { IncomingMessage } from "node:http";
import { html, queryParams, type SafeHTML } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { LIVE_POLL_SECONDS } from "./live.ts";
import { LIST_PAGE_SIZE, type ListFilter, type ListQuery, type StoredRecord } from "./table.ts";
import { recordName, type ReferenceOption } from "./references.ts";
import { bulkAllHTML, bulkFormHTML, bulkSelectHTML } from "./bulk-form.ts";
import { isOwned } from "./scope.ts";
import { parseField, type FieldProblem } from "./values.ts";
import { cellHTML, choiceOptions, displayValue, errorHTML, fixedValue, selectHTML, type Option, type ReferenceLink } from "./views.ts";

/** Records per list page (declared beside the store's list query). */
export { LIST_PAGE_SIZE };

/** The longest "contains" filter text. */
export const FILTER_MAX_LENGTH: number = 200;

/** The most words a search (`q`) may hold: each is one clause of the list's query. */
export const SEARCH_MAX_WORDS: number = 8;

const FIXED_SORTS = ["created_at", "updated_at", "id"];

/** A list request, parsed. */
export interface ListRequest {
  query: ListQuery;
  /** Filter inputs as entered, by parameter name. */
  entered: Map<string, string>;
  errors: Map<string, FieldProblem>;
}

/** Returns the columns a list may be sorted by: its columns, except `owner`. */
export function sortableColumns(spec: ResourceSpec): string[] {
  const columns = spec.List.Columns.map((c) => c.Field).filter((c) => c !== "owner");
  return [...new Set([...columns, ...FIXED_SORTS])];
}

/** Decodes a cursor; undefined when malformed. */
export function decodeCursor(text: string): [FieldValue, string] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2 || typeof value[1] !== "string") return undefined;
    const [v, id] = value as [unknown, string];
    return typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? [v, id] : undefined;
  } catch {
    return undefined;
  }
}

/** Encodes a cursor. */
export function encodeCursor(cursor: [FieldValue, string]): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** Reads filters, sorting and the page cursor of a list request from `params`; amounts are read in `locale`. */
export function parseListRequest(spec: ResourceSpec, params: URLSearchParams, locale: string): ListRequest | { bad: string } {
  const entered = new Map<string, string>();
  const errors = new Map<string, FieldProblem>();
  const filters: ListFilter[] = [];
  for (const filter of spec.List.Filters ?? []) {
    const field = spec.Form.Fields.find((f) => f.Name === filter.Field);
    if (field === undefined) continue;
    const style = filterStyle(field);
    if (style === "range") {
      // Each end read as the form reads the field, within what any Integer column holds (a field's own Min and Max only
      // bound what is stored).
      const { Min, Max, ...unbounded } = field;
      const range: { min: number | string | undefined; max: number | string | undefined } = { min: undefined, max: undefined };
      for (const end of ["min", "max"] as const) {
        const name = `${field.Name}_${end}`;
        const text = (params.get(name) ?? "").trim();
        entered.set(name, text);
        if (text === "") continue;
        const bound = parseField(unbounded, text, locale);
        if ("key" in bound) errors.set(name, bound);
        // A range is of a number or a date (filterStyle): parseField gives no boolean for it.
        else if (typeof bound.value !== "boolean") range[end] = bound.value ?? undefined;
        // A date typed in the locale's notation goes back into the date input as the ISO it reads.
        if (field.Kind === Kind.Date && !("key" in bound)) entered.set(name, String(bound.value));
      }
      if (range.min !== undefined || range.max !== undefined) filters.push({ field: field.Name, ...range });
      continue;
    }
    const text = (params.get(field.Name) ?? "").trim();
    entered.set(field.Name, text);
    if (text === "") continue;
    if (style === "contains") {
      if (text.length > FILTER_MAX_LENGTH) errors.set(field.Name, { key: "resource.err.too_long", args: { max: FILTER_MAX_LENGTH } });
      else filters.push({ field: field.Name, contains: text });
    } else if (style === "yesno") {
      if (text === "yes" || text === "no") filters.push({ field: field.Name, equals: text === "yes" ? 1 : 0 });
      else errors.set(field.Name, { key: "resource.err.boolean_invalid", args: {} });
    } else {
      // One of the choices, or one record's id (a foreign or unknown one matches nothing of this person's: the owner
      // scope is in the query), read as the form reads it.
      const one = parseField(field, text, locale);
      if ("key" in one) errors.set(field.Name, one);
      else filters.push({ field: field.Name, equals: String(one.value) });
    }
  }
  // The search box: at most FILTER_MAX_LENGTH characters and SEARCH_MAX_WORDS words, each found in any searched field.
  const q = (params.get("q") ?? "").trim();
  entered.set("q", q);
  const search = q === "" ? [] : q.split(/\s+/u);
  if (q.length > FILTER_MAX_LENGTH) errors.set("q", { key: "resource.err.too_long", args: { max: FILTER_MAX_LENGTH } });
  else if (search.length > SEARCH_MAX_WORDS) errors.set("q", { key: "resource.err.search_words", args: { max: SEARCH_MAX_WORDS } });
  const sort = params.get("sort") ?? "created_at";
  if (!sortableColumns(spec).includes(sort)) return { bad: "unknown sort column" };
  const dir = params.get("dir") ?? (params.has("sort") ? "asc" : "desc");
  if (dir !== "asc" && dir !== "desc") return { bad: 'dir must be "asc" or "desc"' };
  const afterText = params.get("after");
  const after = afterText === null ? undefined : decodeCursor(afterText);
  if (afterText !== null && after === undefined) return { bad: "malformed page cursor" };
  return { query: { filters, search, sort, desc: dir === "desc", after, limit: LIST_PAGE_SIZE }, entered, errors };
}

/** How a field filters the list: by text contained, by a range, by yes or no, by one of its choices, or by the record it references. */
export function filterStyle(field: Field): FilterStyle {
  return FILTER_STYLES[field.Kind] ?? "contains";
}

type FilterStyle = "contains" | "range" | "yesno" | "choice" | "reference";
const FILTER_STYLES: Partial<Record<Kind, FilterStyle>> = {
  reference: "reference",
  money: "range",
  integer: "range",
  date: "range",
  boolean: "yesno",
  choice: "choice",
};

function columnLabel(req: IncomingMessage, spec: ResourceSpec, column: string, label: string | undefined): string {
  if (label !== undefined) return T(req, label);
  const field = spec.Form.Fields.find((f) => f.Name === column);
  return field === undefined ? T(req, `resource.column.${column}`) : T(req, field.Label);
}

/** What a list needs of its Reference fields: each referenced record's link, and each filter's records to choose from. */
export interface ListReferences {
  link: ReferenceLink;
  options: (field: Field) => readonly ReferenceOption[];
}

function link(base: string, params: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(params);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) next.delete(k);
    else next.set(k, v);
  }
  const query = next.toString();
  return query === "" ? base : `${base}?${query}`;
}

// The search box and the filters, one form, so a search keeps the filters and the sort and the reverse.
function filtersHTML(req: IncomingMessage, spec: ResourceSpec, list: ListRequest, refs?: ListReferences): SafeHTML {
  const filters = spec.List.Filters ?? [];
  const one = (name: string, label: string, control: (aria: SafeHTML) => SafeHTML): SafeHTML => {
    const problem = list.errors.get(name);
    const aria = problem === undefined ? html`` : html` aria-invalid="true" aria-describedby="error-${name}"`;
    return html`<div class="field${problem === undefined ? "" : " invalid"}"><label for="filter-${name}">${label}</label>
${control(aria)}
${problem === undefined ? "" : errorHTML(req, name, problem)}</div>`;
  };
  // A filter's input: a date picker for dates, a select of "any" and the values for yes/no, choices and references, else
  // text (amounts and numbers in the locale's notation).
  const control = (field: Field, name: string) => (aria: SafeHTML) => {
    const id = `filter-${name}`;
    const value = list.entered.get(name) ?? "";
    const style = filterStyle(field);
    if (style === "reference" || style === "yesno" || style === "choice") {
      const yesno = [
        { value: "yes", label: T(req, "resource.yes") },
        { value: "no", label: T(req, "resource.no") },
      ];
      const records = (): Option[] => (refs?.options(field) ?? []).map((r) => ({ value: r.id, label: r.label }));
      const options = style === "reference" ? records() : style === "yesno" ? yesno : choiceOptions(req, field);
      return selectHTML(id, name, aria, T(req, "resource.filter.any"), options, value);
    }
    const type = field.Kind === Kind.Date ? "date" : "text";
    const mode = field.Kind === Kind.Integer ? html` inputmode="numeric"` : field.Kind === Kind.Money ? html` inputmode="decimal"` : "";
    return html`<input id="${id}" name="${name}" type="${type}"${mode} value="${value}"${aria}>`;
  };
  const params = queryParams(req);
  const kept = ["sort", "dir"]
    .filter((k) => params.has(k))
    .map((k) => html`<input type="hidden" name="${k}" value="${params.get(k) ?? ""}">`);
  return html`<form class="filters row" method="get" action="${spec.Route}" role="search">
${one("q", T(req, "resource.search"), (aria) => html`<input id="filter-q" name="q" type="search" value="${list.entered.get("q") ?? ""}" data-search${aria}>`)}
${kept}
${filters.map((filter) => {
  const field = spec.Form.Fields.find((f) => f.Name === filter.Field);
  if (field === undefined) return "";
  const label = filter.Label === undefined ? T(req, field.Label) : T(req, filter.Label);
  if (filterStyle(field) !== "range") return one(field.Name, label, control(field, field.Name));
  const [min, max] = [`${field.Name}_min`, `${field.Name}_max`];
  return html`${one(min, Tf(req, "resource.filter.min", { label }), control(field, min))}${one(max, Tf(req, "resource.filter.max", { label }), control(field, max))}`;
})}
<div class="row"><button type="submit">${T(req, "resource.filter")}</button> <a href="${spec.Route}">${T(req, "resource.filter.clear")}</a></div>
</form>`;
}

/** Renders the list page body; `importable`: with the link to the CSV import (README "Import"). */
export function listHTML(
  req: IncomingMessage,
  spec: ResourceSpec,
  list: ListRequest,
  page: { records: StoredRecord[]; next: [FieldValue, string] | undefined },
  notice: SafeHTML,
  refs?: ListReferences,
  importable = false,
): SafeHTML {
  const params = queryParams(req);
  const columns = spec.List.Columns.filter((c) => !(c.Field === "owner" && isOwned(spec)));
  const sortable = sortableColumns(spec);
  const filtered = list.query.filters.length > 0 || list.query.search.length > 0;
  // Each column's field, found once a page rather than once a cell.
  const fields = columns.map((c) => spec.Form.Fields.find((f) => f.Name === c.Field));
  const cell = (column: string, field: Field | undefined, record: StoredRecord, linked: boolean): SafeHTML => {
    const stored = record.values[column] ?? null;
    if (!linked) return field === undefined ? html`${fixedValue(req, column, record)}` : cellHTML(req, field, stored, refs?.link);
    // The first column links to the record, by its value as shown (an address or a reference there is text: a link holds
    // no link); a reference is named (`refs.link`), never shown as its id.
    const named = field?.Kind === Kind.Reference && typeof stored === "string" ? (refs?.link(field, stored)?.label ?? "") : undefined;
    const value = field === undefined ? fixedValue(req, column, record) : (named ?? displayValue(req, field, stored));
    return html`<a href="${spec.Route}/${record.id}">${value === "" ? record.id : value}</a>`;
  };
  const header = (column: string, label: string | undefined): SafeHTML => {
    const text = columnLabel(req, spec, column, label);
    if (!sortable.includes(column)) return html`<th scope="col">${text}</th>`;
    const current = list.query.sort === column;
    const dir = current && !list.query.desc ? "desc" : "asc";
    const sorted = current ? (list.query.desc ? "descending" : "ascending") : "none";
    return html`<th scope="col" aria-sort="${sorted}"><a href="${link(spec.Route, params, { sort: column, dir, after: undefined })}">${text}${current ? (list.query.desc ? " ↓" : " ↑") : ""}</a></th>`;
  };
  const table =
    page.records.length === 0
      ? html`<p class="muted" data-empty>${T(req, filtered ? "resource.empty_filtered" : "resource.empty")}</p>`
      : // A table wider than the page's column (a phone, a long-word language) scrolls in its own box (`table-scroll`), not the page.
        // The last column selects rows for a bulk change (bulk-form.ts), so the first stays the record's link.
        html`<div class="table-scroll"><table data-resource="${spec.Name}"><thead><tr>${columns.map((c) => header(c.Field, c.Label))}${bulkAllHTML(req)}</tr></thead><tbody>
${page.records.map(
  (record) =>
    html`<tr data-record-id="${record.id}">${columns.map((c, n) => html`<td>${cell(c.Field, fields[n], record, n === 0)}</td>`)}${bulkSelectHTML(req, spec, record, recordName(spec, record.id, record.values))}</tr>`,
)}
</tbody></table></div>`;
  const more =
    page.next === undefined
      ? ""
      : html`<p><a rel="next" href="${link(spec.Route, params, { after: encodeCursor(page.next) })}">${T(req, "resource.next")}</a></p>`;
  // The export is the list as filtered, searched and sorted, every page of it.
  const csv = link(`${spec.Route}.csv`, params, { after: undefined });
  return html`<h1>${T(req, `${spec.Name}.title`)}</h1>
${notice}
<p><a class="button" href="${spec.Route}/new">${T(req, `${spec.Name}.new`)}</a> <a href="${csv}" download data-export="csv">${T(req, "resource.export")}</a>${importable ? html` <a href="${spec.Route}/import" data-import>${T(req, "resource.import.link")}</a>` : ""}</p>
${filtersHTML(req, spec, list, refs)}
<div data-live="${spec.Route}/events" data-live-every="${LIVE_POLL_SECONDS}" data-live-list>
${table}
${more}
</div>
${page.records.length === 0 ? "" : bulkFormHTML(req, spec)}`;
}
