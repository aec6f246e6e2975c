/*
 * What an import reads of a CSV (lib/manifest/csv-read.ts, import-rows.ts; README "Import"): the export's text read
 * back exactly, its formula neutralisation taken off and nothing else; a byte order mark dropped; the delimiter read
 * from the header; rows numbered as a spreadsheet numbers them; pieces split anywhere (inside a CRLF, inside a UTF-8
 * character) read the same; each bound (cell, columns) a row's error, bytes that are no UTF-8 a refusal; and the rows
 * written a batch per transaction, progress told after each.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
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
  IMPORT_COLUMNS_MAX,
  unneutralised,
  type CSVRow,
} from "../../lib/manifest/csv-read.ts";
import { IMPORT_PENDING_MS, IMPORT_MAX_BYTES } from "../../lib/manifest/import.ts";
import { IMPORT_BATCH, IMPORT_ERRORS_SHOWN, IMPORT_PREVIEW_ROWS, previewImport, writeImport } from "../../lib/manifest/import-rows.ts";
import { IMPORT_SAMPLE_ROWS } from "../../lib/manifest/import-tool.ts";
import { References } from "../../lib/manifest/references.ts";
import { resourceSchema } from "../../lib/manifest/schema.ts";

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
    assert.deepEqual(plain(csvTextRows(text)), [
      { line: 1, cells: ["title", "body"] },
      { line: 2, cells: ["One", "two\r\nlines"] },
      { line: 4, cells: ["Three", 'say "hi"'] },
      { line: 5, cells: ["Four", ""] },
    ]);
  });

  it("reads the same rows whatever the pieces: split inside a CRLF, inside a quote, inside a UTF-8 character", async () => {
    const bytes = Buffer.from('\uFEFFname,note\r\nZoë,"a ""b"", c"\r\n日本,"x\r\ny"\r\n', "utf8");
    const whole = await all(csvRows([bytes]));
    const oneByOne = await all(csvRows([...bytes].map((b) => Uint8Array.of(b))));
    assert.deepEqual(plain(oneByOne), plain(whole));
    assert.deepEqual(whole[1]?.cells, ["Zoë", 'a "b", c']);
    assert.deepEqual(whole[2]?.cells, ["日本", "x\r\ny"]);
  });

  it("makes a cell longer than IMPORT_CELL_MAX, more than IMPORT_COLUMNS_MAX cells and a broken quote its row's error", () => {
    assert.equal(IMPORT_CELL_MAX, 8192);
    assert.equal(IMPORT_COLUMNS_MAX, 256);
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
    );
    assert.deepEqual(
      rows.map((r) => r.problem),
      [undefined, undefined, "cell_too_long", "columns", undefined, "quote", "quote"],
    );
    assert.equal(rows[2]?.cells[0]?.length, IMPORT_CELL_MAX);
  });

  it("refuses bytes that are not UTF-8", async () => {
    await assert.rejects(all(csvRows([Buffer.from("name\n"), Uint8Array.of(0xff, 0xfe, 0x41)])), CSVRefused);
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
    const preview = await previewImport(csvRows([Buffer.from(file(rows, () => true))]), errands, refs, "ann");
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
    const outcome = await writeImport(csvRows([Buffer.from(file(rows, (i) => i === 3))]), {
      spec: errands,
      refs,
      owner: "ann",
      db,
      t: (key) => key,
      create: (given) => {
        if (db.inTransaction) inTransaction += 1;
        insert.run(`id-${String(given["title"])}`, given["title"], Number(given["hours"]));
      },
      progress: (done) => batches.push(done),
    });
    assert.deepEqual(batches, [IMPORT_BATCH, 2 * IMPORT_BATCH, rows]);
    assert.equal(inTransaction, rows - 1);
    assert.deepEqual(outcome, { imported: rows - 1, skipped: [{ line: 5, reason: "hours: resource.err.integer_invalid" }] });
    assert.equal(db.prepare("SELECT count(*) FROM errands").pluck().get(), rows - 1);
    db.close();
  });
});
