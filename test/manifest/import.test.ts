/*
 * What an import reads of a CSV (lib/manifest/csv-read.ts, import-rows.ts; README "Import"): the export's text read
 * back exactly, its formula neutralisation taken off and nothing else; a byte order mark dropped; the delimiter read
 * from the header; rows numbered as a spreadsheet numbers them; pieces split anywhere (inside a CRLF, inside a UTF-8
 * character) read the same; each bound (cell, columns) a row's error, bytes that are no UTF-8 a refusal; and the rows
 * written a batch per transaction, progress told after each.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { humanActor } from "../../lib/agent/index.ts";
import { OpenDB } from "../../lib/db/index.ts";
import { EventStore, Schema as EventsSchema } from "../../lib/events/index.ts";
import { applySchema } from "../../lib/db/index.ts";
import { Kind, Resource, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { csvField } from "../../lib/manifest/csv.ts";
import {
  CSVRefused,
  csvRows,
  csvTextRows,
  detectDelimiter,
  IMPORT_CELL_MAX,
  IMPORT_CELL_MIN,
  IMPORT_COLUMNS_MAX,
  importCellMax,
  unneutralised,
  type CSVRow,
} from "../../lib/manifest/csv-read.ts";
import { IMPORT_PENDING_MS, IMPORT_MAX_BYTES } from "../../lib/manifest/import.ts";
import {
  cellMaxOf,
  IMPORT_BATCH,
  IMPORT_ERRORS_SHOWN,
  IMPORT_PREVIEW_ROWS,
  importCreate,
  previewImport,
  writeImport,
} from "../../lib/manifest/import-rows.ts";
import { IMPORT_SAMPLE_ROWS } from "../../lib/manifest/import-tool.ts";
import { References } from "../../lib/manifest/references.ts";
import { resourceSchema } from "../../lib/manifest/schema.ts";
import { exclusiveStore } from "../../lib/manifest/store.ts";

async function all(rows: AsyncIterable<CSVRow>): Promise<CSVRow[]> {
  const out: CSVRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}
const plain = (rows: readonly CSVRow[]) => rows.map((r) => ({ line: r.line, cells: r.cells, ...(r.problem && { problem: r.problem }) }));

describe("import: reading a CSV", () => {
  it("takes off exactly the apostrophe the export put before a formula, and keeps every other text as it is", () => {
    const texts = [
      "=1+1",
      "+41 22",
      "-12",
      "@SUM(A1)",
      "\tx",
      "\rx",
      "x;=1",
      "a\n=b",
      "'=quoted",
      "''=twice",
      "'plain",
      "it's",
      "=",
      "plain",
    ];
    for (const text of texts)
      assert.equal(
        unneutralised(/^"(.*)"$/s.exec(csvField(text))?.[1]?.replaceAll('""', '"') ?? csvField(text)),
        text,
        JSON.stringify(text),
      );
    // A cell the export did not write (no apostrophe) is kept verbatim: never evaluated.
    assert.equal(unneutralised('=HYPERLINK("http://x")'), '=HYPERLINK("http://x")');
  });

  it("reads the delimiter from the header: the most frequent outside quotes, a comma when none", () => {
    assert.equal(detectDelimiter("a,b,c"), ",");
    assert.equal(detectDelimiter("a;b;c"), ";");
    assert.equal(detectDelimiter("a\tb"), "\t");
    assert.equal(detectDelimiter('"a;b;c",d'), ",");
    assert.equal(detectDelimiter("single"), ",");
  });

  it("numbers rows as a spreadsheet does: the header is 1, a quoted line break stays in its row, a blank line counts", () => {
    const text = '\uFEFFtitle;body\r\nOne;"two\r\nlines"\r\n\r\nThree;"say ""hi"""\nFour;\r\n';
    assert.deepEqual(plain(csvTextRows(text, IMPORT_CELL_MIN)), [
      { line: 1, cells: ["title", "body"] },
      { line: 2, cells: ["One", "two\r\nlines"] },
      { line: 4, cells: ["Three", 'say "hi"'] },
      { line: 5, cells: ["Four", ""] },
    ]);
  });

  it("reads the same rows whatever the pieces: split inside a CRLF, inside a quote, inside a UTF-8 character", async () => {
    const bytes = Buffer.from('\uFEFFname,note\r\nZoë,"a ""b"", c"\r\n日本,"x\r\ny"\r\n', "utf8");
    const whole = await all(csvRows([bytes], IMPORT_CELL_MIN));
    const oneByOne = await all(
      csvRows(
        [...bytes].map((b) => Uint8Array.of(b)),
        IMPORT_CELL_MIN,
      ),
    );
    assert.deepEqual(plain(oneByOne), plain(whole));
    assert.deepEqual(whole[1]?.cells, ["Zoë", 'a "b", c']);
    assert.deepEqual(whole[2]?.cells, ["日本", "x\r\ny"]);
  });

  it("bounds a cell by twice the longest text of the resource, at least IMPORT_CELL_MIN, at most IMPORT_CELL_MAX", () => {
    assert.equal(IMPORT_CELL_MIN, 8192);
    assert.equal(IMPORT_CELL_MAX, 100_000);
    const field = (Kind: string, MaxLength?: number) => ({ Name: "f", Label: "f", Kind, ...(MaxLength && { MaxLength }) }) as never;
    assert.equal(importCellMax([field(Kind.Text), field(Kind.Integer)]), IMPORT_CELL_MIN);
    assert.equal(importCellMax([field(Kind.Text), field(Kind.Textarea, 6000)]), 12_000);
    assert.equal(importCellMax([field(Kind.Textarea, 50_000)]), IMPORT_CELL_MAX);
  });

  it("makes a cell longer than its bound, more than IMPORT_COLUMNS_MAX cells and a broken quote its row's error", () => {
    assert.equal(IMPORT_COLUMNS_MAX, 256);
    const IMPORT_CELL_MAX = IMPORT_CELL_MIN;
    const rows = csvTextRows(
      [
        "a,b",
        `${"x".repeat(IMPORT_CELL_MAX)},ok`,
        `${"x".repeat(IMPORT_CELL_MAX + 1)},no`,
        Array(IMPORT_COLUMNS_MAX + 1)
          .fill("c")
          .join(","),
        Array(IMPORT_COLUMNS_MAX).fill("c").join(","),
        '"a"b,c',
        '"open',
      ].join("\n"),
      IMPORT_CELL_MAX,
    );
    assert.deepEqual(
      rows.map((r) => r.problem),
      [undefined, undefined, "cell_too_long", "columns", undefined, "quote", "quote"],
    );
    assert.equal(rows[2]?.cells[0]?.length, IMPORT_CELL_MAX);
  });

  it("refuses bytes that are not UTF-8", async () => {
    await assert.rejects(all(csvRows([Buffer.from("name\n"), Uint8Array.of(0xff, 0xfe, 0x41)], IMPORT_CELL_MIN)), CSVRefused);
  });
});

describe("import: checking and writing rows", () => {
  const errands = new Resource({
    Name: "errands",
    Route: "/errands",
    Store: StoreKind.Exclusive,
    Scope: ScopeKind.UserScoped,
    List: { Columns: [{ Field: "title" }] },
    Form: {
      Fields: [
        { Name: "title", Label: "errands.title", Kind: Kind.Text, Required: true },
        { Name: "hours", Label: "errands.hours", Kind: Kind.Integer },
      ],
    },
  });
  const world = () => {
    const db = OpenDB(":memory:");
    applySchema(db, [...EventsSchema, ...resourceSchema(errands)]);
    const refs = new References(db, errands, new EventStore(db));
    return { db, refs };
  };
  const file = (n: number, bad: (i: number) => boolean = () => false): string =>
    ["title,hours", ...Array.from({ length: n }, (_, i) => `Errand ${i},${bad(i) ? "many" : i}`)].join("\n");

  it("pins the import's bounds", () => {
    assert.equal(IMPORT_MAX_BYTES, 32 * 1024 * 1024);
    assert.equal(IMPORT_PENDING_MS, 60 * 60 * 1000);
    assert.equal(IMPORT_SAMPLE_ROWS, 5);
  });

  it("previews IMPORT_PREVIEW_ROWS rows and lists IMPORT_ERRORS_SHOWN rows with errors, counting the rest", async () => {
    const { db, refs } = world();
    const rows = IMPORT_ERRORS_SHOWN + 20;
    const preview = await previewImport(csvRows([Buffer.from(file(rows, () => true))], IMPORT_CELL_MIN), errands, refs, "ann");
    assert.equal(preview.rows, rows);
    assert.equal(preview.sample.length, IMPORT_PREVIEW_ROWS);
    assert.equal(IMPORT_PREVIEW_ROWS, 10);
    assert.equal(preview.rowsWithErrors, rows);
    assert.equal(preview.errors.length, IMPORT_ERRORS_SHOWN);
    assert.equal(IMPORT_ERRORS_SHOWN, 1000);
    assert.deepEqual(preview.errors[0], {
      line: 2,
      given: {},
      errors: [{ field: "hours", problem: { key: "resource.err.integer_invalid", args: {} } }],
    });
    db.close();
  });

  it("writes IMPORT_BATCH rows per transaction, telling progress after each batch", async () => {
    assert.equal(IMPORT_BATCH, 500);
    const { db, refs } = world();
    const rows = 2 * IMPORT_BATCH + 7;
    const batches: number[] = [];
    let inTransaction = 0;
    const insert = db.prepare("INSERT INTO errands (id, owner, title, hours, created_at, updated_at) VALUES (?, 'ann', ?, ?, 0, 0)");
    const outcome = await writeImport(csvRows([Buffer.from(file(rows, (i) => i === 3))], IMPORT_CELL_MIN), {
      spec: errands,
      refs,
      owner: "ann",
      db,
      t: (key) => key,
      create: (given) => {
        if (db.inTransaction) inTransaction += 1;
        insert.run(`id-${String(given["title"])}`, given["title"], Number(given["hours"]));
        return { id: `id-${String(given["title"])}`, version: 0 };
      },
      landed: () => {},
      progress: (done) => batches.push(done),
    });
    assert.deepEqual(batches, [IMPORT_BATCH, 2 * IMPORT_BATCH, rows]);
    assert.equal(inTransaction, rows - 1);
    assert.deepEqual(outcome, { imported: rows - 1, skipped: [{ line: 5, reason: "hours: resource.err.integer_invalid" }] });
    assert.equal(db.prepare("SELECT count(*) FROM errands").pluck().get(), rows - 1);
    db.close();
  });

  it("tells of a batch's records only once it committed: a batch rolled back tells nothing", async () => {
    const { db, refs } = world();
    const insert = db.prepare("INSERT INTO errands (id, owner, title, hours, created_at, updated_at) VALUES (?, 'ann', ?, 0, 0, 0)");
    const told: string[] = [];
    let committed = 0;
    const failing = writeImport(csvRows([Buffer.from(file(IMPORT_BATCH + 10))], IMPORT_CELL_MIN), {
      spec: errands,
      refs,
      owner: "ann",
      db,
      t: (key) => key,
      create: (given) => {
        // A fault that is no refusal (a disk error, a bug) in the second batch: that batch is rolled back whole.
        if (given["title"] === `Errand ${IMPORT_BATCH + 5}`) throw new Error("disk full");
        const id = `id-${String(given["title"])}`;
        insert.run(id, given["title"]);
        return { id, version: 1 };
      },
      landed: (record) => {
        // Heard after the commit: the record is there for whoever the feed tells.
        if (!db.inTransaction && db.prepare("SELECT 1 FROM errands WHERE id = ?").get(record.id) !== undefined) committed += 1;
        told.push(record.id);
      },
    });
    await assert.rejects(failing, /disk full/);
    assert.equal(db.prepare("SELECT count(*) FROM errands").pluck().get(), IMPORT_BATCH);
    assert.equal(told.length, IMPORT_BATCH);
    assert.equal(committed, IMPORT_BATCH);
    assert.equal(told.at(-1), `id-Errand ${IMPORT_BATCH - 1}`);
    db.close();
  });

  it("reads back what the export wrote of a Textarea of MaxLength 50,000: its longest value, neutralised everywhere", async () => {
    const memos = new Resource({
      Name: "memos",
      Route: "/memos",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.UserScoped,
      List: { Columns: [{ Field: "title" }] },
      Form: {
        Fields: [
          { Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true },
          { Name: "body", Label: "memos.body", Kind: Kind.Textarea, MaxLength: 50_000 },
        ],
      },
    });
    memos.Validate();
    const db = OpenDB(":memory:");
    applySchema(db, [...EventsSchema, ...resourceSchema(memos)]);
    const events = new EventStore(db);
    const refs = new References(db, memos, events);
    const store = exclusiveStore(db, memos, events);
    // 50,000 characters, an apostrophe before all but the first on export (a tab after a tab starts a formula): 99,999 in its cell.
    const body = `a${"\t".repeat(49_998)}z`;
    const csv = `title,body\r\n${csvField("Long")},${csvField(body)}\r\n`;
    const who = { owner: "ann", actor: humanActor() };
    const outcome = await writeImport(csvRows([Buffer.from(csv)], cellMaxOf(memos, refs)), {
      spec: memos,
      refs,
      owner: "ann",
      db,
      t: (key) => key,
      create: importCreate(memos, (key) => key, store, who),
      landed: () => {},
    });
    assert.deepEqual(outcome, { imported: 1, skipped: [] });
    assert.equal(db.prepare("SELECT body FROM memos").pluck().get(), body);
    db.close();
  });
});
