/*
 * The work a list page and a write do, counted (issue 44, BENCHMARKS.md (o)):
 * - a list page formats each value it shows once: every cell but the first formatted its value twice (once for a link
 *   only the first column draws, then as the cell). Counted on Intl itself while one page of three records is served:
 *   an amount, a number and a date a row, and a time (the fixed created_at column, formatted once before too);
 * - a create of a resource without Reference fields runs in its store's transaction and its event's, not in one more
 *   around them: each level inside another is a savepoint, two more statements and a journal of the pages it changes,
 *   which SQLite wrote to a temp file past 64 KiB (every write call of the mixed scenario did, BENCHMARKS.md (o));
 * - the transaction function a write runs in is made once per handle (lib/internal `immediately`): better-sqlite3's
 *   `transaction()` builds four wrappers and defines their properties each time it is asked, 5% of a tool call;
 * - a list page's LIMIT is written into its SQL: bound, SQLite prepared the statement again at every page (scope.ts
 *   `limitSQL`).
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { applySchema } from "../../lib/db/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { LIST_PAGE_SIZE, RecordTable } from "../../lib/manifest/table.ts";
import { open } from "../_support/db.ts";
import { startSigninApp, type SigninApp } from "../_support/signin-app.ts";
import { render } from "./conformance-apps.ts";

const costs = new Resource({
  Name: "costs",
  Route: "/costs",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "label" }, { Field: "amount" }, { Field: "people" }, { Field: "spent" }, { Field: "created_at" }] },
  Form: {
    Fields: [
      { Name: "label", Label: "costs.label", Kind: Kind.Text, Required: true },
      { Name: "amount", Label: "costs.amount", Kind: Kind.Money, Currency: "EUR" },
      { Name: "people", Label: "costs.people", Kind: Kind.Integer },
      { Name: "spent", Label: "costs.spent", Kind: Kind.Date },
    ],
  },
});

/**
 * Starts the app; on the handle the resource writes through, `transactions.n` counts the transactions (and savepoints)
 * its writes open, `transactions.made` the transaction functions asked of better-sqlite3.
 */
function start(t: TestContext, transactions = { n: 0, made: 0 }): Promise<SigninApp> {
  return startSigninApp(t, {
    render,
    schema: [...events.Schema, ...resourceSchema(costs)],
    origin: "http://costs.test",
    extend: (mux, auth, handle) => {
      const db = new Proxy(handle, {
        get(target, name, receiver) {
          if (name !== "transaction") return Reflect.get(target, name, receiver) as unknown;
          return (fn: (...args: unknown[]) => unknown) => {
            transactions.made++;
            const made = target.transaction(fn);
            const counted = (...args: unknown[]): unknown => {
              transactions.n++;
              return made.immediate(...args);
            };
            return Object.assign(counted, { immediate: counted });
          };
        },
      });
      mountResource(costs, {
        db,
        mux,
        tools: new ToolRegistry(),
        events: new EventStore(db),
        origin: "http://costs.test",
        requireSession: auth.RequireSession,
        ctxFrom,
      });
    },
  });
}

/** Counts the calls of `format` of every formatter of `kind` from now on (the getter hands out a counting wrapper). */
function countFormats(t: TestContext, kind: typeof Intl.NumberFormat | typeof Intl.DateTimeFormat): { n: number } {
  const counted = { n: 0 };
  const getter = Object.getOwnPropertyDescriptor(kind.prototype, "format")?.get;
  assert.ok(getter !== undefined);
  t.mock.getter(kind.prototype, "format", function (this: object) {
    const format = getter.call(this) as (value: unknown) => string;
    return (value: unknown) => {
      counted.n++;
      return format(value);
    };
  });
  return counted;
}

describe("A list page's cells", () => {
  it("formats each value shown once", async (t) => {
    const app = await start(t);
    const jar = await app.signIn("ada@example.com");
    for (const [label, amount, people, spent] of [
      ["Taxi", "23.50", "1", "2026-12-01"],
      ["Hotel", "1,234.00", "2", "2026-12-02"],
      ["Lunch", "12", "1,500", "2026-12-03"],
    ] as const) {
      const res = await app.request("POST", "/costs", { jar, headers: { Origin: app.origin }, form: { label, amount, people, spent } });
      assert.equal(res.status, 303, res.body);
    }
    const numbers = countFormats(t, Intl.NumberFormat);
    const dates = countFormats(t, Intl.DateTimeFormat);
    const page = await app.request("GET", "/costs", { jar });
    assert.equal(page.status, 200);
    assert.match(page.body, /<td>€1,234\.00<\/td><td>2<\/td><td>Dec 2, 2026<\/td>/);
    assert.match(page.body, /<td>€12\.00<\/td><td>1,500<\/td><td>Dec 3, 2026<\/td>/);
    assert.equal(numbers.n, 6, "an amount and a number a row");
    assert.equal(dates.n, 6, "a date and a time a row");
  });

  it("creates a record in its store's transaction with its event inside, and no level more", async (t) => {
    const transactions = { n: 0, made: 0 };
    const app = await start(t, transactions);
    const jar = await app.signIn("ada@example.com");
    transactions.n = 0;
    const res = await app.request("POST", "/costs", { jar, headers: { Origin: app.origin }, form: { label: "Taxi", amount: "23.50" } });
    assert.equal(res.status, 303, res.body);
    assert.equal(transactions.n, 2, "the store's write and its event's append");
    assert.equal((app.db.prepare("SELECT count(*) AS n FROM costs").get() as { n: number }).n, 1);
  });

  it("asks better-sqlite3 for a transaction function once per handle, not once per write (lib/internal `immediately`)", async (t) => {
    const transactions = { n: 0, made: 0 };
    const app = await start(t, transactions);
    const jar = await app.signIn("ada@example.com");
    for (const label of ["Taxi", "Hotel", "Lunch"]) {
      const res = await app.request("POST", "/costs", { jar, headers: { Origin: app.origin }, form: { label } });
      assert.equal(res.status, 303, res.body);
    }
    assert.equal(transactions.n, 6, "two levels a write");
    // Each call of `transaction()` builds four wrappers and defines their properties: 5% of a tool call (BENCHMARKS.md (o)).
    assert.equal(transactions.made, 1, "one function, made at the first write");
  });

  it("writes a page's LIMIT into its SQL, never binds it, so SQLite does not plan the query again on every page", async (t) => {
    const app = await start(t);
    // The resource prepares each statement on its first use (scope.ts `preparer`): after this, every list's.
    const prepare = t.mock.method(app.db, "prepare");
    const jar = await app.signIn("ada@example.com");
    for (let i = 0; i < 22; i++) {
      const res = await app.request("POST", "/costs", { jar, headers: { Origin: app.origin }, form: { label: `Taxi ${i}` } });
      assert.equal(res.status, 303, res.body);
    }
    const first = await app.request("GET", "/costs", { jar });
    const next = /rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&");
    assert.ok(next !== undefined, "a second page");
    assert.equal((await app.request("GET", next, { jar })).status, 200);
    assert.equal((await app.request("GET", "/costs?q=taxi", { jar })).status, 200);
    const reads = prepare.mock.calls
      .map((call) => String(call.arguments[0]))
      .filter((sql) => /^SELECT/.test(sql) && sql.includes('"costs"'));
    // The first page, the next (keyset) page and the search's walk each read the page size and one more; the walk reads
    // the rows of SEARCH_WALK (4) pages in the list's order first (README "Search").
    const paged = reads.filter((sql) => sql.endsWith(` LIMIT ${LIST_PAGE_SIZE + 1}`));
    assert.deepEqual(
      paged.map((sql) => (sql.includes("latch_rowid") ? "search" : / [<>]=? \?/.test(sql) ? "next page" : "first page")),
      ["first page", "next page", "search"],
    );
    assert.match(paged[2] ?? "", new RegExp(` LIMIT ${(LIST_PAGE_SIZE + 1) * 4}\\) AS r`));
    assert.deepEqual(
      reads.filter((sql) => /\bLIMIT\s+[?:@$]/i.test(sql)),
      [],
    );
  });

  it("refuses a limit that is not a whole number, 0 or more", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, resourceSchema(costs));
    const table = new RecordTable(db, costs);
    const query = { filters: [], search: [], sort: "created_at", desc: true, after: undefined };
    for (const limit of [-1, 1.5, Number.NaN, 2 ** 53])
      assert.throws(
        () => table.list("ada@example.com", { ...query, limit }),
        new RegExp(`^RangeError: list costs: limit must be a whole number, 0 or more, got ${limit}$`),
      );
    for (const limit of [0, Number.MAX_SAFE_INTEGER]) {
      assert.deepEqual(table.list("ada@example.com", { ...query, limit }), { records: [], next: undefined });
      assert.deepEqual(table.list("ada@example.com", { ...query, limit, search: ["taxi"] }), { records: [], next: undefined });
    }
  });
});
