/*
 * Manifest validation: every mistake a generator would otherwise turn into broken SQL, a broken page or a silent data
 * leak is caught here, in manifest order, naming the resource and field at fault. Names are lowercase SQL identifiers,
 * so they can be emitted into SQL and HTML without quoting surprises.
 */
import { checkFileOptions } from "./attachments.ts";
import { ManifestError, type ManifestErrorCode } from "./errors.ts";
import { Kind, ScopeKind, StoreKind } from "./kinds.ts";
import { MAX_EVENT_DATA } from "../events/index.ts";
import { validateHistory } from "./history.ts";
import { validateRules } from "./rules.ts";
import { INTEGER_LIMIT } from "./scalars.ts";
import { scopeColumn } from "./scope.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { isNullable, maxEventBytes } from "./values.ts";

/** The query parameters a list reads besides its filters' (list.ts): the search box, the sort, its direction, the page cursor. */
const LIST_PARAMETERS: readonly string[] = ["q", "sort", "dir", "after"];

/** Columns every generated store emits; no field may take these names. */
export const FIXED_COLUMNS: readonly string[] = Object.freeze(["id", "created_at", "updated_at"]);

/** The extra fixed column of a user-scoped resource. */
export const OWNER_COLUMN: string = "owner";

/** The extra fixed columns of a team-scoped resource: its team, and the person who created the record. */
export const TEAM_COLUMNS: readonly string[] = Object.freeze(["team", "author"]);

/** The shape of resource and field names: a lowercase SQL identifier of at most 63 characters. */
export const NAME_PATTERN: RegExp = /^[a-z][a-z0-9_]{0,62}$/;

// The path value of a TeamScoped route (scope.ts TEAM_SEGMENT), as a whole segment.
const TEAM_ROUTE = /\/\{team\}(?=\/|$)/;

/** The shape of a resource route: "/" then segments of A-Z a-z 0-9 . _ ~ -, each starting with a letter or digit. */
export const ROUTE_PATTERN: RegExp = /^(\/[A-Za-z0-9][A-Za-z0-9._~-]*)+$/;

/** The largest `Field.MaxLength` a manifest may declare (the form body limit bounds a submission anyway). */
export const MAX_LENGTH_LIMIT: number = 50_000;

/**
 * Checks one resource. Throws `ManifestError` with the code of the first mistake, naming the resource and the field,
 * column or filter at fault: a name that is not a lowercase identifier, a malformed route, a missing or unknown Scope,
 * an unknown Store or Kind, no fields, a field colliding with a fixed column, duplicates, an empty label, a column or
 * filter naming no field, an option its kind does not take, a History entry that does not fit (history.ts), a rule
 * across fields that names no field or relates kinds it cannot compare (rules.ts, `ERR_MANIFEST_INVALID_RULE`).
 */
export function validateResource(spec: ResourceSpec): void {
  const resource = typeof spec.Name === "string" ? spec.Name : "";
  const fail = (code: ManifestErrorCode, reason: string, field?: string): never => {
    throw new ManifestError(code, field === undefined ? { resource } : { resource, field }, reason);
  };
  if (!NAME_PATTERN.test(resource)) fail("ERR_MANIFEST_INVALID_NAME", nameReason(resource));
  if (typeof spec.Route !== "string" || !ROUTE_PATTERN.test(spec.Route.replace(TEAM_ROUTE, "/team"))) {
    fail("ERR_MANIFEST_INVALID_ROUTE", 'route must start with "/" and hold non-empty segments without a trailing slash');
  }
  // A team's records are reached under the team's own path (README "Team resources"): the path value is the scope.
  if ((spec.Scope === ScopeKind.TeamScoped) !== (spec.Route.split(TEAM_ROUTE).length === 2)) {
    const reason =
      spec.Scope === ScopeKind.TeamScoped ? "a TeamScoped route holds the segment {team} once" : "only a TeamScoped route holds {team}";
    fail("ERR_MANIFEST_INVALID_ROUTE", `${reason}, e.g. /teams/{team}/tasks`);
  }
  if (!oneOf(StoreKind, spec.Store)) fail("ERR_MANIFEST_UNKNOWN_STORE", 'Store must be "exclusive" or "mergeable"');
  const scope = spec.Scope;
  // docs/spec.md §2.5 (latch): the owner scope is chosen, never defaulted; a missing one once showed everyone's records.
  if (scope === undefined) {
    fail("ERR_MANIFEST_NO_SCOPE", "Scope is required: ScopeKind.UserScoped (each person sees their own records) or ScopeKind.Unscoped");
  }
  if (!oneOf(ScopeKind, scope)) fail("ERR_MANIFEST_UNKNOWN_SCOPE", 'Scope must be "unscoped", "user" or "team"');
  const fixed = new Set([
    ...FIXED_COLUMNS,
    ...(scopeColumn(spec) === "owner" ? [OWNER_COLUMN] : scopeColumn(spec) === "team" ? TEAM_COLUMNS : []),
  ]);

  const fields = spec.Form?.Fields ?? [];
  if (fields.length === 0) fail("ERR_MANIFEST_NO_FIELDS", "the form has no fields");
  const names = new Set<string>();
  for (const field of fields) {
    const name = typeof field.Name === "string" ? field.Name : "";
    if (!NAME_PATTERN.test(name)) fail("ERR_MANIFEST_INVALID_NAME", nameReason(name), name);
    // SPEC.md §2.5: a field must not collide with the fixed columns every generated store emits.
    if (fixed.has(name)) fail("ERR_MANIFEST_RESERVED_FIELD", "collides with a fixed column of the generated store", name);
    if (names.has(name)) fail("ERR_MANIFEST_DUPLICATE_FIELD", "is declared twice", name);
    names.add(name);
    if (!oneOf(Kind, field.Kind)) fail("ERR_MANIFEST_UNKNOWN_KIND", `Kind must be one of ${Object.values(Kind).join(", ")}`, name);
    if (typeof field.Label !== "string" || field.Label.trim() === "") fail("ERR_MANIFEST_EMPTY_LABEL", "has an empty Label", name);
    const max = field.MaxLength;
    if (max !== undefined && (!Number.isSafeInteger(max) || max < 1 || max > MAX_LENGTH_LIMIT)) {
      fail("ERR_MANIFEST_INVALID_FIELD", `MaxLength must be an integer from 1 to ${MAX_LENGTH_LIMIT}`, name);
    }
    if (max !== undefined && !LENGTH_KINDS.has(field.Kind))
      fail("ERR_MANIFEST_INVALID_FIELD", "MaxLength is for Text and Textarea fields", name);
    checkKindOptions(field, (reason) => fail("ERR_MANIFEST_INVALID_FIELD", reason, name));
    if (field.Currency !== undefined && (field.Kind !== "money" || !CURRENCIES.has(field.Currency))) {
      fail(
        "ERR_MANIFEST_INVALID_FIELD",
        'Currency must be an ISO 4217 code that Intl lists (Intl.supportedValuesOf("currency")), on a Money field',
        name,
      );
    }
  }

  // A Mergeable record lives in events: whatever its form accepts must fit one, or an edit or a conflict could not be kept.
  if (spec.Store === StoreKind.Mergeable && maxEventBytes(fields) > MAX_EVENT_DATA) {
    fail(
      "ERR_MANIFEST_INVALID_FIELD",
      `a Mergeable resource's fields must fit one event: at most ${MAX_EVENT_DATA} bytes for every value and the value it replaces, 3 bytes per character (lower MaxLength)`,
    );
  }

  const columns = new Set<string>();
  for (const column of spec.List?.Columns ?? []) {
    if (!names.has(column.Field) && !fixed.has(column.Field))
      fail("ERR_MANIFEST_UNKNOWN_COLUMN", "list column names no field", column.Field);
    if (columns.has(column.Field)) fail("ERR_MANIFEST_DUPLICATE_COLUMN", "is listed twice as a column", column.Field);
    columns.add(column.Field);
  }
  const filters = new Set<string>();
  // The list's query parameters: the search box, the sort and the page, then each filter's own.
  const parameters = new Set(LIST_PARAMETERS);
  for (const filter of spec.List?.Filters ?? []) {
    if (!names.has(filter.Field)) fail("ERR_MANIFEST_UNKNOWN_FILTER", "filter names no field", filter.Field);
    if (filters.has(filter.Field)) fail("ERR_MANIFEST_DUPLICATE_FILTER", "is filtered twice", filter.Field);
    filters.add(filter.Field);
    const kind = fields.find((f) => f.Name === filter.Field)?.Kind;
    const own = kind !== undefined && isNullable(kind) ? [`${filter.Field}_min`, `${filter.Field}_max`] : [filter.Field];
    for (const name of own) {
      if (parameters.has(name)) {
        const taken = LIST_PARAMETERS.includes(name) ? `${LIST_PARAMETERS.join(", ")} are the list's own` : "another filter's";
        fail(
          "ERR_MANIFEST_INVALID_FIELD",
          `its filter's query parameter ${name} is taken (${taken}): filter another field or rename it`,
          filter.Field,
        );
      }
      parameters.add(name);
    }
  }
  // README "A record's name": the field that names a record holds short text.
  if (spec.Title !== undefined && fields.find((f) => f.Name === spec.Title)?.Kind !== Kind.Text) {
    fail("ERR_MANIFEST_INVALID_FIELD", "Title must name a Text field of the form", String(spec.Title));
  }
  validateHistory(spec);
  validateRules(spec);
}

/**
 * Checks every resource (`validateResource`), that no two share a name or a route (`ERR_MANIFEST_DUPLICATE_RESOURCE`,
 * naming both), and what each Reference field points to (`validateReferences`).
 */
export function validateResources(specs: readonly ResourceSpec[]): void {
  const byName = new Map<string, ResourceSpec>();
  const byRoute = new Map<string, ResourceSpec>();
  for (const spec of specs) {
    validateResource(spec);
    if (byName.has(spec.Name)) throw new ManifestError("ERR_MANIFEST_DUPLICATE_RESOURCE", { resource: spec.Name }, "is declared twice");
    const other = byRoute.get(spec.Route);
    if (other !== undefined) {
      throw new ManifestError("ERR_MANIFEST_DUPLICATE_RESOURCE", { resource: spec.Name }, `shares route ${spec.Route} with ${other.Name}`);
    }
    byName.set(spec.Name, spec);
    byRoute.set(spec.Route, spec);
  }
  for (const spec of specs) validateReferences(spec, (name) => byName.get(name));
}

/** The shape of a Choice field's stored value: a-z, 0-9, "_" or "-", 1 to 63 characters (the column's CHECK holds the same). */
export const CHOICE_VALUE_PATTERN: RegExp = /^[a-z0-9_-]{1,63}$/;

/** The most values one Choice field offers (a select longer than this is a reference, not a choice). */
export const MAX_CHOICES: number = 100;

// Kinds MaxLength applied to before there were others (a Money field's is ignored, as it always was).
const LENGTH_KINDS: ReadonlySet<string> = new Set([Kind.Text, Kind.Textarea, Kind.Money]);

// The options only some kinds take: Min and Max (Integer), Choices (Choice), and a Boolean that cannot be Required.
function checkKindOptions(field: Field, fail: (reason: string) => never): void {
  const bound = (value: number | undefined): boolean =>
    value === undefined || (Number.isSafeInteger(value) && Math.abs(value) <= INTEGER_LIMIT);
  if ((field.Min !== undefined || field.Max !== undefined) && field.Kind !== Kind.Integer) fail("Min and Max are for Integer fields");
  if (!bound(field.Min) || !bound(field.Max)) fail(`Min and Max must be whole numbers from -${INTEGER_LIMIT} to ${INTEGER_LIMIT}`);
  if (field.Min !== undefined && field.Max !== undefined && field.Min > field.Max) fail("Min must not exceed Max");
  // An unchecked box is a value (no), so "required" could only mean "must be yes", which a form should say in words.
  if (field.Kind === Kind.Boolean && field.Required === true) fail("a Boolean field is never empty, so it cannot be Required");
  checkReferenceOptions(field, fail);
  checkFileOptions(field, field.Kind === Kind.File, fail);
  if (field.Kind !== Kind.Choice) {
    if (field.Choices !== undefined) fail("Choices are for Choice fields");
    return;
  }
  const choices = field.Choices ?? [];
  if (!Array.isArray(choices) || choices.length === 0 || choices.length > MAX_CHOICES) {
    fail(`a Choice field needs Choices: 1 to ${MAX_CHOICES} of { Value, Label }`);
  }
  const values = new Set<string>();
  for (const choice of choices) {
    if (typeof choice.Value !== "string" || !CHOICE_VALUE_PATTERN.test(choice.Value)) {
      fail(`a choice's Value must match ${CHOICE_VALUE_PATTERN.source}`);
    }
    if (values.has(choice.Value)) fail(`choice ${choice.Value} is declared twice`);
    values.add(choice.Value);
    if (typeof choice.Label !== "string" || choice.Label.trim() === "") fail(`choice ${choice.Value} has an empty Label`);
  }
}

// A Reference names its target resource and what deleting a referenced record does; the target itself is checked
// among the resources (validateResources, and mountResource on the resources mounted before it).
function checkReferenceOptions(field: Field, fail: (reason: string) => never): void {
  if (field.Kind !== Kind.Reference) {
    if (field.References !== undefined || field.OnDelete !== undefined) fail("References and OnDelete are for Reference fields");
    return;
  }
  if (typeof field.References !== "string" || !NAME_PATTERN.test(field.References)) {
    fail("a Reference field needs References: the Name of the resource it points to");
  }
  if (field.OnDelete !== undefined && field.OnDelete !== "refuse" && field.OnDelete !== "clear")
    fail('OnDelete must be "refuse" or "clear"');
}

/**
 * Checks what a Reference field of `spec` points to, given the resources known by name (those of one manifest, or those
 * mounted on one database): the target is known, is not `spec` itself, and is not user-scoped when `spec` is unscoped
 * (a record everyone sees cannot point to one person's records). Throws `ERR_MANIFEST_INVALID_FIELD` naming the
 * resource and field.
 */
export function validateReferences(spec: ResourceSpec, known: (name: string) => ResourceSpec | undefined): void {
  for (const field of spec.Form.Fields) {
    if (field.Kind !== Kind.Reference || field.References === undefined) continue;
    const fail = (reason: string): never => {
      throw new ManifestError("ERR_MANIFEST_INVALID_FIELD", { resource: spec.Name, field: field.Name }, reason);
    };
    if (field.References === spec.Name) fail("a resource cannot reference its own records");
    const target = known(field.References);
    if (target === undefined) fail(`references ${field.References}, which is not declared (or not mounted before it on this database)`);
    // docs/spec.md §2.5: one person's (one team's) records are seen only by that person (team), so a record may point only
    // to records of its own scope or to unscoped ones.
    if (target !== undefined && target.Scope !== ScopeKind.Unscoped && target.Scope !== spec.Scope) {
      fail(
        `${scopeName(spec) === "Unscoped" ? "an" : "a"} ${scopeName(spec)} resource cannot reference ${field.References}, which is ${scopeName(target)} (whose record would its readers see?)`,
      );
    }
  }
}

function scopeName(spec: ResourceSpec): string {
  return Object.entries(ScopeKind).find(([, value]) => value === spec.Scope)?.[0] ?? String(spec.Scope);
}

// Whether `value` is one of an enumeration's values (kinds.ts).
function oneOf(enumeration: object, value: unknown): boolean {
  return Object.values(enumeration).includes(value);
}

function nameReason(name: string): string {
  return name === "" ? "empty name" : `name must match ${NAME_PATTERN.source}`;
}

// The ISO 4217 codes Intl lists: a code's minor unit is what money parsing reads. The list, not a trial NumberFormat:
// any three letters format (even "XYZ"), and the first currency formatter loads ICU data, about 20 ms of every cold
// start. Funds and metal codes (CLF, XAU) are not listed, and not accepted.
const CURRENCIES: ReadonlySet<unknown> = new Set(Intl.supportedValuesOf("currency"));
