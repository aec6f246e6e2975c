import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Access, AccessString, isAccess, ToolRead, ToolWrite } from "../../lib/agent/index.ts";

describe("AccessString()", () => {
  it('is "read" for ToolRead and "write" for ToolWrite', () => {
    assert.equal(AccessString(ToolRead), "read");
    assert.equal(AccessString(ToolWrite), "write");
    assert.equal(AccessString(Access.ToolRead), "read");
    assert.equal(AccessString(Access.ToolWrite), "write");
    assert.deepEqual(Object.keys(Access), ["ToolRead", "ToolWrite"]);
  });
  it("throws for anything else", () => {
    for (const value of ["READ", "", "execute"]) {
      const a: unknown = value;
      assert.equal(isAccess(a), false);
      assert.throws(() => AccessString(a as Access), (e: unknown) => e instanceof Error && "code" in e && e.code === "ERR_AGENT_INVALID_ACCESS");
    }
  });
});
