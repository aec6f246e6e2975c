/*
 * A submitted form (or a tool call's arguments) turned into field values, accepting only declared fields: an
 * undeclared name is refused outright (400), so a client cannot set `owner`, `id` or anything the manifest did not
 * declare. Each value is then checked against its field (README "Field kinds"); problems come back per field as
 * catalog keys, shown inline beside the input with the entered text kept.
 */
import { ATTACHMENT_ID_PATTERN } from "./attachments.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { currencyDigits, formatMinor, parseMoney } from "./money.ts";
import { ManifestError } from "./errors.ts";
import {
  EMAIL_MAX_LENGTH,
  INTEGER_LIMIT,
  formatInteger,
  isEmail,
  parseLocalDate,
  parseInteger,
  parseWebAddress,
  URL_MAX_LENGTH,
} from "./scalars.ts";
import type { Field, ResourceSpec } from "./spec.ts";

/** Default `MaxLength` of a Text field, in characters. */
export const TEXT_MAX_LENGTH: number = 200;

/** Default `MaxLength` of a Textarea field, in characters (UTF-16 code units, as `String.length`). */
export const TEXTAREA_MAX_LENGTH: number = 2000;

/** Default currency of a Money field. */
export const DEFAULT_CURRENCY: string = "USD";

/** The shape of a Reference field's value: a record id (`A-Z a-z 0-9 _ -`, 1 to 64; latch's ids are 12); the column's CHECK holds the same. */
export const REFERENCE_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{1,64}$/;

/** A record's field values by field name. */
export type RecordValues = Record<string, FieldValue>;

/** One field's problem: a catalog key and its placeholders. */
export interface FieldProblem {
  key: string;
  args: Record<string, string | number>;
  /** The names of `args` holding a catalog key (another field's label), translated where the problem is read. @default [] */
  labels?: readonly string[];
}

/** The placeholders of `problem`, those among its `labels` translated with `translate`. */
export function problemArgs(problem: FieldProblem, translate: (key: string) => string): Record<string, string | number> {
  const args = { ...problem.args };
  for (const name of problem.labels ?? []) args[name] = translate(String(args[name] ?? ""));
  return args;
}

/** The outcome of `parseValues`. */
export type ParsedValues = { ok: true; values: RecordValues } | { ok: false; errors: Map<string, FieldProblem> };

/** Returns the longest text `field` accepts. */
export function maxLength(field: Field): number {
  if (field.Kind === Kind.Email) return EMAIL_MAX_LENGTH;
  if (field.Kind === Kind.URL) return URL_MAX_LENGTH;
  return field.MaxLength ?? (field.Kind === Kind.Textarea ? TEXTAREA_MAX_LENGTH : TEXT_MAX_LENGTH);
}

/** Returns the smallest and largest value of an Integer field. */
export function integerRange(field: Field): { min: number; max: number } {
  return { min: field.Min ?? -INTEGER_LIMIT, max: field.Max ?? INTEGER_LIMIT };
}

/** Reports whether `kind` stores a number or NULL (Money, Integer) or a date or NULL (Date): an empty value is NULL. */
export function isNullable(kind: Kind): boolean {
  return kind === Kind.Money || kind === Kind.Integer || kind === Kind.Date || kind === Kind.Reference || kind === Kind.File;
}

/**
 * Returns the most bytes one value of `field` takes in an event's JSON: 3 per UTF-16 code unit (3-byte UTF-8, `"` and
 * `\\` escaped as 2, a surrogate pair 4 for 2; lone surrogates and control characters other than line break and tab are
 * refused), plus the quotes; an amount (MONEY_MAX_MINOR, signed) or a whole number (INTEGER_LIMIT, signed) in 24; a
 * yes/no (0 or 1) in 1; a date in 12; a choice's value in 191.
 */
export function maxValueBytes(field: Field): number {
  return VALUE_BYTES[field.Kind] ?? 3 * maxLength(field) + 2;
}

// The kinds whose values' length does not depend on the field: a record id is at most 64 characters, quoted.
const VALUE_BYTES: Partial<Record<Kind, number>> = { money: 24, integer: 24, boolean: 1, date: 12, choice: 3 * 63 + 2, reference: 64 + 2 };

/**
 * Returns the most bytes a Mergeable record's largest event (an update changing every field: its values and the values
 * they replaced) takes serialized; `Validate` refuses a Mergeable resource whose fields could exceed `MAX_EVENT_DATA`,
 * so every value a form accepts can be stored, merged and kept in a conflict.
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
 * Reports whether `given` holds a name that is neither a field of `spec` nor one of `extra`, or a repeated name (which
 * value would win is exactly the ambiguity to refuse). The name itself is client input: callers say "an undeclared
 * field" and never echo it into a message or the log.
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
 * Checks the entered text of every field (missing = empty) and returns the values to store, or the problem of each
 * field at fault. `locale` decides how amounts are read.
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

/** Checks the text entered for `field` (missing = empty): the value to store, or the field's problem. */
export function parseField(field: Field, raw: string, locale: string): { value: FieldValue } | FieldProblem {
  // Browsers submit textarea line breaks as CRLF (HTML §4.10.21.4); store LF.
  const text = field.Kind === Kind.Textarea ? raw.replace(/\r\n?/g, "\n") : raw.trim();
  // HTML §4.10.18.3: an unchecked checkbox is not submitted at all, so empty is no.
  if (field.Kind === Kind.Boolean) return parseBoolean(text);
  if (text.trim() === "") return field.Required === true ? problem("resource.err.required") : { value: isNullable(field.Kind) ? null : "" };
  if (field.Kind === Kind.Money) {
    const currency = currencyOf(field);
    const money = parseMoney(text, locale, currency);
    if (money.ok) return { value: money.minor };
    if (money.reason === "precision") return problem("resource.err.money_precision", { digits: currencyDigits(currency) });
    return problem(money.reason === "range" ? "resource.err.money_range" : "resource.err.money_invalid");
  }
  if (field.Kind === Kind.Date) {
    const iso = parseLocalDate(text, locale);
    return iso === undefined ? problem("resource.err.date_invalid") : { value: iso };
  }
  if (field.Kind === Kind.Integer) return parseWhole(field, text, locale);
  if (field.Kind === Kind.Choice) {
    return field.Choices?.some((c) => c.Value === text) === true ? { value: text } : problem("resource.err.choice_invalid");
  }
  // The record it names is checked when it is written, in the write's transaction (references.ts); here only the shape of an id.
  if (field.Kind === Kind.Reference) return REFERENCE_ID_PATTERN.test(text) ? { value: text } : problem("resource.err.reference_missing");
  // Only the id of the record's own attachment is kept (files.ts checks it in the write); a file comes by its upload route.
  if (field.Kind === Kind.File) return ATTACHMENT_ID_PATTERN.test(text) ? { value: text } : problem("resource.err.invalid");
  if (field.Kind === Kind.Email) {
    if (text.length > EMAIL_MAX_LENGTH) return problem("resource.err.too_long", { max: EMAIL_MAX_LENGTH });
    return isEmail(text) ? { value: text } : problem("resource.err.email_invalid");
  }
  if (field.Kind === Kind.URL) {
    const href = parseWebAddress(text);
    if (href === undefined) return problem("resource.err.url_invalid");
    return href.length > URL_MAX_LENGTH ? problem("resource.err.too_long", { max: URL_MAX_LENGTH }) : { value: href };
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

// What a checkbox posts when checked ("1", the value latch renders; "on", a browser's default), or a tool's true ("true").
const YES: ReadonlySet<string> = new Set(["1", "on", "true"]);
const NO: ReadonlySet<string> = new Set(["", "0", "false"]);

function parseBoolean(text: string): { value: FieldValue } | FieldProblem {
  if (YES.has(text)) return { value: 1 };
  return NO.has(text) ? { value: 0 } : problem("resource.err.boolean_invalid");
}

function parseWhole(field: Field, text: string, locale: string): { value: FieldValue } | FieldProblem {
  const parsed = parseInteger(text, locale);
  const { min, max } = integerRange(field);
  if (parsed.ok && parsed.value >= min && parsed.value <= max) return { value: parsed.value };
  if (!parsed.ok && parsed.reason === "invalid") return problem("resource.err.integer_invalid");
  return problem("resource.err.integer_range", { min: formatInteger(min, locale), max: formatInteger(max, locale) });
}

/**
 * A stored value as latch/manifest hands it to code, the one conversion its tools' results and `MountedResource.Store`
 * share (README "Values by kind"): an amount as a decimal string in its currency's digits ("12.50", never a float), a
 * yes/no as a boolean, every other kind as stored (text, an ISO date, a whole number, a choice's value, a record id;
 * an empty number, date or reference null).
 */
export function valueOut(field: Field, stored: FieldValue): FieldValue {
  if (field.Kind === Kind.Boolean) return stored === 1 || stored === true;
  if (field.Kind === Kind.Money && typeof stored === "number") return formatMinor(stored, currencyOf(field));
  return stored;
}

/**
 * The stored value of `given`, a value in `valueOut`'s shape (what `MountedResource.Store` writes); throws
 * `ManifestError` `ERR_MANIFEST_INVALID_FIELD` naming the field for a yes/no that is not a boolean or an amount that is
 * not a decimal string in the currency's digits (a number would be ambiguous: minor units, or whole ones).
 */
export function valueIn(resource: string, field: Field, given: FieldValue): FieldValue {
  const refuse = (reason: string): never => {
    throw new ManifestError("ERR_MANIFEST_INVALID_FIELD", { resource, field: field.Name }, reason);
  };
  if (field.Kind === Kind.Boolean) return typeof given === "boolean" ? (given ? 1 : 0) : refuse("a Boolean's value is true or false");
  if (field.Kind !== Kind.Money || given === null) return given;
  const money = typeof given === "string" ? parseMoney(given, "en", currencyOf(field)) : undefined;
  return money?.ok === true
    ? money.minor
    : refuse(`an amount is a decimal string in ${currencyOf(field)}'s digits, as the store returns it ("12.50"), or null`);
}

/** `values` of `spec`'s fields converted with `convert` (`valueOut` or `valueIn`); a name that is no field is kept as given. */
export function convertValues(
  spec: ResourceSpec,
  values: RecordValues,
  convert: (field: Field, value: FieldValue) => FieldValue,
): RecordValues {
  const fields = new Map(spec.Form.Fields.map((f) => [f.Name, f]));
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const field = fields.get(name);
      return [name, field === undefined ? value : convert(field, value)];
    }),
  );
}
