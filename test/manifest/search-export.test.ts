/*
 * Search and export of a resource's list (issue 25 item 4): the search box
 * (`q`) finds records by words in any text field, in Latin, Cyrillic,
 * Arabic and CJK text, only among the person's own records, kept in sync
 * on every write path of both stores, together with filters, sorting and
 * keyset pages. `GET <Route>.csv` writes the same list as RFC 4180 CSV,
 * UTF-8 with a byte order mark, formulas neutralised, streamed.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { describe, it, type TestContext } from "node:test";
import { humanActor, ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, isResourceView, mountResource, resourceSchema } from "../../lib/manifest/index.ts";
import { CSV_CHUNK, csvField } from "../../lib/manifest/csv.ts";
import { FILTER_MAX_LENGTH, LIST_PAGE_SIZE, SEARCH_MAX_WORDS } from "../../lib/manifest/list.ts";
import { ownerTag } from "../../lib/manifest/search.ts";
import { SUBJECT, startTransportsApp } from "../_support/agent-transports.ts";
import { startSigninApp, type CookieJar, type SigninApp } from "../_support/signin-app.ts";

const fields = [
  { Name: "title", Label: "trips.title", Kind: Kind.Text, Required: true },
  { Name: "notes", Label: "trips.notes", Kind: Kind.Textarea },
  { Name: "contact", Label: "trips.contact", Kind: Kind.Email },
  { Name: "amount", Label: "trips.amount", Kind: Kind.Money },
  { Name: "people", Label: "trips.people", Kind: Kind.Integer },
];
const resource = (name: string, store: StoreKind): Resource =>
  new Resource({
    Name: name,
    Route: `/${name}`,
    Store: store,
    Scope: ScopeKind.UserScoped,
    List: { Columns: [{ Field: "title" }, { Field: "amount" }], Filters: [{ Field: "amount" }] },
    Form: { Fields: fields },
  });
const trips = resource("trips", StoreKind.Exclusive);
const diary = resource("diary", StoreKind.Mergeable);

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

async function start(t: TestContext): Promise<SigninApp> {
  return startSigninApp(t, {
    render,
    schema: [...events.Schema, ...resourceSchema(trips), ...resourceSchema(diary)],
    origin: "http://search.test",
    extend: (mux, auth, db) => {
      for (const r of [trips, diary]) {
        mountResource(r, {
          db,
          mux,
          tools: new ToolRegistry(),
          events: new EventStore(db),
          origin: "http://search.test",
          requireSession: auth.RequireSession,
          ctxFrom,
        });
      }
    },
  });
}

function client(app: SigninApp, jar: CookieJar) {
  return {
    get: (path: string) => app.request("GET", path, { jar }),
    post: (path: string, form: Record<string, string>) => app.request("POST", path, { jar, headers: { Origin: app.origin }, form }),
  };
}

const ids = (body: string): string[] => [...new Set([...body.matchAll(/<tr data-record-id="([^"]+)"/g)].map((m) => m[1] ?? ""))];
const idOf = (location: string | undefined): string => (location ?? "").split("/").pop() ?? "";
const entry = (title: string, more: Record<string, string> = {}): Record<string, string> => ({
  title,
  notes: "",
  contact: "",
  amount: "",
  people: "",
  ...more,
});

describe("Search", () => {
  it("finds the person's records by words in any text field, in Latin, Cyrillic, Arabic and CJK text", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    const add = async (who: typeof ada, path: string, form: Record<string, string>): Promise<string> => {
      const res = await who.post(path, form);
      assert.equal(res.status, 303, res.body);
      return idOf(res.location);
    };
    const lisbon = await add(ada, "/trips", entry("Lisbon", { notes: "Café on the Praça\nthen the tram" }));
    const moscow = await add(ada, "/trips", entry("Командировка", { notes: "Москва, Красная площадь" }));
    const cairo = await add(ada, "/trips", entry("رحلة عمل", { notes: "القاهرة في الربيع" }));
    const tokyo = await add(ada, "/trips", entry("東京出張", { notes: "会議は北京でも" }));
    const mail = await add(ada, "/trips", entry("Porto", { contact: "ops@harbour.example" }));
    const bobs = await add(bob, "/trips", entry("Lisbon", { notes: "Café" }));

    const search = async (q: string, who = ada, path = "/trips"): Promise<string[]> => {
      const res = await who.get(`${path}?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, res.body);
      return ids(res.body).sort();
    };
    assert.deepEqual(await search("lisbon"), [lisbon], "Latin, case aside; never another owner's record");
    assert.deepEqual(await search("cafe praca"), [lisbon], "accents aside, every word, across lines");
    assert.deepEqual(await search("москва"), [moscow], "Cyrillic, case aside");
    assert.deepEqual(await search("القاهرة"), [cairo], "Arabic");
    assert.deepEqual(await search("東京出張"), [tokyo], "CJK, no spaces between words");
    assert.deepEqual(await search("北京"), [tokyo], "two CJK characters: under the trigram's three");
    assert.deepEqual(await search("harbour"), [mail], "an email address is searched");
    assert.deepEqual(await search("lisbon tokyo"), [], "every word must match");
    assert.deepEqual(await search("100%"), [], "LIKE wildcards are text");
    assert.deepEqual(await search('"'), [], "a quote is text");
    assert.deepEqual(await search("lisbon", bob), [bobs], "bob finds his own only");
    const page = await ada.get("/trips?q=lisbon");
    assert.ok(page.body.includes('<input id="filter-q" name="q" type="search" value="lisbon" data-search>'), "the box keeps the words");
    assert.ok(page.body.includes('href="/trips.csv?q=lisbon"'), "the export link carries the search");
  });

  it("stays in sync on update and delete, for both stores", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    for (const path of ["/trips", "/diary"]) {
      const created = await ada.post(path, entry("Lisbon", { notes: "harbour" }));
      const id = idOf(created.location);
      const version = /name="version" value="([0-9]+)"/.exec((await ada.get(`${path}/${id}`)).body)?.[1] ?? "";
      const updated = await ada.post(`${path}/${id}`, { ...entry("Porto", { notes: "harbour" }), version });
      assert.equal(updated.status, 303, updated.body);
      assert.deepEqual(ids((await ada.get(`${path}?q=lisbon`)).body), [], `${path}: the old title is gone`);
      assert.deepEqual(ids((await ada.get(`${path}?q=porto`)).body), [id], `${path}: the new title is found`);
      assert.deepEqual(ids((await ada.get(`${path}?q=harbour`)).body), [id], `${path}: the unchanged notes still are`);
      assert.equal((await ada.post(`${path}/${id}/delete`, {})).status, 303);
      assert.deepEqual(ids((await ada.get(`${path}?q=porto`)).body), [], `${path}: a deleted record is not found`);
    }
    assert.equal((app.db.prepare("SELECT count(*) AS n FROM trips_search").get() as { n: number }).n, 0, "nothing left in the index");
  });

  it("drops a record's text from the index however the record is deleted, as lib/account deletes a person's rows", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    await ada.post("/trips", entry("Lisbon", { notes: "harbour" }));
    const owner = (app.db.prepare("SELECT owner FROM trips").get() as { owner: string }).owner;
    app.db.prepare("DELETE FROM trips WHERE owner = ?").run(owner);
    assert.equal(
      (app.db.prepare("SELECT count(*) AS n FROM trips_search").get() as { n: number }).n,
      0,
      "no text of a deleted record kept",
    );
  });

  it("combines with filters, sorting and keyset pages", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    for (let i = 1; i <= LIST_PAGE_SIZE + 5; i++) {
      await ada.post("/trips", entry(`report ${i}`, { amount: `${i}.00` }));
      await ada.post("/trips", entry(`other ${i}`, { amount: `${i}.00` }));
    }
    const first = await ada.get("/trips?q=report&amount_min=3&sort=amount&dir=asc");
    assert.equal(first.status, 200);
    const titles = (body: string): string[] => [...body.matchAll(/<a href="\/trips\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1] ?? "");
    const wanted = Array.from({ length: LIST_PAGE_SIZE + 3 }, (_, i) => `report ${i + 3}`);
    assert.deepEqual(titles(first.body), wanted.slice(0, LIST_PAGE_SIZE));
    const next = /<a rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    assert.match(next, /q=report/, "the next page keeps the search");
    assert.deepEqual(titles((await ada.get(next)).body), wanted.slice(LIST_PAGE_SIZE));
  });

  it("finds a word few of the person's records hold among their own matches, the pages those of the list", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    // Sorted by amount, ada's 100 taxis come first: in the list's order the harbour page does not fill within the rows a
    // search reads that way (table.ts #search), so it asks the index for ada's matches; bob's 100 harbours are not hers.
    for (let i = 1; i <= 25; i++) assert.equal((await ada.post("/trips", entry(`harbour ${i}`, { amount: `${100 + i}.00` }))).status, 303);
    for (let i = 1; i <= 100; i++) assert.equal((await ada.post("/trips", entry(`taxi ${i}`, { amount: `${i}.00` }))).status, 303);
    for (let i = 1; i <= 100; i++) assert.equal((await bob.post("/trips", entry(`harbour of bob ${i}`))).status, 303);
    const titles = (body: string): string[] => [...body.matchAll(/<a href="\/trips\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1] ?? "");
    const harbours = Array.from({ length: 25 }, (_, i) => `harbour ${i + 1}`);
    const first = await ada.get("/trips?q=harbour&sort=amount&dir=asc");
    assert.deepEqual(titles(first.body), harbours.slice(0, LIST_PAGE_SIZE));
    const next = /<a rel="next" href="([^"]+)"/.exec(first.body)?.[1]?.replaceAll("&amp;", "&") ?? "";
    assert.deepEqual(titles((await ada.get(next)).body), harbours.slice(LIST_PAGE_SIZE));
    assert.deepEqual(
      titles((await ada.get("/trips?q=harbour&sort=amount&dir=desc")).body),
      harbours.slice(-LIST_PAGE_SIZE).reverse(),
      "the same records read the other way",
    );
    const taxis = Array.from({ length: LIST_PAGE_SIZE }, (_, i) => `taxi ${i + 1}`);
    assert.deepEqual(titles((await ada.get("/trips?q=taxi&sort=amount&dir=asc")).body), taxis, "a word many hold: read in order");
    assert.ok(
      titles((await bob.get("/trips?q=harbour")).body).every((title) => title.startsWith("harbour of bob")),
      "bob finds his own only",
    );
  });

  it("starts every search row with its owner's tag, and tags the rows of a database from before the tag at boot", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    assert.equal((await ada.post("/trips", entry("Lisbon", { notes: "harbour" }))).status, 303);
    assert.equal((await bob.post("/trips", entry("Porto"))).status, 303);
    const rows = () =>
      app.db.prepare("SELECT t.owner, s.body FROM trips t JOIN trips_search s ON s.rowid = t.rowid ORDER BY t.title").all();
    const [adas, bobs] = (app.db.prepare("SELECT owner FROM trips ORDER BY title").pluck().all() as string[]).map(ownerTag);
    assert.deepEqual(rows(), [
      { owner: "ada@example.com", body: `${adas}\nLisbon\nharbour` },
      { owner: "bob@example.com", body: `${bobs}\nPorto` },
    ]);
    assert.notEqual(adas, bobs);
    for (const tag of [adas, bobs]) {
      assert.equal([...(tag ?? "")].length, 3);
      assert.ok(
        [...(tag ?? "")].every((c) => c.codePointAt(0)! >= 0xf0000 && c.codePointAt(0)! <= 0xffffd),
        "Supplementary Private Use Area-A",
      );
    }
    // As a database from before the tag: the rows hold the text alone, and the step is not recorded.
    app.db.exec(`UPDATE trips_search SET body = substr(body, 5); DELETE FROM latch_schema WHERE name = 'resource/trips/003-search-owner';`);
    const { applySchema } = await import("../../lib/db/index.ts");
    assert.deepEqual(applySchema(app.db, resourceSchema(trips)), ["resource/trips/003-search-owner"]);
    assert.deepEqual(rows(), [
      { owner: "ada@example.com", body: `${adas}\nLisbon\nharbour` },
      { owner: "bob@example.com", body: `${bobs}\nPorto` },
    ]);
  });

  it("refuses more than SEARCH_MAX_WORDS words and more than FILTER_MAX_LENGTH characters, naming the box", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");
    assert.equal((await ada.get(`/trips?q=${encodeURIComponent(words(SEARCH_MAX_WORDS))}`)).status, 200);
    const many = await ada.get(`/trips?q=${encodeURIComponent(words(SEARCH_MAX_WORDS + 1))}`);
    assert.equal(many.status, 400);
    assert.ok(many.body.includes(`data-error-for="q" role="alert">Use at most ${SEARCH_MAX_WORDS} words.</p>`), many.body);
    assert.equal((await ada.get(`/trips?q=${"a".repeat(FILTER_MAX_LENGTH)}`)).status, 200);
    assert.equal((await ada.get(`/trips?q=${"a".repeat(FILTER_MAX_LENGTH + 1)}`)).status, 400);
    assert.equal((await ada.get(`/trips.csv?q=${encodeURIComponent(words(SEARCH_MAX_WORDS + 1))}`)).status, 400);
  });

  it("indexes the records already there when the search steps are applied", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const id = idOf((await ada.post("/trips", entry("Lisbon", { notes: "harbour", contact: "ops@quay.example" }))).location);
    // As a database from before search: the index and its steps gone, then the steps applied again at boot.
    app.db.exec(
      `DROP TABLE trips_search; DROP TRIGGER trips_search_delete; DELETE FROM latch_schema WHERE name LIKE 'resource/trips/%search%';`,
    );
    const { applySchema } = await import("../../lib/db/index.ts");
    const applied = applySchema(app.db, resourceSchema(trips));
    assert.deepEqual(applied, [
      "resource/trips/002-search",
      "resource/trips/search-title",
      "resource/trips/search-notes",
      "resource/trips/search-contact",
      "resource/trips/003-search-owner",
    ]);
    const tag = ownerTag(app.db.prepare("SELECT owner FROM trips").pluck().get() as string);
    assert.equal(app.db.prepare("SELECT body FROM trips_search").pluck().get(), `${tag}\nLisbon\nharbour\nops@quay.example`);
    assert.deepEqual(ids((await ada.get("/trips?q=quay")).body), [id]);
    assert.deepEqual(applySchema(app.db, resourceSchema(trips)), [], "a restart applies nothing");
  });
});

describe("CSV export", () => {
  it("writes the filtered, sorted list as RFC 4180 UTF-8 with a BOM, formulas neutralised", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const bob = client(app, await app.signIn("bob@example.com"));
    await ada.post("/trips", entry('=HYPERLINK("http://evil.example")', { amount: "-12.50", people: "-3" }));
    await ada.post("/trips", entry('Lisbon, "old town"', { notes: "line one\nline two", amount: "3.00" }));
    for (const start of ["+1", "-1", "@SUM(A1)", "\tx"]) await ada.post("/trips", entry(`x${start}`, { notes: start }));
    await ada.post("/trips", entry("Cheap", { amount: "1.00" }));
    await bob.post("/trips", entry("Bob's", { amount: "2.00" }));

    const res = await ada.get("/trips.csv?amount_max=5&sort=amount&dir=desc");
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers["content-type"], "text/csv; charset=utf-8; header=present");
    assert.equal(res.headers["content-disposition"], 'attachment; filename="trips.csv"');
    assert.ok(res.body.startsWith("\uFEFFid,title,notes,contact,amount,people,created_at,updated_at\r\n"), "BOM, then the header");
    // Each data row without its id (first) and its two times (last): title, notes, contact, amount, people.
    const rows = res.body
      .split("\r\n")
      .slice(1, -1)
      .map((l) => l.replace(/^[^,]+,/, "").replace(/,[^,]+,[^,]+$/, ""));
    assert.deepEqual(
      rows,
      ['"Lisbon, ""old town""","line one\nline two",,3.00,', "Cheap,,,1.00,", `"'=HYPERLINK(""http://evil.example"")",,,-12.50,-3`],
      "quoted where needed, filtered and sorted, bob's record absent, numbers left as numbers",
    );

    const text = (await ada.get("/trips.csv?q=x")).body;
    // A tab is a separator too: the field holding one is quoted (csv-formulas.test.ts).
    for (const start of ["'+1", "'-1", "'@SUM(A1)", `"'\tx"`])
      assert.ok(text.includes(`,${start},`), `${JSON.stringify(start)} neutralised`);
    // A form's text never starts with a carriage return (a Textarea's line breaks are LF): the field itself neutralises one.
    assert.equal(csvField("\rx"), `"'\rx"`);
    assert.equal(csvField("-1", true), "-1", "a number latch writes is left as it is");
  });

  it("streams 10,000 rows, every one of them", async (t) => {
    const app = await start(t);
    const ada = client(app, await app.signIn("ada@example.com"));
    const owner = (app.db.prepare("SELECT DISTINCT subject FROM sessions").get() as { subject: string } | undefined)?.subject ?? "";
    const total = 10_000;
    const insert = app.db.prepare(
      "INSERT INTO trips (id, owner, created_at, updated_at, title, notes, contact, amount, people) VALUES (?, ?, ?, ?, ?, '', '', 100, 1)",
    );
    app.db.transaction(() => {
      for (let i = 0; i < total; i++) insert.run(`r${String(i).padStart(5, "0")}`, owner, i, i, `row ${i}`);
    })();
    const res = await ada.get("/trips.csv?sort=id&dir=asc");
    assert.equal(res.status, 200);
    assert.equal(res.headers["transfer-encoding"], "chunked", "streamed, no length known up front");
    const lines = res.body.split("\r\n");
    assert.equal(lines.length, total + 2, "header, every row, the final CRLF");
    assert.ok(total > CSV_CHUNK * 2, "more rows than several chunks");
    const expected = Array.from(
      { length: total },
      (_, i) => `r${String(i).padStart(5, "0")},row ${i},,,1.00,1,${new Date(i).toISOString()},${new Date(i).toISOString()}\r\n`,
    ).join("");
    assert.equal(Buffer.byteLength(res.body.slice(res.body.indexOf("\r\n") + 2)), Buffer.byteLength(expected));
    assert.equal(res.body.slice(res.body.indexOf("\r\n") + 2), expected);
  });
});

describe("CSV export, streamed", () => {
  it("sends its first rows before it reads the last ones: a record added while the download runs is in it", async (t) => {
    const app = await start(t);
    const jar = await app.signIn("ada@example.com");
    const owner = (app.db.prepare("SELECT DISTINCT subject FROM sessions").get() as { subject: string } | undefined)?.subject ?? "";
    // 10,000 records of 2,000 characters of notes: 20 MB, more than the socket buffers hold.
    const notes = "n".repeat(2000);
    const insert = app.db.prepare(
      "INSERT INTO trips (id, owner, created_at, updated_at, title, notes, contact, amount, people) VALUES (?, ?, ?, ?, ?, ?, '', NULL, NULL)",
    );
    app.db.transaction(() => {
      for (let i = 0; i < 10_000; i++) insert.run(`r${String(i).padStart(5, "0")}`, owner, i, i, `row ${i}`, notes);
    })();
    const { chunks, body } = await new Promise<{ chunks: number; body: string }>((resolve, reject) => {
      const req = http.get(`${app.base}/trips.csv?sort=id&dir=asc`, { headers: { Cookie: jar.header() ?? "" } }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (part: Buffer) => {
          // The first bytes are here: a record sorted after every other one, added now, is in the export only if the rest is read later.
          if (parts.length === 0) insert.run("r99999", owner, 1, 1, "added while downloading", "");
          parts.push(part);
        });
        res.on("end", () => resolve({ chunks: parts.length, body: Buffer.concat(parts).toString("utf8") }));
        res.on("error", reject);
      });
      req.on("error", reject);
    });
    const lines = body.split("\r\n");
    assert.equal(lines.length, 10_000 + 3, "header, every row, the one added, the final CRLF");
    assert.match(lines[10_001] ?? "", /^r99999,added while downloading,/, "read after the first bytes were sent");
    assert.ok(chunks > 10_000 / CSV_CHUNK, `arrived in many pieces (${chunks})`);
  });
});

describe("Search through the list tool", () => {
  it("takes q as the list page does, over the tools endpoint and MCP: with a filter, a sort and the next page", async (t) => {
    const app = await startTransportsApp(t, { resource: trips });
    const store = app.mounted?.Store;
    assert.ok(store !== undefined);
    // The Store takes an amount as its tools give it: a decimal string (README "Values by kind").
    const add = (owner: string, title: string, amount: number, notes = ""): string =>
      store.create({ owner, actor: humanActor() }, { title, notes, contact: "", amount: `${amount / 100}.00`, people: null }).id;
    const wanted: string[] = [];
    for (let i = 1; i <= LIST_PAGE_SIZE + 3; i++) {
      wanted.push(add(SUBJECT, `report ${i}`, i * 100));
      add(SUBJECT, `other ${i}`, i * 100);
    }
    const tokyo = add(SUBJECT, "出張", 100, "東京の会議");
    add("bob@example.com", "report by bob", 5000);
    const token = app.mint("read", "claude");

    const listed = await app.mcp(token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const tools = (
      JSON.parse(listed.body) as { result: { tools: { name: string; inputSchema: { properties: Record<string, unknown> } }[] } }
    ).result.tools;
    const q = tools.find((x) => x.name === "trips_list")?.inputSchema.properties["q"] as { type: string; description: string } | undefined;
    assert.equal(q?.type, "string", "the JSON schema documents q");
    assert.match(q?.description ?? "", new RegExp(`at most ${SEARCH_MAX_WORDS} words and ${FILTER_MAX_LENGTH} characters`));

    type Page = { items: { id: string; title: string }[]; next: string | null };
    const overHTTP = async (args: Record<string, unknown>): Promise<Page> => {
      const res = await app.tools(token, "trips_list", args);
      assert.equal(res.status, 200, res.body);
      return (JSON.parse(res.body) as { result: Page }).result;
    };
    const overMCP = async (args: Record<string, unknown>): Promise<Page> => {
      const answer = await app.mcpCall(token, "trips_list", args);
      const result = answer["result"] as { isError?: boolean; content: { text: string }[] };
      assert.notEqual(result.isError, true, JSON.stringify(answer));
      return JSON.parse(result.content[0]?.text ?? "") as Page;
    };
    for (const call of [overHTTP, overMCP]) {
      app.clock.advance(5000);
      const first = await call({ q: "REPORT", amount_min: "3", sort: "amount", dir: "asc" });
      assert.deepEqual(
        first.items.map((r) => r.id),
        wanted.slice(2, 2 + LIST_PAGE_SIZE),
        "searched, filtered, sorted; never bob's",
      );
      assert.ok(first.next !== null);
      const second = await call({ q: "REPORT", amount_min: "3", sort: "amount", dir: "asc", after: first.next });
      assert.deepEqual(
        second.items.map((r) => r.id),
        wanted.slice(2 + LIST_PAGE_SIZE),
      );
      assert.deepEqual(
        (await call({ q: "東京" })).items.map((r) => r.id),
        [tokyo],
        "a two-character CJK word",
      );
    }
    const many = await app.tools(token, "trips_list", { q: Array.from({ length: SEARCH_MAX_WORDS + 1 }, (_, i) => `w${i}`).join(" ") });
    assert.equal(many.status, 400);
    assert.match(JSON.parse(many.body).error, new RegExp(`^q: Use at most ${SEARCH_MAX_WORDS} words\\.$`));
  });
});
