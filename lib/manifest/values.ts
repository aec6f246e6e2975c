/*
 * A submitted form (or a tool call's arguments) turned into field values,
 * accepting only declared fields: an undeclared name is refused outright
 * (400), never passed to the store, so a client cannot set `owner`, `id`
 * or anything the manifest did not declare. Each value is then checked
 * against its field: required, single line for Text, length limits, and
 * money parsed in the request's locale. Problems come back per field as
 * catalog keys, shown inline beside the input with the entered text kept.
 */
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { currencyDigits, parseMoney } from "./money.ts";
import type { Field, ResourceSpec } from "./spec.ts";

/** Default `MaxLength` of a Text field, in characters. */
export const TEXT_MAX_LENGTH: number = 200;

/** Default `MaxLength` of a Textarea field, in characters (UTF-16 code units, as `String.length`). */
export const TEXTAREA_MAX_LENGTH: number = 2000;

/** Default currency of a Money field. */
export const DEFAULT_CURRENCY: string = "USD";

/** A record's field values by field name. */
export type RecordValues = Record<string, FieldValue>;

/** One field's problem: a catalog key and its placeholders. */
export interface FieldProblem {
  key: string;
  args: Record<string, string | number>;
}

/** The outcome of `parseValues`. */
export type ParsedValues = { ok: true; values: RecordValues } | { ok: false; errors: Map<string, FieldProblem> };

/** Returns the longest text `field` accepts. */
export function maxLength(field: Field): number {
  return field.MaxLength ?? (field.Kind === Kind.Textarea ? TEXTAREA_MAX_LENGTH : TEXT_MAX_LENGTH);
}

/**
 * Returns the most bytes one value of `field` takes in an event's JSON:
 * 3 per UTF-16 code unit (3-byte UTF-8, `"` and `\\` escaped as 2, a
 * surrogate pair 4 for 2; lone surrogates and control characters other
 * than line break and tab are refused), plus the quotes; an amount
 * (MONEY_MAX_MINOR, signed) in 24.
 */
export function maxValueBytes(field: Field): number {
  return field.Kind === Kind.Money ? 24 : 3 * maxLength(field) + 2;
}

/**
 * Returns the most bytes a Mergeable record's largest event (an update
 * changing every field: its values and the values they replaced) takes
 * serialized; `Validate` refuses a Mergeable resource whose fields could
 * exceed `MAX_EVENT_DATA`, so every value a form accepts can be stored,
 * merged and kept in a conflict.
 */
export function maxEventBytes(fields: readonly Field[]): number {
  // Per field, twice: "name":value, — and the envelope {"base":N,"values":{},"before":{}}.
  return 2 * fields.reduce((n, f) => n + f.Name.length + 4 + maxValueBytes(f), 0) + 64;
}

/** Returns the currency of a Money field. */
export function currencyOf(field: Field): string {
  return field.Currency ?? DEFAULT_CURRENCY;
}

/**
 * Reports whether `given` holds a name that is neither a field of `spec`
 * nor one of `extra`, or a repeated name (which value would win is exactly
 * the ambiguity to refuse). The name itself is client input: callers say
 * "an undeclared field" and never echo it into a message or the log.
 */
export function hasUndeclaredName(spec: ResourceSpec, given: Iterable<string>, extra: readonly string[]): boolean {
  const allowed = new Set([...spec.Form.Fields.map((f) => f.Name), ...extra]);
  const seen = new Set<string>();
  for (const name of given) {
    if (!allowed.has(name) || seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}

/**
 * Checks the entered text of every field (missing = empty) and returns the
 * values to store, or the problem of each field at fault. `locale` decides
 * how amounts are read.
 */
export function parseValues(spec: ResourceSpec, entered: ReadonlyMap<string, string>, locale: string): ParsedValues {
  const values: RecordValues = {};
  const errors = new Map<string, FieldProblem>();
  for (const field of spec.Form.Fields) {
    const parsed = parseField(field, entered.get(field.Name) ?? "", locale);
    if ("key" in parsed) errors.set(field.Name, parsed);
    else values[field.Name] = parsed.value;
  }
  return errors.size === 0 ? { ok: true, values } : { ok: false, errors };
}

function problem(key: string, args: Record<string, string | number> = {}): FieldProblem {
  return { key, args };
}

function parseField(field: Field, raw: string, locale: string): { value: FieldValue } | FieldProblem {
  // Browsers submit textarea line breaks as CRLF (HTML §4.10.21.4); store LF.
  const text = field.Kind === Kind.Textarea ? raw.replace(/\r\n?/g, "\n") : raw.trim();
  if (text.trim() === "")
    return field.Required === true ? problem("resource.err.required") : { value: field.Kind === Kind.Money ? null : "" };
  if (field.Kind === Kind.Money) {
    const currency = currencyOf(field);
    const money = parseMoney(text, locale, currency);
    if (money.ok) return { value: money.minor };
    if (money.reason === "precision") return problem("resource.err.money_precision", { digits: currencyDigits(currency) });
    return problem(money.reason === "range" ? "resource.err.money_range" : "resource.err.money_invalid");
  }
  if (field.Kind === Kind.Text && /[\r\n]/.test(text)) return problem("resource.err.single_line");
  // Control characters other than line breaks and tabs have no place in a form value and hide content in displays.
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) return problem("resource.err.invalid");
  // A lone surrogate is no character (it cannot be UTF-8 encoded) and would take 6 bytes escaped in an event (maxValueBytes).
  if (/\p{Cs}/u.test(text)) return problem("resource.err.invalid");
  const max = maxLength(field);
  if (text.length > max) return problem("resource.err.too_long", { max });
  return { value: text };
}
