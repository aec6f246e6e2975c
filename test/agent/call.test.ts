import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { assertConfirmed, defineAction, parseToolCall, ToolRead, ToolWrite } from "../../lib/agent/index.ts";

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
const read = defineAction({ name: "list_invoices", method: "GET", route: "/invoices", tool: { Description: "Lists", Access: ToolRead }, handler });

function assertCode(fn: () => unknown, code: string): void {
  assert.throws(fn, (e: unknown) => e instanceof Error && "code" in e && e.code === code && "status" in e && e.status === 400);
}

describe("assertConfirmed()", () => {
  it("passes a write call only with confirmed: true", () => {
    assertConfirmed(write, { confirmed: true });
    for (const confirmed of [undefined, false, "true", 1, "yes", null]) assertCode(() => assertConfirmed(write, { confirmed }), "ERR_AGENT_UNCONFIRMED");
  });
  it("passes every read call", () => {
    assertConfirmed(read, {});
    assertConfirmed(read, { confirmed: false });
  });
});

describe("parseToolCall()", () => {
  it("narrows declared arguments and records confirmation", () => {
    const call = parseToolCall(write, JSON.parse('{"confirmed":true,"args":{"id":"inv_1","title":"Q3","cents":1200,"notify":false}}'));
    assert.deepEqual([...call.Args], [["id", "inv_1"], ["title", "Q3"], ["cents", 1200], ["notify", false]]);
    assert.equal(call.Confirmed, true);
    assert.equal(parseToolCall(read, {}).Confirmed, false);
    assert.equal(parseToolCall(write, { confirmed: true, args: { id: "a", title: "b" } }).Args.has("cents"), false);
  });
  const bad: { name: string; body: unknown; code: string }[] = [
    { name: "a non-object body", body: "x", code: "ERR_AGENT_INVALID_CALL" },
    { name: "an array body", body: [], code: "ERR_AGENT_INVALID_CALL" },
    { name: "a null body", body: null, code: "ERR_AGENT_INVALID_CALL" },
    { name: "non-object args", body: { confirmed: true, args: [1] }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "a missing required argument", body: { confirmed: true, args: { id: "a" } }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "a mistyped argument", body: { confirmed: true, args: { id: "a", title: 5 } }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "a non-finite number", body: { confirmed: true, args: { id: "a", title: "b", cents: Infinity } }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "an unknown argument", body: { confirmed: true, args: { id: "a", title: "b", admin: true } }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "a __proto__ argument", body: JSON.parse('{"confirmed":true,"args":{"id":"a","title":"b","__proto__":{}}}'), code: "ERR_AGENT_INVALID_CALL" },
    { name: "a string confirmed", body: { confirmed: "true", args: { id: "a", title: "b" } }, code: "ERR_AGENT_INVALID_CALL" },
    { name: "an unconfirmed write", body: { args: { id: "a", title: "b" } }, code: "ERR_AGENT_UNCONFIRMED" },
    { name: "a write confirmed false", body: { confirmed: false, args: { id: "a", title: "b" } }, code: "ERR_AGENT_UNCONFIRMED" },
  ];
  for (const { name, body, code } of bad) it(`refuses ${name}`, () => assertCode(() => parseToolCall(write, body), code));
  it("keeps unknown argument names out of the message", () => {
    assert.throws(() => parseToolCall(read, { args: { "<script>": 1 } }), (e: unknown) => e instanceof Error && !e.message.includes("<script>"));
  });
});
