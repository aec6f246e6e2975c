import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Access, ToolRead, ToolWrite } from "../../lib/agent/index.ts";
import { isAccess } from "../../lib/agent/access.ts";

describe("Access.String()", () => {
  it('is "read" for ToolRead and "write" for ToolWrite', () => {
    assert.equal(Access.String(ToolRead), "read");
    assert.equal(Access.String(ToolWrite), "write");
    assert.equal(Access.String(Access.ToolRead), "read");
    assert.equal(Access.String(Access.ToolWrite), "write");
    assert.deepEqual(Object.keys(Access), ["ToolRead", "ToolWrite", "String"]);
  });
  it("gives the text toString() and String() give", () => {
    for (const a of [ToolRead, ToolWrite]) {
      assert.equal(Access.String(a), a.toString());
      assert.equal(Access.String(a), String(a));
    }
  });
  it("throws for anything else", () => {
    for (const value of ["READ", "", "execute"]) {
      const a: unknown = value;
      assert.equal(isAccess(a), false);
      assert.throws(
        () => Access.String(a as Access),
        (e: unknown) => e instanceof Error && "code" in e && e.code === "ERR_AGENT_INVALID_ACCESS",
      );
    }
  });
});
