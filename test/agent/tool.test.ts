import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ToolRead, ToolWrite, type ToolArg } from "../../lib/agent/index.ts";
import { newTool, validateTool, type ToolSpec } from "../../lib/agent/tool.ts";

const idArg: ToolArg = { Name: "id", Type: "string", Required: true, Description: "Invoice id" };

describe("validateTool()", () => {
  const cases: { name: string; spec: ToolSpec; want: string }[] = [
    { name: "empty description", spec: { Description: " ", Access: ToolRead }, want: "empty Description" },
    { name: "unknown access", spec: { Description: "d", Access: "admin" as typeof ToolRead }, want: "Access" },
    { name: "write tool without confirm", spec: { Description: "d", Access: ToolWrite }, want: "Confirm sentence" },
    { name: "write tool with a blank confirm", spec: { Description: "d", Access: ToolWrite, Confirm: "  " }, want: "Confirm sentence" },
    { name: "read tool with a confirm", spec: { Description: "d", Access: ToolRead, Confirm: "Sure?" }, want: "read tool" },
    { name: "bad argument name", spec: { Description: "d", Access: ToolRead, Args: [{ ...idArg, Name: "Id" }] }, want: "argument name" },
    { name: "empty argument name", spec: { Description: "d", Access: ToolRead, Args: [{ ...idArg, Name: "" }] }, want: "argument name" },
    { name: "reserved argument", spec: { Description: "d", Access: ToolRead, Args: [{ ...idArg, Name: "confirmed" }] }, want: "reserved" },
    { name: "duplicate argument", spec: { Description: "d", Access: ToolRead, Args: [idArg, idArg] }, want: "duplicate argument id" },
    {
      name: "unknown argument type",
      spec: { Description: "d", Access: ToolRead, Args: [{ ...idArg, Type: "date" as "string" }] },
      want: "Type must be",
    },
    {
      name: "argument without description",
      spec: { Description: "d", Access: ToolRead, Args: [{ ...idArg, Description: "" }] },
      want: "argument id: empty",
    },
  ];
  for (const { name, spec, want } of cases) {
    it(`rejects a ${name}`, () => {
      assert.throws(
        () => validateTool(spec),
        (e: unknown) => e instanceof Error && "code" in e && e.code === "ERR_AGENT_INVALID_TOOL" && e.message.includes(want),
      );
    });
  }
  it("accepts a confirmed write tool and a plain read tool", () => {
    validateTool({ Description: "Deletes", Access: ToolWrite, Confirm: "Delete it?", Args: [idArg] });
    validateTool({ Description: "Lists", Access: ToolRead });
  });
});

describe("newTool()", () => {
  it("fills defaults and freezes the result", () => {
    const tool = newTool({ Description: "Lists", Access: ToolRead });
    assert.deepEqual({ ...tool }, { Description: "Lists", Access: "read", Args: [], Confirm: "", Destructive: false });
    assert.ok(Object.isFrozen(tool) && Object.isFrozen(tool.Args));
  });
  it("copies arguments so later edits to the spec do not leak in", () => {
    const args = [{ ...idArg }];
    const tool = newTool({ Description: "Deletes", Access: ToolWrite, Confirm: "Delete it?", Args: args });
    args.push({ ...idArg, Name: "other" });
    assert.equal(tool.Args.length, 1);
    assert.ok(Object.isFrozen(tool.Args[0]));
  });
  it("throws as validateTool does", () => {
    assert.throws(() => newTool({ Description: "Deletes", Access: ToolWrite }), /a write tool needs a Confirm sentence/);
  });
});
