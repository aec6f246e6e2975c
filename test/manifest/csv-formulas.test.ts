/*
 * The CSV rule for formulas (csv.ts FORMULA_START; OWASP "CSV Injection",
 * ASVS 5.0 §1.2.10; issue 36): a formula character gets a `'` wherever a
 * spreadsheet may start a cell with it, at the start of a field and after
 * a `,`, `;`, tab or line break inside it, and a field holding any of
 * those separators is quoted, so it is one cell whichever a reader splits
 * on. The pages a CSV download reads follow from DOWNLOAD_PIECE.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DOWNLOAD_PIECE } from "../../lib/internal/index.ts";
import { Kind, Resource, ScopeKind, StoreKind } from "../../lib/manifest/index.ts";
import { CSV_CHUNK, csvField, csvPage } from "../../lib/manifest/csv.ts";

describe("csvField: formulas", () => {
  it("neutralises the six OWASP prefixes and NUL at the start of a field", () => {
    assert.equal(csvField("=1+1"), "'=1+1");
    assert.equal(csvField("+1"), "'+1");
    assert.equal(csvField("-1"), "'-1");
    assert.equal(csvField("@SUM(A1)"), "'@SUM(A1)");
    assert.equal(csvField("\tx"), `"'\tx"`);
    assert.equal(csvField("\rx"), `"'\rx"`);
    assert.equal(csvField("\0x"), "'\0x");
  });

  it("neutralises a formula after a separator a spreadsheet may split on, and quotes the field", () => {
    assert.equal(csvField("x;=1+1"), `"x;'=1+1"`, "a semicolon-splitting spreadsheet sees two cells");
    assert.equal(csvField("a,=1"), `"a,'=1"`, "a reader that ignores quotes splits on the comma");
    assert.equal(csvField("a\t+1"), `"a\t'+1"`);
    assert.equal(csvField("a\n@x"), `"a\n'@x"`);
    assert.equal(csvField("a\r\n-1"), `"a\r\n'-1"`);
    assert.equal(csvField("=a;=b"), `"'=a;'=b"`, "every cell start, the first one too");
  });

  it("leaves text that starts no cell with a formula as it was, quoting only around separators and quotes", () => {
    assert.equal(csvField("x=1"), "x=1");
    assert.equal(csvField("a - b"), "a - b");
    assert.equal(csvField("a; b"), `"a; b"`);
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField("-12.50", true), "-12.50", "a number latch writes is left as it is");
  });
});

describe("csvPage", () => {
  const withText = (max: number): Resource =>
    new Resource({
      Name: "long",
      Route: "/long",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.UserScoped,
      List: { Columns: [{ Field: "body" }] },
      Form: { Fields: [{ Name: "body", Label: "long.body", Kind: Kind.Textarea, MaxLength: max }] },
    });

  it(`reads CSV_CHUNK (${CSV_CHUNK}) short records a page, fewer long ones: a page stays within DOWNLOAD_PIECE characters`, () => {
    assert.equal(DOWNLOAD_PIECE, 256 * 1024);
    assert.equal(csvPage(withText(10)), CSV_CHUNK);
    // 3 characters per character at most (a quote doubled, a `'` added), the quotes, a comma; the id and the two times.
    assert.equal(csvPage(withText(50_000)), Math.floor(DOWNLOAD_PIECE / (3 * 50_000 + 2 + 1 + 64)));
  });
});
