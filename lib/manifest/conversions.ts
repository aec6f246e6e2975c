/*
 * The value conversions of a field's `Retype` (README "Changing a field"), which history.ts applies while it rebuilds
 * a table: what a stored value of one kind becomes in another, or why it cannot.
 */
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import { currencyDigits, formatMinor, MONEY_MAX_MINOR } from "./money.ts";
import { isEmail, parseDate, parseWebAddress } from "./scalars.ts";
import type { Field } from "./spec.ts";
import { currencyOf, integerRange, isNullable, maxLength } from "./values.ts";

/** A value converted, or why it does not convert. */
export type Converted = { value: FieldValue } | { refused: string };

/** Converts one stored value of `from` (a field of kind From) into what `to` stores. */
export type Conversion = (value: FieldValue, from: Field, to: Field) => Converted;

const empty = (to: Field): Converted => ({ value: isNullable(to.Kind) ? null : "" });

// Text to a shorter or single-line text kind: the text, when it fits.
const asText: Conversion = (value, _from, to) => {
  const text = String(value ?? "");
  if (to.Kind === Kind.Text && /[\r\n]/.test(text)) return { refused: "holds a line break (Text is one line)" };
  if (text.length > maxLength(to)) return { refused: `is longer than MaxLength ${maxLength(to)}` };
  return { value: text };
};

// Text to a kind that parses: the parsed value, when the text parses.
const parsed =
  (parse: (text: string, to: Field) => FieldValue | undefined, what: string): Conversion =>
  (value, _from, to) => {
    const text = String(value ?? "").trim();
    if (text === "") return empty(to);
    const result = parse(text, to);
    return result === undefined ? { refused: `is not ${what}` } : { value: result };
  };

/** 10^digits of a currency: minor units per whole unit. */
function unit(currency: string): number {
  return 10 ** currencyDigits(currency);
}

/**
 * The conversions a `Retype` may ask for, by "<From>→<To>"; any other pair is refused by `Validate` (go through Text,
 * or remove the field and add a new one). Empty values stay empty. The table in README "Changing a field" is this one.
 */
export const CONVERSIONS: ReadonlyMap<string, Conversion> = new Map<string, Conversion>([
  [`${Kind.Text}→${Kind.Textarea}`, asText],
  [`${Kind.Textarea}→${Kind.Text}`, asText],
  [`${Kind.Email}→${Kind.Text}`, asText],
  [`${Kind.URL}→${Kind.Text}`, asText],
  [`${Kind.Choice}→${Kind.Text}`, asText],
  [`${Kind.Date}→${Kind.Text}`, asText],
  [`${Kind.Integer}→${Kind.Text}`, (v, from, to) => (v === null ? empty(to) : asText(String(v), from, to))],
  [`${Kind.Boolean}→${Kind.Text}`, (v, from, to) => asText(v === 1 ? "true" : "false", from, to)],
  [
    `${Kind.Money}→${Kind.Text}`,
    (v, from, to) => {
      return v === null ? empty(to) : asText(formatMinor(Number(v), currencyOf(from)), from, to);
    },
  ],
  [`${Kind.Text}→${Kind.Email}`, parsed((t) => (isEmail(t) ? t : undefined), "an email address")],
  [`${Kind.Text}→${Kind.URL}`, parsed((t) => parseWebAddress(t), "an http or https address")],
  [`${Kind.Text}→${Kind.Date}`, parsed((t) => parseDate(t), 'an ISO date "YYYY-MM-DD"')],
  [
    `${Kind.Text}→${Kind.Choice}`,
    parsed((t, to) => (to.Choices?.some((c) => c.Value === t) === true ? t : undefined), "one of the Choices"),
  ],
  [
    `${Kind.Text}→${Kind.Integer}`,
    parsed((t, to) => {
      const n = /^-?[0-9]{1,16}$/.test(t) ? Number(t) : NaN;
      const { min, max } = integerRange(to);
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
    }, "a whole number within Min and Max"),
  ],
  [
    `${Kind.Integer}→${Kind.Money}`,
    (v, _from, to) => {
      if (v === null) return empty(to);
      const minor = Number(v) * unit(currencyOf(to));
      return Math.abs(minor) <= MONEY_MAX_MINOR ? { value: minor } : { refused: `is beyond ${MONEY_MAX_MINOR} minor units` };
    },
  ],
  [
    `${Kind.Money}→${Kind.Integer}`,
    (v, from, to) => {
      if (v === null) return empty(to);
      const minor = Number(v);
      const { min, max } = integerRange(to);
      if (minor % unit(currencyOf(from)) !== 0) return { refused: "is not a whole amount (it has minor units)" };
      const whole = minor / unit(currencyOf(from));
      return whole >= min && whole <= max ? { value: whole } : { refused: "is outside Min and Max" };
    },
  ],
  [`${Kind.Boolean}→${Kind.Integer}`, (v) => ({ value: v === 1 ? 1 : 0 })],
]);
