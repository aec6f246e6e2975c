/*
 * The values the conformance suite posts (README "Values"): for each of the ten kinds a few values the form accepts,
 * whatever the field's bounds, and the values its kind must refuse. A Reference's value is a record the run created
 * in its target first (references.ts), given here by field name.
 */
import { Kind } from "../kinds.ts";
import { INTEGER_LIMIT } from "../scalars.ts";
import { compares, comparing } from "../rules.ts";
import type { Field, ResourceSpec } from "../spec.ts";
import { integerRange, maxLength } from "../values.ts";

/** The record ids a run's Reference fields point to, by field name (an absent field posts "": no record). */
export type ReferenceIDs = ReadonlyMap<string, string>;

/**
 * Valid values of `field`, distinct, the first the one every form of the run posts (amounts and numbers in English
 * notation): three where the kind and bounds allow (a Mergeable conflict needs a base and two other values), fewer for
 * a yes/no, a short Choice, a narrow range, and one for a Reference (its run's record).
 */
export function validValues(field: Field, tag: string, refs: ReferenceIDs): string[] {
  const fit = (text: string): string => text.slice(0, maxLength(field)).trim();
  switch (field.Kind) {
    case Kind.Text:
      return distinct([`${tag} text`, `${tag} first`, `${tag} second`, "1", "2"].map(fit));
    case Kind.Textarea:
      return distinct([`${tag} one\ntwo\nthree`, `${tag} first`, `${tag} second`, "1", "2"].map(fit));
    case Kind.Money:
      return ["12", "1", "2"];
    case Kind.Integer:
      return integerValues(field);
    case Kind.Date:
      return ["2026-12-31", "2026-01-01", "2026-01-02"];
    case Kind.Boolean:
      return ["1", ""];
    case Kind.Choice:
      return (field.Choices ?? []).slice(0, 3).map((c) => c.Value);
    case Kind.Email:
      return ["conformance@example.com", "first@example.com", "second@example.com"];
    case Kind.URL:
      return ["https://example.com/conformance", "https://example.com/first", "https://example.com/second"];
    case Kind.Reference:
      return [refs.get(field.Name) ?? ""];
    default:
      return [fit(`${tag} text`)];
  }
}

// 12 where the range holds it (its smallest value when that is above 0), then the next values up or down.
function integerValues(field: Field): string[] {
  const { min, max } = integerRange(field);
  const first = min > 0 ? min : Math.min(12, max);
  return distinct([first, first + 1, first + 2, first - 1, first - 2].filter((n) => n >= min && n <= max).map(String));
}

function distinct(values: string[]): string[] {
  return [...new Set(values.filter((v) => v !== ""))];
}

/**
 * A valid value for every field of `fields`: the first of `validValues`, then moved so that each comparison among
 * `rules` holds (`satisfying`).
 */
export function sample(
  fields: readonly Field[],
  tag: string,
  refs: ReferenceIDs,
  rules: ResourceSpec["Rules"] = [],
): Record<string, string> {
  return satisfying(fields, rules, Object.fromEntries(fields.map((f) => [f.Name, validValues(f, tag, refs)[0] ?? ""])));
}

/**
 * `form` with each comparison rule made to hold (README "Rules across fields"): a rule's `Field` that breaks it is set
 * one step past its other field (a day, or one: a whole number, a currency unit), later for After and AtLeast, earlier
 * for Before and AtMost; repeated so a rule changed by a later one holds again. A check (`Check`) is the application's
 * code: its values are left as they are.
 */
export function satisfying(
  fields: readonly Field[],
  rules: ResourceSpec["Rules"] = [],
  form: Record<string, string>,
): Record<string, string> {
  const values = { ...form };
  const kinds = new Map(fields.map((f) => [f.Name, f.Kind]));
  for (let pass = 0; pass <= rules.length; pass++) {
    let moved = false;
    for (const rule of rules) {
      const c = comparing(rule);
      if (c === undefined) continue;
      const date = kinds.get(c.field) === Kind.Date;
      const [a, b] = [values[c.field] ?? "", values[c.other] ?? ""];
      const read = (text: string) => (text === "" ? null : date ? text : Number(text));
      if (compares(c.comparison, read(a), read(b))) continue;
      values[c.field] = step(b, date, c.comparison === "After" || c.comparison === "AtLeast" ? 1 : -1);
      moved = true;
    }
    if (!moved) break;
  }
  return values;
}

/** `text` (an ISO date, or a number in English notation) one day or one unit up (`by` 1) or down (-1). */
export function step(text: string, date: boolean, by: 1 | -1): string {
  if (!date) return String(Number(text) + by);
  const day = new Date(`${text}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + by);
  return day.toISOString().slice(0, 10);
}

// Values each kind must refuse with 422: a day that does not exist, an unlisted choice, a scheme other than http(s), a record that does not exist.
const REFUSED: Partial<Record<Kind, string[]>> = {
  [Kind.Date]: ["2026-02-30", "31.12.2026", "tomorrow"],
  [Kind.Boolean]: ["maybe"],
  [Kind.Choice]: ["not-a-listed-value"],
  [Kind.Email]: ["nobody", "nobody@"],
  [Kind.URL]: ["javascript:alert(1)", "ftp://example.com/", "example.com"],
  [Kind.Reference]: ["no-such-record", "not an id"],
};

/** Values `field` must refuse with 422: its kind's (`REFUSED`), and for a whole number a fraction, a word and one past each bound. */
export function refusedValues(field: Field): string[] {
  if (field.Kind !== Kind.Integer) return REFUSED[field.Kind] ?? [];
  const { min, max } = integerRange(field);
  return ["1.5", "twelve", ...(min > -INTEGER_LIMIT ? [String(min - 1)] : []), ...(max < INTEGER_LIMIT ? [String(max + 1)] : [])];
}
