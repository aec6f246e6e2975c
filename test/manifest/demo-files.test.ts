/*
 * Attachments (issue 43, item 2), black box on the demo (`node dist/examples/demo/main.js`, real SMTP, real HTTP, the
 * MCP SDK client): an expense's receipt uploaded on its page downloads as an attachment with nosniff for its owner and
 * is 404 for another person; a 30 MB upload over the 10 MiB cap is refused without the demo's memory growing by the
 * file's size (its peak RSS, read from /proc, around the upload); an executable named .pdf is refused, by the form and
 * by the tool; a person's quota past its end is refused with the reason; `expenses_attach` attaches a file after its
 * person approves a page naming the record, the field, the file's name, type and size, over HTTP and over MCP, up to
 * ATTACH_TOOL_MAX_BYTES and not a byte more.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ATTACHMENT_QUOTA_PER_PERSON, FILE_MAX_BYTES_DEFAULT, FILE_NAME_MAX_LENGTH } from "../../lib/manifest/attachments.ts";
import { ATTACH_TOOL_MAX_BYTES } from "../../lib/manifest/files-tool.ts";
import { callTool, mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";
import { connectMCP } from "../_support/mcp-client.ts";
import { sendChunked } from "../_support/uploads.ts";

const BOUNDARY = "----latchdemo7MA4YWxkTrZu0gW";
// ISO 32000-2 §7.5.2: "%PDF-"; ASCII throughout, so the download compares as text.
const PDF = Buffer.from("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n");
// PNG §5.2: the signature, then bytes enough to make a file.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(120, 7)]);
// System V ABI §4 (0x7f "ELF") and the PE/COFF "MZ" stub: executables, whatever their names say.
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(64)]);
const MZ = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(62, 0x90)]);

const head = (filename: string): string =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`;
const TAIL = `\r\n--${BOUNDARY}--\r\n`;

/** A PDF of `size` bytes: its signature, then filler. */
const pdfOf = (size: number): Buffer => Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(size - 9, 0x20)]);

/** The demo process's resident memory now and its peak since `resetPeak` (Linux /proc/<pid>/status, bytes). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}
/** proc(5) clear_refs: "5" resets the peak resident set size to the current one. */
const resetPeak = (pid: number): void => writeFileSync(`/proc/${pid}/clear_refs`, "5");

describe("demo: an expense's receipt (upload, download, limits, expenses_attach over HTTP and MCP)", () => {
  let demo: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  let token: string;
  const page = (jar: CookieJar, path: string, language = "en"): Promise<TestResponse> =>
    sendRequest(demo.origin, "GET", path, { jar, headers: { "Accept-Language": language } }, demo.origin);
  const post = (jar: CookieJar, path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar, form }, demo.origin);
  const upload = (jar: CookieJar, id: string, filename: string, bytes: Buffer): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `/expenses/${id}/files/receipt`,
      {
        jar,
        headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
        body: Buffer.concat([Buffer.from(head(filename)), bytes, Buffer.from(TAIL)]),
      },
      demo.origin,
    );
  const call = (tool: string, args: Record<string, unknown>, bearer = token): Promise<TestResponse> => callTool(demo, bearer, tool, args);
  // A new expense of the person signed in with `jar`: its id, from where its creation redirects.
  const expense = async (jar: CookieJar, label: string): Promise<string> => {
    const created = await post(jar, "/expenses", { label, amount: "12.50", spent_on: "2026-03-01" });
    const id = created.location?.split("/").pop() ?? "";
    assert.ok(created.status === 303 && id !== "", `${created.status} ${created.location ?? ""}`);
    return id;
  };
  const approve = async (approvalURL: string): Promise<string> => {
    const path = new URL(approvalURL).pathname;
    const shown = await page(ada, path);
    assert.equal((await post(ada, path, { decision: "approve" })).status, 200);
    return shown.body;
  };

  before(async () => {
    demo = await startDemo();
    ada = await signInOverHTTP(demo, "ada-files@example.com");
    bob = await signInOverHTTP(demo, "bob-files@example.com");
    token = await mintAgentToken(demo, ada, "clerk", "write");
  });
  after(async () => {
    await demo?.close();
  });

  it("a PDF uploaded on the record's page downloads as an attachment with nosniff for its owner, and is 404 for another", async () => {
    const id = await expense(ada, "Hotel Lyon");
    const record = await page(ada, `/expenses/${id}`);
    assert.match(
      record.body,
      /<form class="resource-file" method="post" enctype="multipart\/form-data" action="\/expenses\/[^"]+\/files\/receipt"/,
    );
    assert.match(record.body, /<label>Receipt <input type="file" name="file" accept="application\/pdf,image\/png,image\/jpeg" required>/);
    assert.doesNotMatch(record.body, /files\/receipt" download>/);

    const sent = await upload(ada, id, "Hôtel Lyon.pdf", PDF);
    assert.equal(sent.status, 303, sent.body);
    assert.equal(sent.location, `/expenses/${id}?saved=1`);
    const saved = (await page(ada, `/expenses/${id}`)).body;
    assert.match(saved, new RegExp(`<a href="/expenses/${id}/files/receipt" download>Download</a>`));
    // The field holds the attachment's id, which says nothing to a person: the record and its history say a file is there.
    assert.equal(/<dd data-value="receipt"[^>]*>(.*?)<\/dd>/s.exec(saved)?.[1]?.trim(), "File attached");
    assert.match(saved, /<tr data-change="receipt">.*?<td data-after><span dir="auto">File attached<\/span><\/td>/s);
    const got = await page(ada, `/expenses/${id}/files/receipt`);
    assert.equal(got.status, 200);
    assert.equal(got.headers["content-type"], "application/pdf");
    assert.equal(got.headers["content-disposition"], `attachment; filename="H_tel Lyon.pdf"; filename*=UTF-8''H%C3%B4tel%20Lyon.pdf`);
    assert.equal(got.headers["x-content-type-options"], "nosniff");
    assert.equal(got.body, PDF.toString());
    // SPEC §7: another person's record's file is as missing as an unknown one, and so is the record's page.
    for (const path of [`/expenses/${id}/files/receipt`, `/expenses/${id}`]) {
      const theirs = await page(bob, path);
      assert.equal(theirs.status, 404, path);
      assert.ok(!theirs.body.includes("%PDF"), path);
    }
    assert.equal((await upload(bob, id, "mine.pdf", PDF)).status, 404);
  });

  it("refuses a 30 MB upload over the 10 MiB cap (413) without its memory growing by the file's size", async () => {
    assert.equal(FILE_MAX_BYTES_DEFAULT, 10 * 1024 * 1024);
    const id = await expense(ada, "Big scan");
    const total = 30 * 1000 * 1000;
    // Chunked, no Content-Length: the demo learns the size only by reading the bytes as they come.
    const send = (): Promise<number> =>
      sendChunked({
        url: `${demo.origin}/expenses/${id}/files/receipt`,
        headers: { Origin: demo.origin, Cookie: ada.header() ?? "", "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
        head: `${head("big.pdf")}%PDF-1.7\n`,
        total,
        tail: TAIL,
      });
    // A process's first large upload grows its memory by what a streamed read leaves to the collector (about 20 MB for
    // 9 MB, measured), kept for the next: an accepted 9 MB scan comes first, then the refused 30 MB one is weighed.
    assert.equal((await upload(ada, await expense(ada, "Scan"), "scan.pdf", pdfOf(9 * 1000 * 1000))).status, 303);
    const before = memory(demo.pid);
    resetPeak(demo.pid);
    assert.equal(await send(), 413);
    const grown = memory(demo.pid).peak - before.rss;
    // The demo held pieces of the body, never the file: its peak resident memory grew by less than the file's size
    // (about 17 MB measured with both cores busy; 46 MB when the handler read the whole body before refusing it).
    assert.ok(grown < total, `the demo's peak RSS grew by ${grown} bytes for a ${total}-byte upload`);
    assert.doesNotMatch((await page(ada, `/expenses/${id}`)).body, /files\/receipt" download>/);
    // Declared: refused before a byte of it is read.
    const declared = await upload(ada, id, "big.pdf", pdfOf(FILE_MAX_BYTES_DEFAULT + 1));
    assert.equal(declared.status, 413);
  });

  it("refuses an executable named .pdf (415), on the form and through expenses_attach", async () => {
    const id = await expense(ada, "Taxi");
    for (const bytes of [ELF, MZ]) {
      assert.equal((await upload(ada, id, "receipt.pdf", bytes)).status, 415);
      const res = await call("expenses_attach", { id, field: "receipt", name: "receipt.pdf", content_base64: bytes.toString("base64") });
      // Refused by the tool's dry run: no approval is asked for.
      assert.equal(res.status, 415, res.body);
      assert.match(res.body, /attach expenses\.receipt: not one of application\/pdf, image\/png, image\/jpeg/);
    }
    assert.doesNotMatch((await page(ada, `/expenses/${id}`)).body, /files\/receipt" download>/);
  });

  it("expenses_attach over HTTP: the approval page names the record, field, file name, type and size; then the file is the record's", async () => {
    const id = await expense(ada, "Museum");
    const args = { id, field: "receipt", name: "ticket.png", content_base64: PNG.toString("base64") };
    const held = await call("expenses_attach", args);
    assert.equal(held.status, 202, held.body);
    const approval = await approve((JSON.parse(held.body) as { approval_url: string }).approval_url);
    assert.match(approval, /data-preview="update"/);
    assert.match(approval, /<strong data-record-title dir="auto">Museum<\/strong>/);
    assert.match(approval, /<tr data-change="receipt"><th scope="row">Receipt<\/th>/);
    assert.match(approval, /<td data-after><span data-agent-text dir="auto">ticket\.png \(image\/png, 128 bytes\)<\/span>/);
    // Never the bytes themselves.
    assert.ok(!approval.includes(args.content_base64.slice(0, 40)));

    const done = await call("expenses_attach", args);
    assert.equal(done.status, 200, done.body);
    const { result } = JSON.parse(done.body) as { result: { field: string; file: { name: string; type: string; size: number } } };
    assert.deepEqual(
      [result.field, result.file.name, result.file.type, result.file.size],
      ["receipt", "ticket.png", "image/png", PNG.length],
    );
    const got = await page(ada, `/expenses/${id}/files/receipt`);
    assert.equal(got.headers["content-disposition"], `attachment; filename="ticket.png"; filename*=UTF-8''ticket.png`);
    assert.equal(got.headers["content-type"], "image/png");
    assert.equal(Number(got.headers["content-length"]), PNG.length);
    // A second file replaces the first; the approval shows what it replaces.
    const again = { ...args, name: "scan.pdf", content_base64: PDF.toString("base64") };
    const second = await approve((JSON.parse((await call("expenses_attach", again)).body) as { approval_url: string }).approval_url);
    assert.match(second, /<td data-before><span dir="auto">ticket\.png \(image\/png, 128 bytes\)<\/span>/);
    assert.equal((await call("expenses_attach", again)).status, 200);
    assert.equal((await page(ada, `/expenses/${id}/files/receipt`)).body, PDF.toString());
  });

  it(`expenses_attach over MCP, up to ATTACH_TOOL_MAX_BYTES (${ATTACH_TOOL_MAX_BYTES}) with the longest name, and not a byte more`, async () => {
    // 45 KiB: its base64 and the rest of a call fit the 64 KiB body both endpoints read (lib/manifest README "Attachments").
    assert.equal(ATTACH_TOOL_MAX_BYTES, 45 * 1024);
    const id = await expense(ada, "Conference");
    const name = `${"Ü".repeat(FILE_NAME_MAX_LENGTH - 4)}.pdf`;
    const largest = { id, field: "receipt", name, content_base64: pdfOf(ATTACH_TOOL_MAX_BYTES).toString("base64") };
    const client = await connectMCP(demo, token);
    try {
      const asked = (await client.callTool({ name: "expenses_attach", arguments: largest })) as CallToolResult;
      await approve((asked.structuredContent as { approval_url: string }).approval_url);
      const done = (await client.callTool({ name: "expenses_attach", arguments: largest })) as CallToolResult;
      assert.notEqual(done.isError, true, JSON.stringify(done.content));
      const file = (done.structuredContent as { file: { name: string; size: number } }).file;
      assert.deepEqual([file.name, file.size], [name, ATTACH_TOOL_MAX_BYTES]);

      const over = { ...largest, content_base64: pdfOf(ATTACH_TOOL_MAX_BYTES + 1).toString("base64") };
      const refused = (await client.callTool({ name: "expenses_attach", arguments: over })) as CallToolResult;
      assert.equal(refused.isError, true);
      assert.match(
        JSON.stringify(refused.content),
        /content_base64 holds more than 46080 bytes; upload a larger file at \/expenses\/\{id\}\/files\/receipt/,
      );
    } finally {
      await client.close();
    }
    const viaHTTP = await call("expenses_attach", { ...largest, content_base64: pdfOf(ATTACH_TOOL_MAX_BYTES + 1).toString("base64") });
    assert.equal(viaHTTP.status, 413, viaHTTP.body);
    const notBase64 = await call("expenses_attach", { ...largest, content_base64: "JVBERi0*" });
    assert.equal(notBase64.status, 400, notBase64.body);
    assert.match(notBase64.body, /content_base64 is not base64/);
  });

  it("refuses a file past the person's quota (413), naming it, on the form and through expenses_attach", async () => {
    assert.equal(ATTACHMENT_QUOTA_PER_PERSON, 200 * 1024 * 1024);
    const carol = await signInOverHTTP(demo, "carol-files@example.com");
    const carolToken = await mintAgentToken(demo, carol, "filler", "write");
    // Filled with the largest files a receipt takes: 20 of 10 MiB are the quota exactly.
    const full = pdfOf(FILE_MAX_BYTES_DEFAULT);
    for (let n = 0; n < ATTACHMENT_QUOTA_PER_PERSON / FILE_MAX_BYTES_DEFAULT; n++) {
      const sent = await upload(carol, await expense(carol, `Scan ${n}`), "scan.pdf", full);
      assert.equal(sent.status, 303, `file ${n}: ${sent.status}`);
    }
    const id = await expense(carol, "One more");
    const over = await upload(carol, id, "small.pdf", PDF);
    assert.equal(over.status, 413);
    await demo.waitForLog(/upload expenses\.receipt: over the quota of 209715200 bytes per person; delete files first/);
    const res = await call(
      "expenses_attach",
      { id, field: "receipt", name: "small.pdf", content_base64: PDF.toString("base64") },
      carolToken,
    );
    assert.equal(res.status, 413, res.body);
    assert.match(res.body, /attach expenses\.receipt: over the quota of 209715200 bytes per person; delete files first/);
    // Another person's quota is their own.
    assert.equal((await upload(ada, await expense(ada, "Still mine"), "small.pdf", PDF)).status, 303);
  });
});
