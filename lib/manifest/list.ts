/*
 * The list page: filters and sorting read from the query string, keyset
 * pagination (`after`, an opaque cursor of the last row's sort value and
 * id), an empty state, and one link per record. Filters come from
 * `List.Filters`: a Text/Textarea field filters by "contains" (`<field>`),
 * a Money field by range (`<field>_min`, `<field>_max`, read in the
 * request's locale). A filter value that does not parse is shown inline
 * and the page answers 400, listing nothing rather than something
 * unfiltered.
 */
import type { IncomingMessage } from "node:http";
import { html, queryParams, type SafeHTML } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import { Kind, ScopeKind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { currencyDigits, parseMoney } from "./money.ts";
import type { ResourceSpec } from "./spec.ts";
import { LIST_PAGE_SIZE, type ListFilter, type ListQuery, type StoredRecord } from "./table.ts";
import { currencyOf, type FieldProblem } from "./values.ts";
import { displayValue, fixedValue } from "./views.ts";

/** Records per list page (declared beside the store's list query). */
export { LIST_PAGE_SIZE };

/** The longest "contains" filter text. */
export const FILTER_MAX_LENGTH: number = 200;

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
    if (field.Kind !== Kind.Money) {
      const text = (params.get(field.Name) ?? "").trim();
      entered.set(field.Name, text);
      if (text.length > FILTER_MAX_LENGTH) errors.set(field.Name, { key: "resource.err.too_long", args: { max: FILTER_MAX_LENGTH } });
      else if (text !== "") filters.push({ field: field.Name, contains: text });
      continue;
    }
    const range: { min: number | undefined; max: number | undefined } = { min: undefined, max: undefined };
    for (const end of ["min", "max"] as const) {
      const name = `${field.Name}_${end}`;
      const text = (params.get(name) ?? "").trim();
      entered.set(name, text);
      if (text === "") continue;
      const money = parseMoney(text, locale, currencyOf(field));
      if (money.ok) range[end] = money.minor;
      else if (money.reason === "precision")
        errors.set(name, { key: "resource.err.money_precision", args: { digits: currencyDigits(currencyOf(field)) } });
      else errors.set(name, { key: money.reason === "range" ? "resource.err.money_range" : "resource.err.money_invalid", args: {} });
    }
    if (range.min !== undefined || range.max !== undefined) filters.push({ field: field.Name, ...range });
  }
  const sort = params.get("sort") ?? "created_at";
  if (!sortableColumns(spec).includes(sort)) return { bad: "unknown sort column" };
  const dir = params.get("dir") ?? (params.has("sort") ? "asc" : "desc");
  if (dir !== "asc" && dir !== "desc") return { bad: 'dir must be "asc" or "desc"' };
  const afterText = params.get("after");
  const after = afterText === null ? undefined : decodeCursor(afterText);
  if (afterText !== null && after === undefined) return { bad: "malformed page cursor" };
  return { query: { filters, sort, desc: dir === "desc", after, limit: LIST_PAGE_SIZE }, entered, errors };
}

function columnLabel(req: IncomingMessage, spec: ResourceSpec, column: string, label: string | undefined): string {
  if (label !== undefined) return T(req, label);
  const field = spec.Form.Fields.find((f) => f.Name === column);
  return field === undefined ? T(req, `resource.column.${column}`) : T(req, field.Label);
}

function cell(req: IncomingMessage, spec: ResourceSpec, column: string, record: StoredRecord): string {
  const field = spec.Form.Fields.find((f) => f.Name === column);
  return field === undefined ? fixedValue(req, column, record) : displayValue(req, field, record.values[column] ?? null);
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

function filtersHTML(req: IncomingMessage, spec: ResourceSpec, list: ListRequest): SafeHTML {
  const filters = spec.List.Filters ?? [];
  if (filters.length === 0) return html``;
  const one = (name: string, label: string): SafeHTML => {
    const problem = list.errors.get(name);
    return html`<div class="field${problem === undefined ? "" : " invalid"}"><label for="filter-${name}">${label}</label>
<input id="filter-${name}" name="${name}" type="text" value="${list.entered.get(name) ?? ""}"${problem === undefined ? "" : html` aria-invalid="true" aria-describedby="error-${name}"`}>
${problem === undefined ? "" : html`<p class="field-error" id="error-${name}" data-error-for="${name}" role="alert">${Object.keys(problem.args).length === 0 ? T(req, problem.key) : Tf(req, problem.key, problem.args)}</p>`}</div>`;
  };
  return html`<form class="filters row" method="get" action="${spec.Route}" role="search">
${filters.map((filter) => {
  const field = spec.Form.Fields.find((f) => f.Name === filter.Field);
  if (field === undefined) return "";
  const label = filter.Label === undefined ? T(req, field.Label) : T(req, filter.Label);
  if (field.Kind !== Kind.Money) return one(field.Name, label);
  return html`${one(`${field.Name}_min`, Tf(req, "resource.filter.min", { label }))}${one(`${field.Name}_max`, Tf(req, "resource.filter.max", { label }))}`;
})}
<div class="row"><button type="submit">${T(req, "resource.filter")}</button> <a href="${spec.Route}">${T(req, "resource.filter.clear")}</a></div>
</form>`;
}

/** Renders the list page body. */
export function listHTML(
  req: IncomingMessage,
  spec: ResourceSpec,
  list: ListRequest,
  page: { records: StoredRecord[]; next: [FieldValue, string] | undefined },
  notice: SafeHTML,
): SafeHTML {
  const params = queryParams(req);
  const columns = spec.List.Columns.filter((c) => !(c.Field === "owner" && spec.Scope === ScopeKind.UserScoped));
  const sortable = sortableColumns(spec);
  const filtered = list.query.filters.length > 0;
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
      : html`<table data-resource="${spec.Name}"><thead><tr>${columns.map((c) => header(c.Field, c.Label))}</tr></thead><tbody>
${page.records.map(
  (record) =>
    html`<tr data-record-id="${record.id}">${columns.map((c, n) => {
      const text = cell(req, spec, c.Field, record);
      return html`<td>${n === 0 ? html`<a href="${spec.Route}/${record.id}">${text === "" ? record.id : text}</a>` : text}</td>`;
    })}</tr>`,
)}
</tbody></table>`;
  const more =
    page.next === undefined
      ? ""
      : html`<p><a rel="next" href="${link(spec.Route, params, { after: encodeCursor(page.next) })}">${T(req, "resource.next")}</a></p>`;
  return html`<h1>${T(req, `${spec.Name}.title`)}</h1>
${notice}
<p><a class="button" href="${spec.Route}/new">${T(req, `${spec.Name}.new`)}</a></p>
${filtersHTML(req, spec, list)}
${table}
${more}`;
}
