/*
 * Every field kind in real headless Chromium, in English and in German
 * (issue 25): a resource with a date, a whole number, a yes/no, a choice,
 * an email and a web address, created and edited through its form's
 * native inputs (date picker, number, checkbox, select, email, url),
 * filtered, sorted and paged through the list, each language in its own
 * browser context. The list shows dates and numbers in the person's
 * notation; a date typed in German notation into a filter is read; bad
 * input the browser would stop (form validation switched off, as a
 * browser without it) gets the 422 with the field and its reason, and
 * stores nothing. The same through the tools, with the official MCP SDK
 * client: typed arguments, filters and search, an update, refusals naming
 * the field (the tools endpoint too: test/manifest/kinds-http.test.ts).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { LIST_PAGE_SIZE } from "../../lib/manifest/list.ts";
import { humanActor } from "../../lib/agent/index.ts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { connectMCP, toolText } from "../_support/mcp-client.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";
import type { RecordStore } from "../../lib/manifest/store.ts";

const trips = new Resource({
  Name: "trips",
  Route: "/trips",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: {
    Columns: [{ Field: "title" }, { Field: "starts" }, { Field: "people" }, { Field: "booked" }, { Field: "kind" }, { Field: "site" }],
    Filters: [{ Field: "starts" }, { Field: "people" }, { Field: "booked" }, { Field: "kind" }, { Field: "contact" }],
  },
  Form: {
    Fields: [
      { Name: "title", Label: "trips.title", Kind: Kind.Text, Required: true },
      { Name: "starts", Label: "trips.starts", Kind: Kind.Date },
      { Name: "people", Label: "trips.people", Kind: Kind.Integer, Min: 1, Max: 100_000 },
      { Name: "booked", Label: "trips.booked", Kind: Kind.Boolean },
      {
        Name: "kind",
        Label: "trips.kind",
        Kind: Kind.Choice,
        Required: true,
        Choices: [
          { Value: "travel", Label: "trips.kind.travel" },
          { Value: "meals", Label: "trips.kind.meals" },
        ],
      },
      { Name: "contact", Label: "trips.contact", Kind: Kind.Email },
      { Name: "site", Label: "trips.site", Kind: Kind.URL },
    ],
  },
});

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

type Row = Record<string, unknown>;

describe("field kinds in a browser, English and German", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it("creates, edits, filters, sorts and pages records of every kind, each language in its own context", async (t) => {
    let store: RecordStore | undefined;
    const app = await startSigninApp(t, {
      render,
      locales: ["en", "de"],
      schema: [...events.Schema, ...resourceSchema(trips)],
      extend: (mux, auth, db) => {
        store = mountResource(trips, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          // The port is not known yet; Chromium's posts carry Sec-Fetch-Site: same-origin, which the check takes first.
          origin: "http://127.0.0.1",
          requireSession: auth.RequireSession,
          ctxFrom,
        }).Store;
      },
    });
    const rowsOf = (owner: string): Row[] =>
      app.db.prepare("SELECT * FROM trips WHERE owner = ? ORDER BY created_at, id").all(owner) as Row[];
    const listed = async (page: Page): Promise<string[]> =>
      (await page.evaluate(`[...document.querySelectorAll("tr[data-record-id] td:first-child")].map((td) => td.textContent)`)) as string[];
    const cells = async (page: Page, title: string): Promise<string[]> =>
      (await page.evaluate(
        `[...[...document.querySelectorAll("tr[data-record-id]")].find((tr) => tr.cells[0].textContent === ${JSON.stringify(title)}).cells].filter((td) => td.querySelector("[data-bulk-select]") === null).map((td) => td.textContent)`,
      )) as string[];

    for (const locale of ["en", "de"]) {
      await t.test(locale, async () => {
        const person = `kinds-${locale}@example.com`;
        const jar = await app.signIn(person);
        const context = await browser.newContext({ locale, javaScriptEnabled: true });
        await context.addCookies([...jar.cookies].map(([name, value]) => ({ name, value, url: app.base })));
        const { page, errors, failures } = await watchedPage(context);
        const owner = String((app.db.prepare("SELECT subject FROM sessions ORDER BY rowid DESC").get() as Row)["subject"]);

        // Create through the native inputs: a date picker (ISO), a number, a checkbox, a select, an email and a web address.
        // Submits a form and waits for the next page: the one shown is marked, the next one is not.
        const submit = async (form = 'form[data-resource="trips"]'): Promise<void> => {
          await page.evaluate(`document.documentElement.dataset.before = "1"`);
          await page.click(`${form} button[type="submit"]`);
          await page.waitForSelector("html:not([data-before])");
        };
        await page.goto(`${app.base}/trips/new`);
        await page.fill('input[name="title"]', "Lisbon");
        await page.fill('input[name="starts"]', "2026-12-31");
        await page.fill('input[name="people"]', "1234");
        await page.click('input[name="booked"]');
        await page.selectOption('select[name="kind"]', "travel");
        await page.fill('input[name="contact"]', "ada@example.com");
        await page.fill('input[name="site"]', "https://example.com/lisbon");
        await submit();
        assert.deepEqual(
          rowsOf(owner).map((r) => [r["title"], r["starts"], r["people"], r["booked"], r["kind"], r["contact"], r["site"]]),
          [["Lisbon", "2026-12-31", 1234, 1, "travel", "ada@example.com", "https://example.com/lisbon"]],
        );
        // Edit: another day, number and choice, the box unchecked.
        await page.fill('input[name="starts"]', "2026-06-01");
        await page.fill('input[name="people"]', "12000");
        await page.click('input[name="booked"]');
        await page.selectOption('select[name="kind"]', "meals");
        await submit();
        assert.deepEqual(
          rowsOf(owner).map((r) => [r["starts"], r["people"], r["booked"], r["kind"]]),
          [["2026-06-01", 12000, 0, "meals"]],
        );

        // Bad input, as from a browser that does not check: the 422 names the field and why, and nothing is stored.
        const refusals: [string, string, RegExp][] = [
          ["contact", "nobody", locale === "de" ? /E-Mail-Adresse/ : /email address/],
          ["site", "javascript:alert(1)", /http:\/\/ .* https:\/\//],
          ["people", "0", locale === "de" ? /1 bis 100\.000/ : /1 to 100,000/],
        ];
        for (const [field, value, reason] of refusals) {
          await page.goto(`${app.base}/trips/new`);
          await page.evaluate(`document.querySelector('form[data-resource="trips"]').noValidate = true`);
          await page.fill('input[name="title"]', "Refused");
          await page.selectOption('select[name="kind"]', "travel");
          await page.evaluate(`document.querySelector('[name="${field}"]').type = "text"`);
          await page.fill(`input[name="${field}"]`, value);
          await submit();
          assert.match((await page.textContent(`[data-error-for="${field}"]`)) ?? "", reason, `${field}=${value}`);
          assert.equal(rowsOf(owner).length, 1, `${field}=${value}: nothing stored`);
        }

        // More records than a page, added as the person would elsewhere.
        for (let i = 1; i <= LIST_PAGE_SIZE + 2; i++) {
          store?.create(
            { owner, actor: humanActor() },
            {
              title: `Trip ${String(i).padStart(2, "0")}`,
              starts: `2026-01-${String(i).padStart(2, "0")}`,
              people: i,
              booked: i % 2 === 1,
              kind: "travel",
              contact: "",
              site: "",
            },
          );
        }
        // The list in the person's notation.
        await page.goto(`${app.base}/trips?sort=title&dir=asc`);
        const lisbon = await cells(page, "Lisbon");
        assert.deepEqual(
          lisbon,
          locale === "de"
            ? ["Lisbon", "01.06.2026", "12.000", "Nein", "trips.kind.meals", "https://example.com/lisbon"]
            : ["Lisbon", "Jun 1, 2026", "12,000", "No", "trips.kind.meals", "https://example.com/lisbon"],
        );
        // Sort by number, descending, by the column's header (twice: ascending first).
        await page.click('th a[href*="sort=people"]');
        await page.waitForSelector('th[aria-sort="ascending"]');
        await page.click('th a[href*="sort=people"]');
        await page.waitForSelector('th[aria-sort="descending"]');
        assert.deepEqual((await listed(page)).slice(0, 3), ["Lisbon", "Trip 22", "Trip 21"]);
        // Page through: the next page holds the rest, none twice.
        const first = await listed(page);
        await page.click('a[rel="next"]');
        await page.waitForURL(/after=/);
        const second = await listed(page);
        assert.equal(first.length, LIST_PAGE_SIZE);
        assert.deepEqual(
          [...first, ...second].sort(),
          ["Lisbon", ...Array.from({ length: LIST_PAGE_SIZE + 2 }, (_, i) => `Trip ${String(i + 1).padStart(2, "0")}`)].sort(),
        );

        // Filter through the form: a date range typed in the person's notation (as without a date picker), a number, yes/no, a choice.
        await page.goto(`${app.base}/trips`);
        await page.evaluate(`document.querySelector('[name="starts_min"]').type = "text"`);
        await page.fill('input[name="starts_min"]', locale === "de" ? "10.1.2026" : "2026-01-10");
        await page.fill('input[name="people_max"]', locale === "de" ? "1.000" : "1,000");
        await page.selectOption('select[name="booked"]', "yes");
        await page.selectOption('select[name="kind"]', "travel");
        await submit('form[role="search"]');
        // Created within the same milliseconds, their order among themselves is the ids': compare them as a set.
        assert.deepEqual((await listed(page)).sort(), ["Trip 11", "Trip 13", "Trip 15", "Trip 17", "Trip 19", "Trip 21"]);
        assert.equal(await page.getAttribute('input[name="starts_min"]', "value"), "2026-01-10", "shown back as ISO");
        // A filter value that does not parse: 400, its reason beside it, nothing listed.
        await page.fill('input[name="people_max"]', "1.5");
        await submit('form[role="search"]');
        assert.deepEqual(await listed(page), []);
        assert.equal(count(app.db, "trips"), (locale === "de" ? 2 : 1) * (LIST_PAGE_SIZE + 3));
        // The refusals were the answers' statuses: 422 for each bad value, 400 for the bad filter (the console reports each).
        assert.deepEqual(
          failures.filter((f) => !f.endsWith("/favicon.ico")).map((f) => f.split(" ")[0]),
          ["422", "422", "422", "400"],
        );
        assert.deepEqual(
          errors.filter((e) => !e.startsWith("Failed to load resource")),
          [],
        );
        await context.close();
      });
    }
  });
});

describe("field kinds through the tools, over MCP", () => {
  it("the same through the official MCP SDK client: every kind's typed argument, filters, search, an update, refusals naming the field", async (t) => {
    const app = await startTransportsApp(t, { resource: trips });
    const client = await connectMCP({ origin: app.base }, app.mint("write", "claude"));
    t.after(() => client.close());
    const call = async (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const approved = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
      const held = await call(name, args);
      const url = /\/approvals\/([^\s"]+)/.exec(toolText(held))?.[1];
      assert.ok(url !== undefined, toolText(held));
      app.approve(url);
      app.clock.advance(2000);
      return call(name, args);
    };
    const args = {
      title: "Kyoto 京都",
      starts: "2026-04-01",
      people: 1234,
      booked: true,
      kind: "travel",
      contact: "ada@example.com",
      site: "https://example.com",
    };
    const created = await approved("trips_create", args);
    assert.notEqual(created.isError, true, toolText(created));
    const row = app.db.prepare("SELECT starts, people, booked, kind, contact, site FROM trips").get() as Row;
    assert.deepEqual(
      { ...row },
      { starts: "2026-04-01", people: 1234, booked: 1, kind: "travel", contact: "ada@example.com", site: "https://example.com/" },
    );

    const list = async (query: Record<string, unknown>): Promise<Row[]> => {
      app.clock.advance(2000);
      const result = await call("trips_list", query);
      assert.notEqual(result.isError, true, toolText(result));
      return (JSON.parse(toolText(result)) as { items: Row[] }).items;
    };
    const [item] = await list({ q: "京都", starts_min: "2026-04-01", people_min: 1000, booked: "yes", kind: "travel", sort: "people" });
    assert.deepEqual(
      [item?.["starts"], item?.["people"], item?.["booked"], item?.["site"]],
      ["2026-04-01", 1234, true, "https://example.com/"],
    );
    assert.deepEqual(await list({ starts_max: "2026-03-31" }), []);
    assert.deepEqual(await list({ q: "Lisbon" }), []);

    const id = String(item?.["id"]);
    app.clock.advance(2000);
    const version = (JSON.parse(toolText(await call("trips_read", { id }))) as { version: number }).version;
    const updated = await approved("trips_update", { id, version, booked: false, people: 2, starts: "2026-04-02" });
    assert.notEqual(updated.isError, true, toolText(updated));
    const changed = app.db.prepare("SELECT booked, people, starts, owner FROM trips").get() as Row;
    assert.deepEqual({ ...changed }, { booked: 0, people: 2, starts: "2026-04-02", owner: SUBJECT });

    for (const [field, value, reason] of [
      ["starts", "01.04.2026", /^starts: Enter a date/],
      ["people", 0, /^people: Enter a number from 1 to 100,000\.$/],
      ["kind", "shopping", /^kind: Choose one of the listed values\.$/],
      ["contact", "nobody", /^contact: Enter an email address/],
      ["site", "javascript:alert(1)", /^site: Enter a web address/],
    ] as const) {
      app.clock.advance(2000);
      const refused = await call("trips_create", { ...args, [field]: value });
      assert.equal(refused.isError, true, field);
      assert.match(toolText(refused), reason);
    }
    assert.equal(count(app.db, "trips"), 1, "nothing more stored");
  });
});
