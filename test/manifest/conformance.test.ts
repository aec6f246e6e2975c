/*
 * The conformance suite (`latch/manifest/conformance`) run on resources
 * declared here, one per store kind, mounted in a real application (the
 * runtime's Handler, real sign-in over SMTP, the agent tool registry), plus
 * what only a test of the mount itself can see: with `Render` unset every
 * action answers a logged 500 with a reference and stores nothing.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";

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
  List: { Columns: [{ Field: "notice" }, { Field: "price" }, { Field: "updated_at" }], Filters: [{ Field: "price" }] },
  Form: {
    Fields: [
      { Name: "notice", Label: "bulletin.notice", Kind: Kind.Text, Required: true },
      { Name: "price", Label: "bulletin.price", Kind: Kind.Money, Currency: "JPY" },
    ],
  },
});

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

const labels = [
  "invoices.title",
  "invoices.new",
  "invoices.customer",
  "invoices.memo",
  "invoices.total",
  "journal.title",
  "journal.new",
  "journal.headline",
  "journal.entry",
  "bulletin.title",
  "bulletin.new",
  "bulletin.notice",
  "bulletin.price",
];
const catalogs = new Map(BaseLocales().map((code) => [code, Object.fromEntries(labels.map((k) => [k, `${code} ${k}`]))]));

for (const resource of [invoices, journal, bulletin]) {
  describeResourceConformance(resource, async () => {
    const tools = new ToolRegistry();
    const cleanups: (() => unknown)[] = [];
    // The suite has no TestContext of its own here: the app's cleanups run in its close().
    const owner = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as TestContext;
    const app = await startSigninApp(owner, {
      render,
      schema: [...events.Schema, ...resourceSchema(resource)],
      extend: (mux, auth, db) => {
        mountResource(resource, {
          db,
          mux,
          tools,
          events: new EventStore(db),
          origin: "http://conformance.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      },
      origin: "http://conformance.test",
    });
    return {
      base: app.base,
      origin: app.origin,
      tools,
      catalogs,
      signIn: async (subject) => (await app.signIn(subject)).header() ?? "",
      close: async () => {
        await app.closeApp();
        for (const fn of cleanups.reverse()) await fn();
      },
    };
  });
}

describe("mountResource()", () => {
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
