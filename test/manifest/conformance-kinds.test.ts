/*
 * The conformance suite works for any valid resource (issue 42, 1): it is run here on resources holding every field
 * kind, required and optional (a Boolean only optional: Validate refuses a Required one), with References required and
 * optional and a chain of required ones (loans → kits → parts: the suite makes a part, then a kit, before its first
 * loan), owner-scoped (pointing to an unscoped resource too) and team-scoped (the records made in the run's team), and
 * with rules across fields (loans, picks), which the suite's values satisfy and its rule case breaks.
 */
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, type Field } from "../../lib/manifest/index.ts";
import { ownerApp, teamApp } from "./conformance-apps.ts";

// Every kind but Reference, required (`<kind>_req`) and optional (`<kind>_opt`), with the bounds a suite must keep within.
function everyKind(resource: string): Field[] {
  const field = (name: string, kind: Kind, more: Partial<Field> = {}): Field => ({
    Name: name,
    Label: `${resource}.${name}`,
    Kind: kind,
    ...more,
  });
  const choices = ["low", "mid", "high"].map((v) => ({ Value: v, Label: `${resource}.level.${v}` }));
  return [
    // The suite's texts are longer than 8 characters: cut to fit.
    field("text_req", Kind.Text, { Required: true, MaxLength: 8 }),
    field("text_opt", Kind.Text),
    field("textarea_req", Kind.Textarea, { Required: true }),
    field("textarea_opt", Kind.Textarea, { MaxLength: 5 }),
    field("money_req", Kind.Money, { Required: true, Currency: "EUR" }),
    field("money_opt", Kind.Money, { Currency: "JPY" }),
    field("date_req", Kind.Date, { Required: true }),
    field("date_opt", Kind.Date),
    // 12 is out of range: the suite takes the smallest value, 20.
    field("integer_req", Kind.Integer, { Required: true, Min: 20, Max: 30 }),
    field("integer_opt", Kind.Integer, { Min: -5, Max: 3 }),
    field("boolean_opt", Kind.Boolean),
    field("choice_req", Kind.Choice, { Required: true, Choices: choices }),
    field("choice_opt", Kind.Choice, { Choices: choices.slice(0, 1) }),
    field("email_req", Kind.Email, { Required: true }),
    field("email_opt", Kind.Email),
    field("url_req", Kind.URL, { Required: true }),
    field("url_opt", Kind.URL),
  ];
}

function reference(resource: string, name: string, target: string, required: boolean): Field {
  return { Name: name, Label: `${resource}.${name}`, Kind: Kind.Reference, References: target, ...(required && { Required: true }) };
}

function resource(
  name: string,
  route: string,
  scope: ScopeKind,
  store: StoreKind,
  fields: Field[],
  rules: Resource["Rules"] = [],
): Resource {
  const spec = new Resource({
    Name: name,
    Route: route,
    Store: store,
    Scope: scope,
    List: { Columns: [{ Field: fields[0]!.Name }] },
    Form: { Fields: fields },
    Rules: rules,
  });
  spec.Validate();
  return spec;
}

// Owner-scoped: loans → kits → parts, parts unscoped (a person's record may point to anyone's shared one).
const parts = resource("parts", "/parts", ScopeKind.Unscoped, StoreKind.Exclusive, everyKind("parts"));
const kits = resource("kits", "/kits", ScopeKind.UserScoped, StoreKind.Mergeable, [
  { Name: "name", Label: "kits.name", Kind: Kind.Text, Required: true },
  reference("kits", "part", "parts", true),
]);
// Rules across fields (issue 43, 3): the suite's dates are equal until it moves date_opt a day past date_req.
const loans = resource(
  "loans",
  "/loans",
  ScopeKind.UserScoped,
  StoreKind.Exclusive,
  [...everyKind("loans"), reference("loans", "kit", "kits", true), reference("loans", "spare", "parts", false)],
  [
    { Field: "date_opt", After: "date_req" },
    { Field: "integer_opt", AtMost: "integer_req" },
  ],
);
const owned = [parts, kits, loans];
for (const r of owned) describeResourceConformance(r, ownerApp(owned));

// Team-scoped: picks → trays → bins, all in the run's team; a Mergeable tray whose first field is its reference.
const bins = resource("bins", "/teams/{team}/bins", ScopeKind.TeamScoped, StoreKind.Exclusive, everyKind("bins"));
const trays = resource("trays", "/teams/{team}/trays", ScopeKind.TeamScoped, StoreKind.Mergeable, [
  reference("trays", "bin", "bins", true),
  { Name: "label", Label: "trays.label", Kind: Kind.Text, Required: true },
]);
const picks = resource(
  "picks",
  "/teams/{team}/picks",
  ScopeKind.TeamScoped,
  StoreKind.Exclusive,
  [reference("picks", "tray", "trays", true), reference("picks", "spare", "bins", false), ...everyKind("picks")],
  [{ Field: "date_req", Before: "date_opt" }],
);
const teamed = [bins, trays, picks];
for (const r of teamed) describeResourceConformance(r, teamApp(teamed));
