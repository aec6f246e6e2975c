/*
 * Rules across fields (README "Rules across fields"): a resource's `Rules` relate its fields, as data a reviewer reads
 * (`{ Field: "end", After: "start" }`) or as a check that reads the record a Reference field names. They are checked at
 * mount (validateRules, from validate.ts) and on the values a create or update would store, inside its transaction
 * (store.ts calls `ruleCheck`'s function there, on every path: form, tool, MCP, `Store`, `For`), so a referenced record
 * changed meanwhile cannot slip past. A refusal names every field the rule relates, each with a catalog message.
 */
import { ManifestError } from "./errors.ts";
import { Kind } from "./kinds.ts";
import type { FieldValue } from "./merge.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { convertValues, currencyOf, valueOut, type FieldProblem, type RecordValues } from "./values.ts";

/** One rule of a resource's `Rules`. */
export type Rule = NonNullable<ResourceSpec["Rules"]>[number];

/** The four comparisons, each read "`Field` is <comparison> the other field". */
const COMPARISONS = ["After", "AtLeast", "Before", "AtMost"] as const;
type Comparison = (typeof COMPARISONS)[number];

// What the other field of a failed comparison shows: the same rule read from its side.
const CONVERSE: Record<Comparison, Comparison> = { After: "Before", AtLeast: "AtMost", Before: "After", AtMost: "AtLeast" };

// The catalog key of a failed comparison, by the kind compared: dates are earlier and later, numbers smaller and larger.
const MESSAGES: Record<"date" | "number", Record<Comparison, string>> = {
  date: {
    After: "resource.rule.date_after",
    AtLeast: "resource.rule.date_on_or_after",
    Before: "resource.rule.date_before",
    AtMost: "resource.rule.date_on_or_before",
  },
  number: {
    After: "resource.rule.more_than",
    AtLeast: "resource.rule.at_least",
    Before: "resource.rule.less_than",
    AtMost: "resource.rule.at_most",
  },
};

/** The kinds a comparison relates: two fields of the same one (two amounts in the same currency). */
const COMPARED_KINDS: ReadonlySet<Kind> = new Set([Kind.Date, Kind.Integer, Kind.Money]);

/** A comparison rule as `field` <comparison> `other`. */
export interface Comparing {
  field: string;
  other: string;
  comparison: Comparison;
}

/** Returns `rule` as a comparison, or undefined for a check (`Fields`, `Message`, `Check`). */
export function comparing(rule: Rule): Comparing | undefined {
  if (!("Field" in rule)) return undefined;
  const comparison = COMPARISONS.find((c) => c in rule);
  return comparison === undefined
    ? undefined
    : { field: rule.Field, other: (rule as Partial<Record<Comparison, string>>)[comparison] ?? "", comparison };
}

/** The fields `rule` relates: a comparison's two, a check's `Fields`. */
export function ruleFields(rule: Rule): readonly string[] {
  const c = comparing(rule);
  return c === undefined ? ("Fields" in rule ? rule.Fields : []) : [c.field, c.other];
}

/** Reports whether `a` <comparison> `b` holds; an empty value on either side holds (`Required` asks for a value). */
export function compares(comparison: Comparison, a: FieldValue, b: FieldValue): boolean {
  if (a === null || b === null || a === "" || b === "") return true;
  // ISO dates (YYYY-MM-DD) order as text; amounts (minor units) and whole numbers as numbers.
  const order = a < b ? -1 : a > b ? 1 : 0;
  return { After: order > 0, AtLeast: order >= 0, Before: order < 0, AtMost: order <= 0 }[comparison];
}

/**
 * Checks `spec.Rules`: each a comparison naming two distinct fields of the form of one comparable kind (Date, Integer,
 * Money in one currency), or a check whose `Fields` are distinct fields of the form, with a `Message` key and a `Check`
 * function. Throws `ERR_MANIFEST_INVALID_RULE` naming the rule (its position and what it says) and the field at fault.
 */
export function validateRules(spec: ResourceSpec): void {
  const rules: readonly unknown[] = spec.Rules === undefined ? [] : Array.isArray(spec.Rules) ? spec.Rules : [spec.Rules];
  if (spec.Rules !== undefined && !Array.isArray(spec.Rules)) fail(spec, "Rules is a list of rules", "Rules");
  const fields = new Map(spec.Form.Fields.map((f) => [f.Name, f]));
  rules.forEach((given, index) => {
    const rule = given as Rule;
    const named = `rule ${index + 1} (${describe(rule)})`;
    const known = (name: unknown): Field => {
      const field = typeof name === "string" ? fields.get(name) : undefined;
      return field ?? fail(spec, `${named}: ${JSON.stringify(name)} is no field of the form`, String(name));
    };
    if (typeof rule !== "object" || rule === null) return fail(spec, `${named}: ${SHAPES}`);
    const keys = COMPARISONS.filter((c) => c in rule);
    if ("Field" in rule || keys.length > 0) {
      if (keys.length !== 1) fail(spec, `${named}: a comparison has exactly one of ${COMPARISONS.join(", ")}`);
      const { field, other } = comparing(rule) ?? { field: "", other: "" };
      const [a, b] = [known(field), known(other)];
      if (a.Name === b.Name) fail(spec, `${named}: compares ${a.Name} with itself`, a.Name);
      if (!COMPARED_KINDS.has(a.Kind) || a.Kind !== b.Kind) {
        fail(
          spec,
          `${named}: compares two Date, Integer or Money fields of one kind; ${a.Name} is ${a.Kind}, ${b.Name} is ${b.Kind}`,
          a.Name,
        );
      }
      if (a.Kind === Kind.Money && currencyOf(a) !== currencyOf(b)) {
        fail(spec, `${named}: compares amounts in ${currencyOf(a)} and ${currencyOf(b)}`, a.Name);
      }
      return;
    }
    if (!("Check" in rule) || typeof rule.Check !== "function") return fail(spec, `${named}: ${SHAPES}`);
    if (!Array.isArray(rule.Fields) || rule.Fields.length === 0) fail(spec, `${named}: a check names its Fields (at least one)`);
    if (new Set(rule.Fields.map((f) => known(f).Name)).size !== rule.Fields.length) fail(spec, `${named}: a field is named twice`);
    if (typeof rule.Message !== "string" || rule.Message.trim() === "") fail(spec, `${named}: a check needs a Message (a catalog key)`);
  });
}

const SHAPES = "a rule is { Field, After | AtLeast | Before | AtMost: <field> } or { Fields, Message, Check }";

function fail(spec: ResourceSpec, reason: string, field?: string): never {
  throw new ManifestError(
    "ERR_MANIFEST_INVALID_RULE",
    field === undefined ? { resource: spec.Name } : { resource: spec.Name, field },
    reason,
  );
}

// A rule as a reviewer wrote it: a comparison's names, a check's fields and message (never its code).
function describe(rule: Rule): string {
  if (typeof rule !== "object" || rule === null) return String(rule);
  const c = comparing(rule);
  if (c !== undefined) return `${c.field} ${c.comparison} ${c.other}`;
  return "Fields" in rule && Array.isArray(rule.Fields) ? `check of ${rule.Fields.join(", ")}` : "neither a comparison nor a check";
}

/** A write broke a rule across fields: nothing was stored. */
export class RuleRefused extends Error {
  /** The problem of each field the broken rules relate. */
  readonly problems: ReadonlyMap<string, FieldProblem>;

  constructor(problems: ReadonlyMap<string, FieldProblem>) {
    super(`rule refused: ${[...problems.keys()].join(", ")}`);
    this.problems = problems;
  }
}

/** Reads the record a Reference field of `values` names, as `owner` may, in `Store`'s values; undefined when none. */
export type ReferencedReader = (owner: string, values: RecordValues) => (field: string) => RecordValues | undefined;

/**
 * Returns the problem of each field of the rules `values` (as they would be stored) break, the first rule's problem
 * where two rules name one field; `referenced` reads a Reference field's record for a check.
 */
export function ruleProblems(
  spec: ResourceSpec,
  values: RecordValues,
  referenced: (field: string) => RecordValues | undefined,
): Map<string, FieldProblem> {
  const problems = new Map<string, FieldProblem>();
  const fields = new Map(spec.Form.Fields.map((f) => [f.Name, f]));
  const add = (field: string, problem: FieldProblem): void => {
    if (!problems.has(field)) problems.set(field, problem);
  };
  for (const rule of spec.Rules ?? []) {
    const c = comparing(rule);
    if (c !== undefined) {
      if (compares(c.comparison, values[c.field] ?? null, values[c.other] ?? null)) continue;
      const messages = MESSAGES[fields.get(c.field)?.Kind === Kind.Date ? "date" : "number"];
      // Each side names the other by its label, translated where the message is read (FieldProblem.labels).
      const said = (comparison: Comparison, other: string): FieldProblem => ({
        key: messages[comparison],
        args: { other: fields.get(other)?.Label ?? other },
        labels: ["other"],
      });
      add(c.field, said(c.comparison, c.other));
      add(c.other, said(CONVERSE[c.comparison], c.field));
    } else if ("Check" in rule && !rule.Check(convertValues(spec, values, valueOut), referenced)) {
      for (const field of rule.Fields) add(field, { key: rule.Message, args: {} });
    }
  }
  return problems;
}

/**
 * Returns what a store calls in a write's transaction on the values it would store (store.ts): throws `RuleRefused`
 * when they break a rule of `spec`; undefined when `spec` declares none.
 */
export function ruleCheck(spec: ResourceSpec, read: ReferencedReader): ((owner: string, values: RecordValues) => void) | undefined {
  if ((spec.Rules ?? []).length === 0) return undefined;
  return (owner, values) => {
    const problems = ruleProblems(spec, values, read(owner, values));
    if (problems.size > 0) throw new RuleRefused(problems);
  };
}
