import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Kind, Resource, ScopeKind, StoreKind, type Field } from "../../lib/manifest/index.ts";
import type { ManifestErrorCode } from "../../lib/manifest/errors.ts";
import type { ResourceSpec } from "../../lib/manifest/spec.ts";
import { validateResource, validateResources } from "../../lib/manifest/validate.ts";

const title: Field = { Name: "title", Label: "Title", Kind: Kind.Text, Required: true };
const notes: Field = { Name: "notes", Label: "Notes", Kind: Kind.Textarea };
const amount: Field = { Name: "amount", Label: "Amount", Kind: Kind.Money };

const base: ResourceSpec = {
  Name: "invoices",
  Route: "/invoices",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.Unscoped,
  List: { Columns: [{ Field: "title" }, { Field: "amount", Label: "Total" }, { Field: "created_at" }], Filters: [{ Field: "title" }] },
  Form: { Fields: [title, notes, amount] },
};

function withFields(...fields: Field[]): ResourceSpec {
  return { ...base, List: { Columns: [] }, Form: { Fields: fields } };
}

function assertManifest(spec: ResourceSpec, code: ManifestErrorCode, field: string | undefined, fragment: string): void {
  assert.throws(
    () => new Resource(spec).Validate(),
    (e: unknown) => {
      assert.ok(e instanceof Error && "code" in e && "resource" in e && "field" in e);
      assert.equal(e.code, code);
      assert.equal(e.resource, spec.Name);
      assert.equal(e.field, field);
      assert.ok(e.message.includes(fragment), `${JSON.stringify(e.message)} lacks ${fragment}`);
      if (field !== undefined) assert.ok(e.message.includes(`field "${field}"`));
      return true;
    },
  );
}

describe("Resource.Validate()", () => {
  it("accepts a well-formed resource, unscoped and user-scoped, exclusive and mergeable", () => {
    new Resource(base).Validate();
    new Resource({ ...base, Scope: ScopeKind.UserScoped, Store: StoreKind.Mergeable, List: { Columns: [{ Field: "owner" }] } }).Validate();
    validateResource(base);
  });

  it("has no default Scope: a resource without one does not compile, and is refused naming the resource", () => {
    const { Scope: _, ...unscoped } = base;
    // @ts-expect-error Scope is required: the owner scope is chosen, never defaulted (docs/spec.md §2.5).
    const missing = new Resource(unscoped);
    assert.equal(missing.Scope, undefined, "the constructor fills in nothing");
    assertManifest(unscoped as ResourceSpec, "ERR_MANIFEST_NO_SCOPE", undefined, "ScopeKind.UserScoped");
    assert.throws(() => missing.Validate(), /resource "invoices"/);
    assert.equal(new Resource(base).Scope, "unscoped", "Unscoped, named, keeps its value");
  });

  const fixed = ["id", "created_at", "updated_at"];
  for (const name of fixed) {
    it(`rejects a field named ${name}`, () => {
      assertManifest(withFields(title, { ...notes, Name: name }), "ERR_MANIFEST_RESERVED_FIELD", name, "fixed column");
    });
  }

  it("rejects a field named owner on a user-scoped resource only", () => {
    const owner: Field = { Name: "owner", Label: "Owner", Kind: Kind.Text };
    assertManifest({ ...withFields(owner), Scope: ScopeKind.UserScoped }, "ERR_MANIFEST_RESERVED_FIELD", "owner", "fixed column");
    new Resource({ ...withFields(owner), Scope: ScopeKind.Unscoped }).Validate();
  });

  const cases: { name: string; spec: ResourceSpec; code: ManifestErrorCode; field?: string; want: string }[] = [
    { name: "an empty resource name", spec: { ...base, Name: "" }, code: "ERR_MANIFEST_INVALID_NAME", want: "empty name" },
    {
      name: "a resource name that is not an identifier",
      spec: { ...base, Name: "Invoices" },
      code: "ERR_MANIFEST_INVALID_NAME",
      want: "must match",
    },
    { name: "a resource name with a quote", spec: { ...base, Name: 'a"b' }, code: "ERR_MANIFEST_INVALID_NAME", want: "must match" },
    {
      name: "a route not starting with /",
      spec: { ...base, Route: "invoices" },
      code: "ERR_MANIFEST_INVALID_ROUTE",
      want: 'start with "/"',
    },
    { name: "an empty route", spec: { ...base, Route: "" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "the root route", spec: { ...base, Route: "/" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "a trailing slash", spec: { ...base, Route: "/invoices/" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "a double slash", spec: { ...base, Route: "/a//b" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "a dot-dot segment", spec: { ...base, Route: "/a/../b" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "a route with a space", spec: { ...base, Route: "/a b" }, code: "ERR_MANIFEST_INVALID_ROUTE", want: "route" },
    { name: "an unknown store", spec: { ...base, Store: "sql" as StoreKind }, code: "ERR_MANIFEST_UNKNOWN_STORE", want: "Store" },
    { name: "an unknown scope", spec: { ...base, Scope: "group" as ScopeKind }, code: "ERR_MANIFEST_UNKNOWN_SCOPE", want: "Scope" },
    { name: "a form without fields", spec: withFields(), code: "ERR_MANIFEST_NO_FIELDS", want: "no fields" },
    {
      name: "an empty field name",
      spec: withFields({ ...title, Name: "" }),
      code: "ERR_MANIFEST_INVALID_NAME",
      field: "",
      want: "empty name",
    },
    {
      name: "a field name with uppercase",
      spec: withFields({ ...title, Name: "ID" }),
      code: "ERR_MANIFEST_INVALID_NAME",
      field: "ID",
      want: "must match",
    },
    {
      name: "a field name with SQL in it",
      spec: withFields({ ...title, Name: "x; drop" }),
      code: "ERR_MANIFEST_INVALID_NAME",
      field: "x; drop",
      want: "must match",
    },
    {
      name: "a duplicate field",
      spec: withFields(title, notes, { ...amount, Name: "notes" }),
      code: "ERR_MANIFEST_DUPLICATE_FIELD",
      field: "notes",
      want: "twice",
    },
    {
      name: "an unknown kind",
      spec: withFields({ ...title, Kind: "datetime" as Kind }),
      code: "ERR_MANIFEST_UNKNOWN_KIND",
      field: "title",
      want: "Kind",
    },
    { name: "an empty label", spec: withFields({ ...title, Label: " " }), code: "ERR_MANIFEST_EMPTY_LABEL", field: "title", want: "Label" },
    {
      name: "a zero MaxLength",
      spec: withFields({ ...title, MaxLength: 0 }),
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "title",
      want: "MaxLength",
    },
    {
      name: "a MaxLength above the limit",
      spec: withFields({ ...title, MaxLength: 50_001 }),
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "title",
      want: "50000",
    },
    {
      name: "a Title naming a Textarea field",
      spec: { ...base, Title: "notes" },
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "notes",
      want: "Title",
    },
    {
      name: "a Title naming no field",
      spec: { ...base, Title: "name" },
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "name",
      want: "Title",
    },
    {
      name: "a lowercase currency",
      spec: withFields({ ...amount, Currency: "eur" }),
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "amount",
      want: "ISO 4217",
    },
    {
      name: "three letters that are no currency",
      spec: withFields({ ...amount, Currency: "XYZ" }),
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "amount",
      want: "ISO 4217",
    },
    {
      name: "a currency on a text field",
      spec: withFields({ ...title, Currency: "EUR" }),
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "title",
      want: "Money",
    },
    {
      name: "a list column naming no field",
      spec: { ...base, List: { Columns: [{ Field: "total" }] } },
      code: "ERR_MANIFEST_UNKNOWN_COLUMN",
      field: "total",
      want: "names no field",
    },
    {
      name: "an owner column on an unscoped resource",
      spec: { ...base, List: { Columns: [{ Field: "owner" }] } },
      code: "ERR_MANIFEST_UNKNOWN_COLUMN",
      field: "owner",
      want: "names no field",
    },
    {
      name: "a duplicate column",
      spec: { ...base, List: { Columns: [{ Field: "title" }, { Field: "title" }] } },
      code: "ERR_MANIFEST_DUPLICATE_COLUMN",
      field: "title",
      want: "twice",
    },
    {
      name: "a filter naming no field",
      spec: { ...base, List: { Columns: [], Filters: [{ Field: "status" }] } },
      code: "ERR_MANIFEST_UNKNOWN_FILTER",
      field: "status",
      want: "names no field",
    },
    {
      name: "a filter on a fixed column",
      spec: { ...base, List: { Columns: [], Filters: [{ Field: "created_at" }] } },
      code: "ERR_MANIFEST_UNKNOWN_FILTER",
      field: "created_at",
      want: "names no field",
    },
    {
      name: "a duplicate filter",
      spec: { ...base, List: { Columns: [], Filters: [{ Field: "title" }, { Field: "title" }] } },
      code: "ERR_MANIFEST_DUPLICATE_FILTER",
      field: "title",
      want: "twice",
    },
    {
      name: "a filter whose query parameter the list reads itself (the search box q)",
      spec: {
        ...base,
        List: { Columns: [], Filters: [{ Field: "q" }] },
        Form: { Fields: [title, { Name: "q", Label: "Q", Kind: Kind.Text }] },
      },
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "q",
      want: "q, sort, dir, after",
    },
    {
      name: "a filter whose query parameter is another filter's (a range's amount_min)",
      spec: {
        ...base,
        List: { Columns: [], Filters: [{ Field: "amount" }, { Field: "amount_min" }] },
        Form: { Fields: [amount, { Name: "amount_min", Label: "Least", Kind: Kind.Text }] },
      },
      code: "ERR_MANIFEST_INVALID_FIELD",
      field: "amount_min",
      want: "amount_min",
    },
  ];
  for (const { name, spec, code, field, want } of cases) {
    it(`rejects ${name}`, () => assertManifest(spec, code, field, want));
  }
});

describe("validateResources()", () => {
  it("accepts distinct resources", () => {
    validateResources([base, { ...base, Name: "customers", Route: "/customers" }]);
  });
  it("rejects two resources with one name", () => {
    assert.throws(() => validateResources([base, { ...base, Route: "/bills" }]), {
      code: "ERR_MANIFEST_DUPLICATE_RESOURCE",
      message: 'validate resource "invoices": is declared twice',
    });
  });
  it("rejects two resources on one route, naming both", () => {
    assert.throws(() => validateResources([base, { ...base, Name: "bills" }]), {
      code: "ERR_MANIFEST_DUPLICATE_RESOURCE",
      message: 'validate resource "bills": shares route /invoices with invoices',
    });
  });
  it("validates each resource", () => {
    assert.throws(() => validateResources([base, withFields()]), { code: "ERR_MANIFEST_NO_FIELDS" });
  });
});
