/*
 * The field kinds over every write path (issue 25): a resource with a date,
 * a whole number, a yes/no, a choice, an email and a web address, created,
 * edited, filtered, sorted and paged through its pages in English and in
 * German (German notation), and through its tools over the tools endpoint
 * and MCP. Bad input is a 422 naming the field and why, and stores nothing.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { count, startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";
import { render } from "./conformance-apps.ts";

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

async function start(t: TestContext): Promise<SigninApp> {
  return startSigninApp(t, {
    render,
    locales: ["en", "de"],
    schema: [...events.Schema, ...resourceSchema(trips)],
    origin: "http://kinds.test",
    extend: (mux, auth, db) => {
      mountResource(trips, {
        db,
        mux,
        tools: new ToolRegistry(),
        events: new EventStore(db),
        origin: "http://kinds.test",
        requireSession: auth.RequireSession,
        ctxFrom,
      });
    },
  });
}

type Row = Record<string, unknown>;
const rows = (app: SigninApp): Row[] => app.db.prepare("SELECT * FROM trips ORDER BY created_at, id").all() as Row[];
const ids = (body: string): string[] => [...new Set([...body.matchAll(/<tr data-record-id="([^"]+)"/g)].map((m) => m[1] ?? ""))];
const versionOf = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";

function client(app: SigninApp, jar: CookieJar, language: string) {
  const headers = { "Accept-Language": language };
  return {
    get: (path: string) => app.request("GET", path, { jar, headers }),
    post: (path: string, form: Record<string, string>) =>
      app.request("POST", path, { jar, headers: { ...headers, Origin: app.origin }, form }),
  };
}

describe("Field kinds through the pages", () => {
  it("create, show, edit, filter and sort in English and in German notation", async (t) => {
    const app = await start(t);
    const jar = await app.signIn("ada@example.com");
    const en = client(app, jar, "en");
    const de = client(app, jar, "de");

    const lisbon = await en.post("/trips", {
      title: "Lisbon",
      starts: "2026-06-01",
      people: "1,234",
      booked: "1",
      kind: "travel",
      contact: "ada@example.com",
      site: "HTTPS://Example.com/lisbon",
    });
    assert.equal(lisbon.status, 303, lisbon.body);
    // German notation: "1.234" is one thousand two hundred thirty-four, "31.12.2026" a date (a form without a date picker); the unchecked box posts nothing.
    const porto = await de.post("/trips", { title: "Porto", starts: "31.12.2026", people: "1.235", kind: "meals", contact: "", site: "" });
    assert.equal(porto.status, 303, porto.body);
    const faro = await en.post("/trips", { title: "Faro", starts: "", people: "3", booked: "on", kind: "meals", contact: "", site: "" });
    assert.equal(faro.status, 303, faro.body);
    assert.deepEqual(
      rows(app).map((r) => [r["title"], r["starts"], r["people"], r["booked"], r["kind"], r["contact"], r["site"]]),
      [
        ["Lisbon", "2026-06-01", 1234, 1, "travel", "ada@example.com", "https://example.com/lisbon"],
        ["Porto", "2026-12-31", 1235, 0, "meals", "", ""],
        ["Faro", null, 3, 1, "meals", "", ""],
      ],
    );

    const listDE = await de.get("/trips?sort=starts&dir=asc");
    assert.equal(listDE.status, 200);
    assert.ok(listDE.body.includes("<td>01.06.2026</td>"), "a date in German");
    assert.ok(listDE.body.includes("<td>1.234</td>"), "a number in German");
    assert.ok(listDE.body.includes("<td>Ja</td>") && listDE.body.includes("<td>Nein</td>"), "yes and no in German");
    assert.ok(listDE.body.includes('<a href="https://example.com/lisbon" rel="noopener noreferrer">https://example.com/lisbon</a>'));
    const listEN = await en.get("/trips?sort=starts&dir=asc");
    assert.ok(
      listEN.body.includes("<td>Jun 1, 2026</td>") && listEN.body.includes("<td>1,234</td>") && listEN.body.includes("<td>Yes</td>"),
    );
    const [lisbonID, portoID, faroID] = rows(app).map((r) => String(r["id"]));
    assert.deepEqual(ids(listEN.body), [faroID, lisbonID, portoID], "an empty date sorts first");
    assert.deepEqual(ids((await en.get("/trips?sort=starts&dir=desc")).body), [portoID, lisbonID, faroID]);
    assert.deepEqual(ids((await en.get("/trips?sort=people&dir=asc")).body), [faroID, lisbonID, portoID]);
    // Ties go by id, in the same direction.
    const byID = (...group: (string | undefined)[]): (string | undefined)[] => group.sort();
    assert.deepEqual(ids((await en.get("/trips?sort=kind&dir=asc")).body), [...byID(faroID, portoID), lisbonID]);
    assert.deepEqual(ids((await en.get("/trips?sort=booked&dir=desc")).body), [...byID(lisbonID, faroID).reverse(), portoID]);

    // Filters: date and number ranges (both ends included, numbers in the person's notation), yes/no, a choice, text in an address.
    assert.deepEqual(ids((await en.get("/trips?starts_min=2026-06-01&starts_max=2026-06-30")).body), [lisbonID]);
    const juneDE = await de.get("/trips?starts_min=1.6.2026&starts_max=30.06.2026");
    assert.deepEqual(ids(juneDE.body), [lisbonID], "a date range in German notation");
    assert.match(juneDE.body, /name="starts_min" type="date" value="2026-06-01"/, "shown back as the date input's ISO");
    assert.deepEqual(ids((await de.get("/trips?people_min=1.000")).body).sort(), [lisbonID, portoID].sort());
    assert.deepEqual(ids((await en.get("/trips?people_max=3")).body), [faroID]);
    assert.deepEqual(ids((await en.get("/trips?booked=no")).body), [portoID]);
    assert.deepEqual(ids((await en.get("/trips?booked=yes&kind=meals")).body), [faroID]);
    assert.deepEqual(ids((await en.get("/trips?contact=ADA@")).body), [lisbonID]);
    for (const bad of ["starts_min=31.12.2026", "starts_max=12/31/2026", "people_min=1.5", "booked=maybe", "kind=shopping"]) {
      const res = await en.get(`/trips?${bad}`);
      assert.equal(res.status, 400, bad);
      assert.ok(res.body.includes(`data-error-for="${bad.split("=")[0]}"`), bad);
      assert.deepEqual(ids(res.body), [], `${bad}: nothing listed unfiltered`);
    }
    const filters = (await de.get("/trips")).body;
    assert.match(filters, /<input id="filter-starts_min" name="starts_min" type="date"/);
    assert.match(filters, /<select id="filter-booked" name="booked"><option value="">Alle<\/option><option value="yes">Ja<\/option>/);

    // The form: native inputs, the stored values in them (a number as plain digits, whatever the locale).
    const page = await de.get(`/trips/${lisbonID}`);
    assert.match(page.body, /<input id="field-starts" name="starts" type="date" value="2026-06-01"/);
    assert.match(
      page.body,
      /<input id="field-people" name="people" type="number" step="1" min="1" max="100000" inputmode="numeric" value="1234"/,
    );
    assert.match(page.body, /<input id="field-booked" name="booked" type="checkbox" value="1" checked/);
    assert.match(page.body, /<option value="travel" selected>trips.kind.travel<\/option>/);
    assert.match(page.body, /<input id="field-contact" name="contact" type="email"/);
    assert.match(page.body, /<input id="field-site" name="site" type="url"[^>]*value="https:\/\/example.com\/lisbon"/);
    // A German date kept as ISO beside another field's error, so the date input shows it again.
    const refused = await de.post(`/trips/${lisbonID}`, { version: versionOf(page.body), title: "Lisbon", starts: "2.6.2026", kind: "x" });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /<input id="field-starts" name="starts" type="date" value="2026-06-02"/);
    // Edited in German: the box unchecked (absent), the number and the date in German notation.
    const edited = await de.post(`/trips/${lisbonID}`, {
      version: versionOf(page.body),
      title: "Lisbon",
      starts: "2.6.2026",
      people: "12.000",
      kind: "meals",
      contact: "ada@example.com",
      site: "http://example.org",
    });
    assert.equal(edited.status, 303, edited.body);
    const after = rows(app).find((r) => r["id"] === lisbonID);
    assert.deepEqual(
      [after?.["starts"], after?.["people"], after?.["booked"], after?.["kind"], after?.["site"]],
      ["2026-06-02", 12000, 0, "meals", "http://example.org/"],
    );
  });

  it("pages through records sorted by a date, empty dates first, with no record twice or lost", async (t) => {
    const app = await start(t);
    const en = client(app, await app.signIn("ada@example.com"), "en");
    for (let n = 0; n < 25; n++) {
      const starts = n % 5 === 0 ? "" : `2026-01-${String(28 - n).padStart(2, "0")}`;
      assert.equal((await en.post("/trips", { title: `Trip ${n}`, starts, people: String(n + 1), kind: "travel" })).status, 303);
    }
    const seen: string[] = [];
    let path: string | undefined = "/trips?sort=starts&dir=asc";
    while (path !== undefined) {
      const res = await en.get(path);
      assert.equal(res.status, 200);
      seen.push(...ids(res.body));
      path = /<a rel="next" href="([^"]+)"/.exec(res.body)?.[1]?.replaceAll("&amp;", "&");
    }
    const sorted = rows(app)
      .map((r) => [String(r["starts"] ?? ""), String(r["id"])] as const)
      .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1))
      .map(([, id]) => id);
    assert.deepEqual(seen, sorted);
  });

  it("refuses bad input of each kind with 422 naming the field, keeps what was typed, and stores nothing", async (t) => {
    const app = await start(t);
    const jar = await app.signIn("ada@example.com");
    const de = client(app, jar, "de");
    const good = { title: "Oslo", starts: "2026-03-01", people: "2", booked: "1", kind: "travel", contact: "", site: "" };
    const cases: [string, string, string][] = [
      ["starts", "2026-02-30", "Geben Sie ein Datum ein"],
      ["starts", "30.2.2026", "Geben Sie ein Datum ein"],
      ["starts", "3/1/2026", "Geben Sie ein Datum ein"],
      ["people", "1,5", "Geben Sie eine ganze Zahl ein"],
      ["people", "0", "Geben Sie eine Zahl von 1 bis 100.000 ein."],
      ["people", "100.001", "Geben Sie eine Zahl von 1 bis 100.000 ein."],
      ["booked", "vielleicht", "Wählen Sie Ja oder Nein."],
      ["kind", "shopping", "Wählen Sie einen der angebotenen Werte."],
      ["kind", "", "Dieses Feld ist erforderlich."],
      ["contact", "ada at example.com", "E-Mail-Adresse"],
      ["site", "javascript:alert(1)", "http:// oder https://"],
      ["site", "example.com", "http:// oder https://"],
    ];
    for (const [field, value, reason] of cases) {
      const res = await de.post("/trips", { ...good, [field]: value });
      assert.equal(res.status, 422, `${field}=${value}`);
      const error = new RegExp(`data-error-for="${field}" role="alert">([^<]*)<`).exec(res.body)?.[1] ?? "";
      assert.ok(error.includes(reason), `${field}=${value}: ${error}`);
    }
    assert.equal(count(app.db, "trips"), 0, "nothing stored");
    const created = await de.post("/trips", good);
    assert.equal(created.status, 303);
    const id = created.location?.split("/").pop() ?? "";
    const version = versionOf((await de.get(`/trips/${id}`)).body);
    const refused = await de.post(`/trips/${id}`, { ...good, version, title: "Bergen", people: "zwei" });
    assert.equal(refused.status, 422);
    assert.match(refused.body, /value="zwei"/, "the entered text is kept");
    assert.deepEqual(
      rows(app).map((r) => [r["title"], r["people"]]),
      [["Oslo", 2]],
      "the update stored nothing",
    );
  });
});

describe("Field kinds through the tools, over the tools endpoint and MCP", () => {
  const idOf = (url: string): string => url.split("/").pop() ?? "";

  it("describes each kind's JSON Schema to the agent", async (t) => {
    const app = await startTransportsApp(t, { resource: trips });
    const token = app.mint("write", "claude");
    const answer = await app.mcp(token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const listed = JSON.parse(answer.body) as {
      result: { tools: { name: string; inputSchema: { properties: Record<string, Record<string, unknown>> } }[] };
    };
    const schema = (tool: string) => listed.result.tools.find((x) => x.name === tool)?.inputSchema.properties ?? {};
    const create = schema("trips_create");
    assert.deepEqual(Object.fromEntries(Object.entries(create).map(([k, v]) => [k, { ...v, description: undefined }])), {
      title: { type: "string", description: undefined },
      starts: { type: "string", format: "date", description: undefined },
      people: { type: "integer", minimum: 1, maximum: 100_000, description: undefined },
      booked: { type: "boolean", description: undefined },
      kind: { type: "string", enum: ["travel", "meals"], description: undefined },
      contact: { type: "string", format: "email", description: undefined },
      site: { type: "string", format: "uri", description: undefined },
    });
    const list = schema("trips_list");
    assert.deepEqual(list["starts_min"]?.["format"], "date");
    assert.deepEqual([list["people_max"]?.["type"], list["people_max"]?.["maximum"]], ["integer", 100_000]);
    assert.deepEqual(list["booked"]?.["enum"], ["yes", "no"]);
    assert.deepEqual(list["kind"]?.["enum"], ["travel", "meals"]);
  });

  it("creates, lists with filters and updates with typed arguments, and refuses bad values with 422 naming the field, asking no one", async (t) => {
    const app = await startTransportsApp(t, { resource: trips });
    const token = app.mint("write", "claude");
    const args = {
      title: "Kyoto",
      starts: "2026-04-01",
      people: 1234,
      booked: true,
      kind: "travel",
      contact: "ada@example.com",
      site: "https://example.com",
    };
    const held = await app.tools(token, "trips_create", args);
    assert.equal(held.status, 202, held.body);
    app.approve(idOf(JSON.parse(held.body).approval_url));
    const ran = await app.tools(token, "trips_create", args);
    assert.equal(ran.status, 200, ran.body);
    const row = app.db.prepare("SELECT starts, people, booked, kind, site FROM trips").get() as Row;
    assert.deepEqual({ ...row }, { starts: "2026-04-01", people: 1234, booked: 1, kind: "travel", site: "https://example.com/" });

    const read = async (query: Record<string, unknown>) => {
      const res = await app.tools(token, "trips_list", query);
      assert.equal(res.status, 200, res.body);
      return (JSON.parse(res.body) as { result: { items: Row[] } }).result.items;
    };
    const [item] = await read({ starts_min: "2026-04-01", people_min: 1000, booked: "yes", kind: "travel" });
    assert.deepEqual([item?.["starts"], item?.["people"], item?.["booked"], item?.["kind"]], ["2026-04-01", 1234, true, "travel"]);
    assert.deepEqual(await read({ starts_max: "2026-03-31" }), []);
    assert.deepEqual(await read({ booked: "no" }), []);
    const id = String(item?.["id"]);

    const approvalsBefore = count(app.db, "agent_approvals");
    const bad: [string, unknown, RegExp][] = [
      ["starts", "2026-02-30", /^starts: Enter a date/],
      ["starts", "04/01/2026", /^starts: Enter a date/],
      ["starts", "01.04.2026", /^starts: Enter a date/],
      ["people", 0, /^people: Enter a number from 1 to 100,000\.$/],
      ["kind", "shopping", /^kind: Choose one of the listed values\.$/],
      ["contact", "nobody", /^contact: Enter an email address/],
      ["site", "javascript:alert(1)", /^site: Enter a web address/],
    ];
    for (const [field, value, reason] of bad) {
      // Two calls a round, within the token's rate (DEFAULT_TOOL_CALL_RATE).
      app.clock.advance(2000);
      const overHTTP = await app.tools(token, "trips_create", { ...args, [field]: value });
      assert.equal(overHTTP.status, 422, `${field}: ${overHTTP.body}`);
      assert.match(JSON.parse(overHTTP.body).error, reason);
      const overMCP = await app.mcpCall(token, "trips_create", { ...args, [field]: value });
      const result = overMCP["result"] as { isError: boolean; content: { text: string }[] };
      assert.equal(result.isError, true, field);
      assert.match(result.content[0]?.text ?? "", reason);
    }
    // A fraction for a whole number is the wrong JSON type: refused before the tool, naming the field.
    const fraction = await app.tools(token, "trips_create", { ...args, people: 1.5 });
    assert.equal(fraction.status, 400);
    assert.equal(JSON.parse(fraction.body).field, "people");
    assert.equal(count(app.db, "trips"), 1, "nothing more stored");
    assert.equal(count(app.db, "agent_approvals"), approvalsBefore, "no one asked to approve a call that cannot run");

    const version = (JSON.parse((await app.tools(token, "trips_read", { id })).body) as { result: { version: number } }).result.version;
    const update = { id, version, booked: false, people: 2 };
    const asked = await app.tools(token, "trips_update", update);
    assert.equal(asked.status, 202, asked.body);
    app.approve(idOf(JSON.parse(asked.body).approval_url));
    assert.equal((await app.tools(token, "trips_update", update)).status, 200);
    const changed = app.db.prepare("SELECT booked, people, starts FROM trips").get() as Row;
    assert.deepEqual({ ...changed }, { booked: 0, people: 2, starts: "2026-04-01" }, "only the given fields changed");
    assert.equal(SUBJECT, "ada@example.com");
  });
});
