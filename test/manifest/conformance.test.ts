/*
 * The conformance suite (`latch/manifest/conformance`) run on resources
 * declared here, one per store kind, mounted in a real application (the
 * runtime's Handler, real sign-in over SMTP, the agent tool registry), plus
 * what only a test of the mount itself can see: with `Render` unset every
 * action answers a logged 500 with a reference and stores nothing.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";
import { ownerApp, render } from "./conformance-apps.ts";

const invoices = new Resource({
  Name: "invoices",
  Route: "/invoices",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "customer" }, { Field: "total" }], Filters: [{ Field: "customer" }, { Field: "total" }] },
  Form: {
    Fields: [
      { Name: "customer", Label: "invoices.customer", Kind: Kind.Text, Required: true, MaxLength: 40 },
      { Name: "memo", Label: "invoices.memo", Kind: Kind.Textarea },
      { Name: "total", Label: "invoices.total", Kind: Kind.Money, Required: true, Currency: "EUR" },
    ],
  },
});

const journal = new Resource({
  Name: "journal",
  Route: "/journal",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "headline" }], Filters: [{ Field: "headline" }] },
  Form: {
    Fields: [
      { Name: "headline", Label: "journal.headline", Kind: Kind.Text, Required: true },
      { Name: "entry", Label: "journal.entry", Kind: Kind.Textarea },
    ],
  },
});

// Unscoped (every signed-in person sees every record), in a currency without decimals.
const bulletin = new Resource({
  Name: "bulletin",
  Route: "/board/bulletin",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.Unscoped,
  List: { Columns: [{ Field: "notice" }, { Field: "price" }, { Field: "updated_at" }], Filters: [{ Field: "price" }] },
  Form: {
    Fields: [
      { Name: "notice", Label: "bulletin.notice", Kind: Kind.Text, Required: true },
      { Name: "price", Label: "bulletin.price", Kind: Kind.Money, Currency: "JPY" },
    ],
  },
});

// The kinds beyond text and money (issue 25), in a Mergeable store: its events carry every kind.
const outings = new Resource({
  Name: "outings",
  Route: "/outings",
  Store: StoreKind.Mergeable,
  Scope: ScopeKind.UserScoped,
  List: {
    Columns: [{ Field: "place" }, { Field: "day" }, { Field: "people" }, { Field: "paid" }, { Field: "mood" }, { Field: "link" }],
    Filters: [{ Field: "day" }, { Field: "people" }, { Field: "paid" }, { Field: "mood" }, { Field: "host" }],
  },
  Form: {
    Fields: [
      { Name: "place", Label: "outings.place", Kind: Kind.Text, Required: true },
      { Name: "day", Label: "outings.day", Kind: Kind.Date, Required: true },
      { Name: "people", Label: "outings.people", Kind: Kind.Integer, Min: 1, Max: 12 },
      { Name: "paid", Label: "outings.paid", Kind: Kind.Boolean },
      { Name: "mood", Label: "outings.mood", Kind: Kind.Choice, Choices: [{ Value: "calm", Label: "outings.mood.calm" }] },
      { Name: "host", Label: "outings.host", Kind: Kind.Email },
      { Name: "link", Label: "outings.link", Kind: Kind.URL },
    ],
  },
});

for (const resource of [invoices, journal, bulletin, outings]) describeResourceConformance(resource, ownerApp([resource]));

describe("mountResource()", () => {
  // The record page is headed by the first field's stored value, never the one just typed, whatever the outcome.
  const forms = new Map([
    [invoices, { valid: (name: string) => ({ customer: name, total: "12" }), invalid: { customer: "Typed", total: "abc" } }],
    [journal, { valid: (name: string) => ({ headline: name, entry: "" }), invalid: { headline: "", entry: "typed" } }],
  ]);
  for (const [resource, form] of forms) {
    it(`${resource.Name}: a record's page is headed by its first field's stored value on read, 422 and 409`, async (t) => {
      const app = await startSigninApp(t, {
        render,
        schema: [...events.Schema, ...resourceSchema(resource)],
        origin: "http://heading.test",
        extend: (mux, auth, db) => {
          mountResource(resource, {
            db,
            mux,
            tools: new ToolRegistry(),
            events: new EventStore(db),
            origin: "http://heading.test",
            requireSession: auth.RequireSession,
            ctxFrom,
          });
        },
      });
      const jar = await app.signIn("ada@example.com");
      const post = (path: string, fields: Record<string, string>) =>
        app.request("POST", path, { jar, headers: { Origin: app.origin }, form: fields });
      const headed = (body: string, heading: string): void => {
        assert.equal(/<title>([^<]*)<\/title>/.exec(body)?.[1], heading);
        assert.ok(body.includes(`<h1>${heading}</h1>`), heading);
      };
      const record = (await post(resource.Route, form.valid("Stored"))).location ?? "";
      const read = await app.request("GET", record, { jar });
      assert.equal(read.status, 200);
      headed(read.body, "Stored");
      const version = /name="version" value="([0-9]+)"/.exec(read.body)?.[1] ?? "";
      const invalid = await post(record, { ...form.invalid, version });
      assert.equal(invalid.status, 422);
      headed(invalid.body, "Stored");
      assert.equal((await post(record, { ...form.valid("Renamed"), version })).status, 303);
      const late = await post(record, { ...form.valid("Late"), version });
      assert.equal(late.status, 409);
      headed(late.body, "Renamed");
    });
  }

  it("answers every action with a logged 500 and a reference when Ctx.Render is unset, storing nothing", async (t) => {
    const app = await startSigninApp(t, {
      schema: [...events.Schema],
      origin: "http://render.test",
      extend: (mux, auth, db) => {
        mountResource(invoices, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          origin: "http://render.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      },
    });
    const jar = await app.signIn("ada@example.com");
    for (const [method, path, form] of [
      ["GET", "/invoices", undefined],
      ["GET", "/invoices/new", undefined],
      ["POST", "/invoices", { customer: "ACME", total: "1" }],
      ["GET", "/invoices/abc", undefined],
      ["POST", "/invoices/abc", { customer: "ACME", total: "1", version: "1" }],
      ["POST", "/invoices/abc/delete", {}],
    ] as const) {
      const before = app.log.lines().length;
      const res = await app.request(method, path, { jar, headers: { Origin: app.origin }, ...(form !== undefined && { form }) });
      assert.equal(res.status, 500, `${method} ${path}`);
      const logged = app.log
        .lines()
        .slice(before)
        .find((l) => l["level"] === "error");
      const ref = logged?.["ref"];
      assert.ok(typeof ref === "string" && /^[a-z2-7]{6}$/.test(ref), `${method} ${path} logged with a reference`);
    }
    assert.equal(count(app.db, "invoices"), 0);
  });

  it("answers a logged 500 coded ERR_MANIFEST_NO_SUBJECT when mounted outside the session gate, storing nothing", async (t) => {
    const app = await startSigninApp(t, {
      render,
      schema: [...events.Schema],
      origin: "http://nogate.test",
      extend: (mux, _auth, db) => {
        mountResource(invoices, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          origin: "http://nogate.test",
          requireSession: (next) => next,
          ctxFrom,
        });
      },
    });
    for (const [method, path, form] of [
      ["GET", "/invoices", undefined],
      ["POST", "/invoices", { customer: "ACME", total: "1" }],
    ] as const) {
      const before = app.log.lines().length;
      const res = await app.request(method, path, { headers: { Origin: app.origin }, ...(form !== undefined && { form }) });
      assert.equal(res.status, 500, `${method} ${path}`);
      const logged = app.log
        .lines()
        .slice(before)
        .find((l) => l["level"] === "error");
      assert.match(JSON.stringify(logged), /ERR_MANIFEST_NO_SUBJECT/, `${method} ${path}`);
    }
    assert.equal(count(app.db, "invoices"), 0);
  });

  it("refuses at boot a resource whose Scope is missing (a JavaScript caller), naming it and mounting nothing", async (t) => {
    const { Scope: _, ...spec } = invoices;
    const unscoped = new Resource(spec as typeof invoices);
    let refused: unknown;
    const app = await startSigninApp(t, {
      extend: (mux, auth, db) => {
        try {
          mountResource(unscoped, {
            db,
            mux,
            tools: new ToolRegistry(),
            origin: "http://127.0.0.1",
            requireSession: auth.RequireSession,
            ctxFrom,
            // Never reached: the missing Scope is refused first.
            events: undefined as unknown as EventStore,
          });
        } catch (err) {
          refused = err;
        }
      },
    });
    assert.equal((refused as { code?: string } | undefined)?.code, "ERR_MANIFEST_NO_SCOPE");
    assert.match(String(refused), /resource "invoices"/);
    assert.equal(count(app.db, "sqlite_master", "name = ?", "invoices"), 0, "no table");
  });

  it("refuses a resource without an event store, and a changed field at boot (schema drift)", async (t) => {
    let refused: unknown;
    await startSigninApp(t, {
      schema: [...events.Schema],
      extend: (mux, auth, db) => {
        try {
          // An Exclusive resource too: its changes are events as well.
          mountResource(invoices, {
            db,
            mux,
            tools: new ToolRegistry(),
            events: undefined as unknown as EventStore,
            origin: "http://127.0.0.1",
            requireSession: auth.RequireSession,
            ctxFrom,
          });
        } catch (err) {
          refused = err;
        }
        mountResource(invoices, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          origin: "http://127.0.0.1",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
        const changed = new Resource({
          ...invoices,
          Form: { Fields: invoices.Form.Fields.map((f) => (f.Name === "total" ? { Name: f.Name, Label: f.Label, Kind: Kind.Text } : f)) },
        });
        assert.throws(
          () =>
            mountResource(changed, {
              db,
              mux,
              tools: new ToolRegistry(),
              events: new EventStore(db),
              origin: "http://127.0.0.1",
              requireSession: auth.RequireSession,
              ctxFrom,
            }),
          /ERR_DB_STEP_CHANGED|applied with different SQL/,
        );
      },
    });
    assert.match(String(refused), /needs MountOptions.events/);
  });
});
