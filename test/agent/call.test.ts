import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { defineAction, ToolRead, ToolWrite } from "../../lib/agent/index.ts";
import { canonicalArgs, hashToolArgs, parseToolArgs } from "../../lib/agent/call.ts";

const handler = (): void => {};
const write = defineAction({
  name: "rename_invoice",
  method: "POST",
  route: "/invoices/{id}/rename",
  tool: {
    Description: "Renames an invoice",
    Access: ToolWrite,
    Confirm: "Rename this invoice?",
    Args: [
      { Name: "id", Type: "string", Required: true, Description: "Invoice id" },
      { Name: "title", Type: "string", Required: true, Description: "New title" },
      { Name: "cents", Type: "number", Description: "Amount" },
      { Name: "notify", Type: "boolean", Description: "Email the customer" },
    ],
  },
  handler,
});
const read = defineAction({
  name: "list_invoices",
  method: "GET",
  route: "/invoices",
  tool: { Description: "Lists", Access: ToolRead },
  handler,
});

describe("parseToolArgs()", () => {
  it("narrows declared arguments of each type and leaves absent optional ones absent", () => {
    const parsed = parseToolArgs(write, JSON.parse('{"id":"inv_1","title":"Q3","cents":1200,"notify":false}'));
    assert.ok(parsed.ok);
    assert.deepEqual(
      [...parsed.args],
      [
        ["id", "inv_1"],
        ["title", "Q3"],
        ["cents", 1200],
        ["notify", false],
      ],
    );
    const short = parseToolArgs(write, { id: "a", title: "b" });
    assert.ok(short.ok && !short.args.has("cents"));
    assert.deepEqual(parseToolArgs(read, {}), { ok: true, args: new Map() });
  });

  it("drops a caller's confirmed flag unread: it proves nothing", () => {
    for (const confirmed of [true, false, "yes", 1]) {
      const parsed = parseToolArgs(write, { id: "a", title: "b", confirmed });
      assert.ok(parsed.ok);
      assert.equal(parsed.args.has("confirmed"), false);
    }
  });

  const bad: { name: string; body: unknown; field: string; reason: string }[] = [
    { name: "a body that is not an object", body: "x", field: "", reason: "arguments must be a JSON object" },
    { name: "null", body: null, field: "", reason: "arguments must be a JSON object" },
    { name: "an array", body: [], field: "", reason: "arguments must be a JSON object" },
    { name: "a missing required argument", body: { id: "a" }, field: "title", reason: "is required" },
    { name: "a mistyped string", body: { id: 1, title: "b" }, field: "id", reason: "must be a string" },
    { name: "a mistyped number", body: { id: "a", title: "b", cents: "12" }, field: "cents", reason: "must be a number" },
    { name: "a mistyped boolean", body: { id: "a", title: "b", notify: "true" }, field: "notify", reason: "must be a boolean" },
    { name: "a null argument", body: { id: null, title: "b" }, field: "id", reason: "must be a string" },
    { name: "a non-finite number", body: { id: "a", title: "b", cents: Infinity }, field: "cents", reason: "must be finite" },
    { name: "an unknown argument", body: { id: "a", title: "b", admin: true }, field: "admin", reason: "is not an argument of this tool" },
  ];
  for (const row of bad) {
    it(`reports ${row.name} with its field and reason`, () => {
      assert.deepEqual(parseToolArgs(write, row.body), { ok: false, field: row.field, reason: row.reason });
    });
  }

  it("cuts an unknown argument's name to 64 characters", () => {
    const parsed = parseToolArgs(read, { ["x".repeat(500)]: 1 });
    assert.ok(!parsed.ok);
    assert.equal(parsed.field.length, 64);
  });
});

describe("hashToolArgs()", () => {
  it("is the SHA-256 of the arguments as JSON with sorted keys, whatever order they came in", () => {
    const a = parseToolArgs(write, { title: "Q3", id: "inv_1", cents: 1200 });
    const b = parseToolArgs(write, { cents: 1200.0, id: "inv_1", title: "Q3" });
    assert.ok(a.ok && b.ok);
    const want = createHash("sha256").update('{"cents":1200,"id":"inv_1","title":"Q3"}').digest("hex");
    assert.equal(hashToolArgs(a.args), want);
    assert.equal(hashToolArgs(b.args), want);
    assert.deepEqual(Object.keys(canonicalArgs(a.args)), ["cents", "id", "title"]);
  });

  it("differs for any different value, type or argument", () => {
    const hashes = [
      { id: "a", title: "b" },
      { id: "a", title: "c" },
      { id: "a", title: "b", cents: 0 },
      { id: "a", title: "b", notify: false },
      { id: "a", title: "b", notify: true },
      { id: "1", title: "b" },
    ].map((body) => {
      const parsed = parseToolArgs(write, body);
      assert.ok(parsed.ok);
      return hashToolArgs(parsed.args);
    });
    assert.equal(new Set(hashes).size, hashes.length);
  });
});
