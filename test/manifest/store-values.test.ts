/*
 * `MountedResource.Store` reads and writes the values the resource's tools give, for every kind (issue 42, 7; README
 * "Values by kind"): an amount as a decimal string, a yes/no as a boolean, the rest as stored. The newcomer's trial read
 * a Boolean as 1 from the store and true from the tools.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { humanActor } from "../../lib/agent/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, type Field } from "../../lib/manifest/index.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";

const sites = new Resource({
  Name: "sites",
  Route: "/sites",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }] },
  Form: { Fields: [{ Name: "name", Label: "sites.name", Kind: Kind.Text, Required: true }] },
});

// One field of each of the ten kinds.
const fields: Field[] = [
  { Name: "name", Label: "kits.name", Kind: Kind.Text, Required: true },
  { Name: "notes", Label: "kits.notes", Kind: Kind.Textarea },
  { Name: "price", Label: "kits.price", Kind: Kind.Money, Currency: "EUR" },
  { Name: "bought", Label: "kits.bought", Kind: Kind.Date },
  { Name: "count", Label: "kits.count", Kind: Kind.Integer },
  { Name: "lent", Label: "kits.lent", Kind: Kind.Boolean },
  { Name: "state", Label: "kits.state", Kind: Kind.Choice, Choices: [{ Value: "good", Label: "kits.state.good" }] },
  { Name: "keeper", Label: "kits.keeper", Kind: Kind.Email },
  { Name: "manual", Label: "kits.manual", Kind: Kind.URL },
  { Name: "site", Label: "kits.site", Kind: Kind.Reference, References: "sites" },
];

const kits = new Resource({
  Name: "kits",
  Route: "/kits",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "name" }] },
  Form: { Fields: fields },
});

// A File field holds its attachment's id, which only its upload writes (attachments.test.ts): the other ten kinds here.
const KINDS = Object.values(Kind).filter((k) => k !== Kind.File);
const names = fields.map((f) => f.Name);
const fieldsOf = (result: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(names.map((n) => [n, result[n]]));

describe("MountedResource.Store's values", () => {
  it("are the tools' values for all ten kinds, read (get, list) and written back", async (t) => {
    assert.deepEqual([...new Set(fields.map((f) => f.Kind))].sort(), [...KINDS].sort(), "one field of every kind");
    const app = await startTransportsApp(t, { resource: kits, targets: [sites] });
    const store = app.mounted?.Store;
    assert.ok(store !== undefined);
    app.db.prepare("INSERT INTO sites (id, owner, created_at, updated_at, name) VALUES ('s1', ?, 1, 1, 'Shed')").run(SUBJECT);
    // As the form stores them: minor units, 1 and 0; a second record with every empty value.
    const insert = app.db.prepare(
      `INSERT INTO kits (id, owner, created_at, updated_at, ${names.join(", ")}) VALUES (?, ?, ?, 1, ${names.map(() => "?").join(", ")})`,
    );
    insert.run("k1", SUBJECT, 2, "Drill", "Two\nlines", 1250, "2026-03-01", 3, 1, "good", "ada@example.com", "https://example.com/m", "s1");
    insert.run("k2", SUBJECT, 1, "Saw", "", null, null, null, 0, "", "", "", null);
    const token = app.mint("read", "claude");
    const toolRead = async (id: string): Promise<Record<string, unknown>> => {
      const res = await app.tools(token, "kits_read", { id });
      assert.equal(res.status, 200, res.body);
      return fieldsOf(JSON.parse(res.body).result as Record<string, unknown>);
    };
    const k1 = await toolRead("k1");
    assert.deepEqual(k1, {
      name: "Drill",
      notes: "Two\nlines",
      price: "12.50",
      bought: "2026-03-01",
      count: 3,
      lent: true,
      state: "good",
      keeper: "ada@example.com",
      manual: "https://example.com/m",
      site: "s1",
    });
    const k2 = await toolRead("k2");
    assert.equal(k2["lent"], false);
    assert.equal(k2["price"], null);
    for (const [id, tool] of [
      ["k1", k1],
      ["k2", k2],
    ] as const) {
      assert.deepEqual(store.get(SUBJECT, id)?.record.values, tool, `get ${id}: the tool's values`);
    }
    assert.deepEqual(
      store.list(SUBJECT).records.map((r) => r.values),
      [k1, k2],
      "list: the tool's values",
    );

    // Written back as read: the tool reads the same values.
    const copy = store.create({ owner: SUBJECT, actor: humanActor() }, { ...(k1 as Record<string, string | number | boolean | null>) });
    assert.deepEqual(await toolRead(copy.id), k1);
    const changed = store.update({ owner: SUBJECT, actor: humanActor() }, copy.id, copy.version, { lent: false, price: "0.05" });
    assert.equal(changed.kind, "ok");
    assert.deepEqual(await toolRead(copy.id), { ...k1, lent: false, price: "0.05" });
    assert.deepEqual(
      app.db.prepare("SELECT lent, price FROM kits WHERE id = ?").get(copy.id),
      { lent: 0, price: 5 },
      "stored as the form stores",
    );
  });

  it("refuses a yes/no that is not a boolean and an amount that is not a decimal string, naming the field, writing nothing", async (t) => {
    const app = await startTransportsApp(t, { resource: kits, targets: [sites] });
    const store = app.mounted?.Store;
    assert.ok(store !== undefined);
    const who = { owner: SUBJECT, actor: humanActor() };
    const base = { name: "Drill", lent: false, price: null };
    for (const [field, value] of [
      ["lent", 1],
      ["lent", "true"],
      ["price", 1250],
      ["price", "twelve"],
    ] as const) {
      assert.throws(
        () => store.create(who, { ...base, [field]: value }),
        (e: unknown) => (e as { code?: string }).code === "ERR_MANIFEST_INVALID_FIELD" && (e as { field?: string }).field === field,
        `${field} ${JSON.stringify(value)}`,
      );
    }
    assert.deepEqual(app.db.prepare("SELECT COUNT(*) AS n FROM kits").get(), { n: 0 });
  });
});
