/*
 * A resource's CSV import (issue 43, item 5), black box on the demo (`node dist/examples/demo/main.js`, real SMTP and
 * HTTP): the demo's own export imported into a fresh account recreates the records, references resolved by name; a bad
 * row is shown on the preview with its line as a spreadsheet numbers it (a quoted line break stays in its row) and the
 * import is refused until it is fixed; a file with a byte order mark and semicolons; formula cells stored as text; the
 * import runs as a job, each record attributed to the person; an agent's import is one approval showing the count and
 * a sample.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OpenDB, type DB } from "../../lib/db/index.ts";
import { IMPORT_MAX_BYTES } from "../../lib/manifest/import.ts";
import { IMPORT_SAMPLE_ROWS } from "../../lib/manifest/import-tool.ts";
import { MULTIPART_HEAD_LIMIT } from "../../lib/manifest/multipart.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

const BOUNDARY = "----latch-import-test";

/** A multipart body with one part "file" holding `text`. */
function multipart(text: string | Buffer, filename = "records.csv"): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.isBuffer(text) ? text : Buffer.from(text, "utf8"),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** The cells of a CSV export without the columns an import does not keep (ids, times), rows sorted. */
function comparable(csv: string): string[][] {
  const [header, ...rows] = csv
    .replace(/^\uFEFF/, "")
    .trimEnd()
    .split("\r\n")
    .map((line) => line.split(","));
  const kept = (header ?? []).map((c, i) => (["id", "created_at", "updated_at", "expense"].includes(c) ? -1 : i)).filter((i) => i >= 0);
  return [kept.map((i) => header![i]!), ...rows.map((r) => kept.map((i) => r[i] ?? "")).sort()];
}

describe("demo: a resource's CSV import", () => {
  let demo: Demo;
  let ada: CookieJar;
  let carol: CookieJar;
  let db: DB;
  const get = (jar: CookieJar, path: string): Promise<TestResponse> => sendRequest(demo.origin, "GET", path, { jar }, demo.origin);
  const post = (jar: CookieJar, path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar, form }, demo.origin);
  const upload = (jar: CookieJar, route: string, text: string | Buffer): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `${route}/import`,
      { jar, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` }, body: multipart(text) },
      demo.origin,
    );
  /** Uploads `text`, returns the preview page's path and body. */
  const preview = async (jar: CookieJar, route: string, text: string | Buffer): Promise<{ path: string; body: string }> => {
    const sent = await upload(jar, route, text);
    assert.equal(sent.status, 303, sent.body);
    const path = sent.location ?? "";
    assert.match(path, new RegExp(`^${route}/import\\?upload=[A-Za-z0-9_-]+$`));
    const shown = await get(jar, path);
    assert.equal(shown.status, 200);
    return { path, body: shown.body };
  };
  /** Confirms the upload at `path`, follows its job to the end; returns the outcome page. */
  const confirm = async (jar: CookieJar, path: string): Promise<string> => {
    const route = path.split("/import?")[0] ?? "";
    const started = await post(jar, `${route}/import/confirm`, { upload: new URLSearchParams(path.split("?")[1]).get("upload") ?? "" });
    assert.equal(started.status, 303, started.body);
    assert.match(started.location ?? "", /^\/jobs\/[A-Za-z0-9_-]+$/);
    // The status page answers 303 to the job's Location once the job is done.
    for (let tries = 0; tries < 2000; tries++) {
      const status = await get(jar, started.location ?? "");
      if (status.status === 303) {
        assert.equal(status.location, path);
        return (await get(jar, path)).body;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error("the import job did not finish");
  };

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-import@example.com");
    carol = await signInOverHTTP(demo, "carol-import@example.com");
    db = OpenDB(join(demo.stateDir, "demo.db"));
  });
  after(async () => {
    db?.close();
    await demo?.close();
  });

  it("imports the demo's own export into a fresh account: the same values, references resolved by name, each record the person's", async () => {
    for (const form of [
      { label: "Train to Lyon", amount: "12.50", spent_on: "2026-03-01", category: "travel", reimbursed_on: "2026-03-05" },
      { label: '=HYPERLINK("http://x.example")', amount: "-3.20", spent_on: "", category: "other" },
      { label: 'Lunch, with "quotes"', amount: "8.00", spent_on: "2026-03-02", category: "meals" },
    ])
      assert.equal((await post(ada, "/expenses", form)).status, 303);
    const lunch = String(db.prepare("SELECT id FROM expenses WHERE label LIKE 'Lunch%'").pluck().get());
    assert.equal((await post(ada, "/notes", { title: "-receipt lost", body: "first line\n=second line", expense: lunch })).status, 303);
    assert.equal((await post(ada, "/notes", { title: "No expense", body: "" })).status, 303);
    const expenses = (await get(ada, "/expenses.csv")).body;
    const notes = (await get(ada, "/notes.csv")).body;

    // The list links to the import.
    assert.match((await get(carol, "/expenses")).body, /<a href="\/expenses\/import" data-import>Import CSV<\/a>/);
    const first = await preview(carol, "/expenses", expenses);
    assert.match(first.body, /data-import-rows="3"/);
    assert.doesNotMatch(first.body, /data-import-errors/);
    assert.match(first.body, /<tr data-column="id"><td>id<\/td><td>Not imported: a new record gets its own<\/td><\/tr>/);
    assert.match(await confirm(carol, first.path), /data-import-state="done" data-imported="3"/);
    const second = await preview(carol, "/notes", notes);
    assert.match(second.body, /data-import-rows="2"/);
    assert.match(await confirm(carol, second.path), /data-imported="2"/);

    // The same records: carol's export holds ada's values, the note's expense by the same name (a new id).
    assert.deepEqual(comparable((await get(carol, "/expenses.csv")).body), comparable(expenses));
    assert.deepEqual(comparable((await get(carol, "/notes.csv")).body), comparable(notes));
    const note = db
      .prepare("SELECT title, body, expense FROM notes WHERE owner = ? AND title LIKE '%receipt%'")
      .get("carol-import@example.com") as {
      title: string;
      body: string;
      expense: string;
    };
    // OWASP CSV injection: the export's apostrophe is taken off, the text kept as typed, never evaluated.
    assert.deepEqual(note, {
      title: "-receipt lost",
      body: "first line\n=second line",
      expense: String(
        db.prepare("SELECT id FROM expenses WHERE owner = ? AND label LIKE 'Lunch%'").pluck().get("carol-import@example.com"),
      ),
    });
    assert.notEqual(note.expense, lunch);
    assert.equal(
      db.prepare("SELECT label FROM expenses WHERE owner = ? AND amount = -320").pluck().get("carol-import@example.com"),
      '=HYPERLINK("http://x.example")',
    );
    // Each record's creation is carol's own (actor human, her the subject).
    const events = db
      .prepare(
        "SELECT actor, subject, count(*) AS n FROM events WHERE type IN ('expenses.created', 'notes.created') AND subject = ? GROUP BY actor, subject",
      )
      .all("carol-import@example.com");
    assert.deepEqual(events, [{ actor: "human", subject: "carol-import@example.com", n: 5 }]);
  });

  it("shows a bad row on the preview with its line as a spreadsheet numbers it, and refuses the import until it is fixed", async () => {
    const csv = 'title,body\r\nFirst,"a body\r\nover two lines"\r\nSecond,fine\r\n,no title here\r\nFourth,"x"y\r\n';
    const { path, body } = await preview(carol, "/notes", csv);
    assert.match(body, /data-import-rows="4"/);
    assert.match(body, /data-import-errors="2"/);
    // Line 4: the header is line 1, the quoted line break leaves "First" one row (line 2).
    assert.match(body, /<li data-error-line="4">Line 4: Title: This field is required\.<\/li>/);
    assert.match(body, /<li data-error-line="5">Line 5: A quoted cell is not closed properly\.<\/li>/);
    assert.doesNotMatch(body, /data-import-confirm/);
    const upload = new URLSearchParams(path.split("?")[1]).get("upload") ?? "";
    const refused = await post(carol, "/notes/import/confirm", { upload });
    assert.equal(refused.status, 422);
    // Another person's upload is as missing as an unknown one.
    assert.equal((await get(ada, path)).status, 404);
    assert.equal((await post(ada, "/notes/import/confirm", { upload })).status, 404);
    assert.equal(db.prepare("SELECT count(*) FROM notes WHERE title = 'Second'").pluck().get(), 0);
  });

  it("refuses a file that is not UTF-8 or names a column twice (422), keeping nothing", async () => {
    const latin1 = await upload(carol, "/notes", Buffer.from("title\nCaf\xe9\n", "latin1"));
    assert.equal(latin1.status, 422);
    assert.match(latin1.body, /<p class="notice bad" role="alert" data-import-refused="not_utf8">The file is not UTF-8 text/);
    const twice = await upload(carol, "/notes", "title,body,title\nA,B,C\n");
    assert.equal(twice.status, 422);
    assert.match(twice.body, /data-import-refused="twice">The column &quot;title&quot; is named twice\./);
    // Neither file is kept, nor carol's earlier upload to notes (one waiting upload per person and resource).
    assert.deepEqual(readdirSync(join(demo.stateDir, "imports", "notes")), []);
  });

  it("reads a file with a byte order mark and semicolons, and one with tabs", async () => {
    const semicolons = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from("label;amount;category\r\nBOM taxi;7.10;travel\r\n", "utf8"),
    ]);
    const first = await preview(carol, "/expenses", semicolons);
    assert.match(first.body, /<tr data-column="label"><td>label<\/td><td>Label<\/td><\/tr>/);
    assert.match(await confirm(carol, first.path), /data-imported="1"/);
    const tabs = await preview(carol, "/expenses", "label\tamount\tunknown\nTab bus\t2.40\tx\n");
    assert.match(tabs.body, /<tr data-column="unknown"><td>unknown<\/td><td>Not a field: ignored<\/td><\/tr>/);
    assert.match(await confirm(carol, tabs.path), /data-imported="1"/);
    assert.deepEqual(
      db
        .prepare("SELECT label, amount, category FROM expenses WHERE owner = ? AND label IN ('BOM taxi', 'Tab bus') ORDER BY label")
        .all("carol-import@example.com"),
      [
        { label: "BOM taxi", amount: 710, category: "travel" },
        { label: "Tab bus", amount: 240, category: "" },
      ],
    );
  });

  it("takes one upload per person and resource: another while the first is received is a 409, the first lands", async () => {
    const directory = join(demo.stateDir, "imports", "notes");
    const before = new Set(readdirSync(directory));
    const body = multipart("title,body\nHeld open,while another comes\n");
    // The first upload's body is sent but for its last bytes, held open until the second is answered.
    const split = body.length - 8;
    const first = request(new URL("/notes/import", demo.origin), {
      method: "POST",
      agent: false,
      headers: {
        Origin: demo.origin,
        Cookie: ada.header() ?? "",
        "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
        "Content-Length": String(body.length),
      },
    });
    const answered = new Promise<{ status: number; location: string }>((resolve, reject) => {
      first.on("response", (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: String(res.headers.location ?? "") });
      });
      first.on("error", reject);
    });
    first.write(body.subarray(0, split));
    // Its file is being written: the server took its slot and is reading its body.
    let receiving: string[] = [];
    for (let tries = 0; tries < 2000 && receiving.length === 0; tries++) {
      receiving = readdirSync(directory).filter((name) => !before.has(name));
      if (receiving.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(receiving.length, 1);
    const second = await upload(ada, "/notes", "title\nSecond\n");
    assert.equal(second.status, 409);
    assert.match(second.body, /data-status="409"/);
    assert.deepEqual(
      readdirSync(directory).filter((name) => !before.has(name)),
      receiving,
    );
    first.end(body.subarray(split));
    const landed = await answered;
    assert.equal(landed.status, 303);
    assert.match((await get(ada, landed.location)).body, /data-import-rows="1"/);
    // Once received and waiting, another upload replaces it: one file of the person's, the first's page gone.
    const replacing = await preview(ada, "/notes", "title\nThird\n");
    assert.equal((await get(ada, landed.location)).status, 404);
    assert.notEqual(replacing.path, landed.location);
    assert.equal(readdirSync(directory).filter((name) => !before.has(name)).length, 1);
  });

  it("refuses an upload declared larger than IMPORT_MAX_BYTES before reading it (413)", async () => {
    const declared = IMPORT_MAX_BYTES + 2 * MULTIPART_HEAD_LIMIT + 1;
    const answer = await new Promise<number>((resolve, reject) => {
      const url = new URL("/expenses/import", demo.origin);
      const req = request(url, {
        method: "POST",
        agent: false,
        headers: {
          Origin: demo.origin,
          Cookie: carol.header() ?? "",
          "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
          "Content-Length": String(declared),
        },
      });
      req.on("response", (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on("error", reject);
      req.write(multipart("label\n").subarray(0, 64));
    });
    assert.equal(answer, 413);
  });

  it("an agent's import is one approval showing the count and a sample, and each record is the agent's", async () => {
    const token = await mintAgentToken(demo, carol, "importer", "write");
    const rows = Array.from({ length: 7 }, (_, i) => `Agent row ${i + 1},${i + 1}.00`);
    const args = { csv: ["label,amount", ...rows].join("\n") };
    const call = (): Promise<TestResponse> =>
      sendRequest(
        demo.origin,
        "POST",
        "/api/tools/expenses_import",
        { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
        demo.origin,
      );
    const held = await call();
    assert.equal(held.status, 202, held.body);
    const approval = new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname;
    const page = (await get(carol, approval)).body;
    assert.match(page, /<strong data-record-title dir="auto">Records to create: 7<\/strong>/);
    const sample = [...page.matchAll(/<tr data-value="line-(\d+)">/g)].map((m) => Number(m[1]));
    assert.deepEqual(sample, [2, 3, 4, 5, 6].slice(0, IMPORT_SAMPLE_ROWS));
    assert.match(page, /Label: Agent row 1 · Amount: 1\.00/);
    assert.equal((await post(carol, approval, { decision: "approve" })).status, 200);
    const done = await call();
    assert.equal(done.status, 200, done.body);
    assert.deepEqual((JSON.parse(done.body) as { result: unknown }).result, { imported: 7, skipped: [] });
    assert.deepEqual(
      db
        .prepare(
          "SELECT actor, count(*) AS n FROM events WHERE type = 'expenses.created' AND subject = ? AND actor LIKE 'agent:%' GROUP BY actor",
        )
        .all("carol-import@example.com"),
      [{ actor: "agent:importer", n: 7 }],
    );
    // A row with errors: refused naming its line, nobody asked to approve.
    args.csv = "label,amount\nFine,1.00\nBad,12,50\n";
    const refused = await call();
    assert.equal(refused.status, 422, refused.body);
    assert.match(refused.body, /line 3: /);
  });
});
