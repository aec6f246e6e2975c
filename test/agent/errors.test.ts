import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { AgentError, isAgentError } from "../../lib/agent/index.ts";
import { AGENT_ERROR_CODES } from "../../lib/agent/errors.ts";

describe("AGENT_ERROR_CODES", () => {
  it("pins the number of codes", () => assert.equal(Object.keys(AGENT_ERROR_CODES).length, 12));
  it("has each key equal to its code", () => {
    for (const [key, value] of Object.entries(AGENT_ERROR_CODES)) assert.equal(key, value);
  });
});

describe("isAgentError()", () => {
  it("recognises an AgentError by code", () => {
    const e = new AgentError("ERR_AGENT_INVALID_CALL", "call tool: x");
    assert.equal(e.name, "AgentError");
    assert.equal(isAgentError(e), true);
    assert.equal(isAgentError(new Error("x")), false);
    assert.equal(isAgentError("ERR_AGENT_INVALID_CALL"), false);
  });
});
