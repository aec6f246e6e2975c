import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Access, accessString, isAccess, ToolRead, ToolWrite } from "../../lib/agent/index.ts";

describe("accessString()", () => {
  it('is "read" for ToolRead and "write" for ToolWrite', () => {
    assert.equal(accessString(ToolRead), "read");
    assert.equal(accessString(ToolWrite), "write");
    assert.equal(accessString(Access.ToolRead), "read");
    assert.equal(accessString(Access.ToolWrite), "write");
    assert.deepEqual(Object.keys(Access), ["ToolRead", "ToolWrite"]);
  });
  it("throws for anything else", () => {
    for (const value of ["READ", "", "execute"]) {
      const a: unknown = value;
      assert.equal(isAccess(a), false);
      assert.throws(() => accessString(a as Access), (e: unknown) => e instanceof Error && "code" in e && e.code === "ERR_AGENT_INVALID_ACCESS");
    }
  });
});
