/*
 * A grant's agent name (lib/oauth grants.ts `mintGrant`): the client's name, unique among the person's live tokens, and
 * never the name of the application's scheduled work (`Actor.System`, "agent:system"), which no token may sign as.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Actor, AgentTokens, Schema as agentSchema } from "../../lib/agent/index.ts";
import { applySchema } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import type { AuthorizationRequest } from "../../lib/oauth/authorize-request.ts";
import { mintGrant } from "../../lib/oauth/grants.ts";
import { open } from "../_support/db.ts";

function request(name: string): AuthorizationRequest {
  const client = { ClientID: "https://client.test/meta.json", Name: name, RedirectURIs: [], Host: "client.test", GrantTypes: [] };
  return { client, redirectURI: "http://127.0.0.1/cb", state: undefined, challenge: "c", resource: "r", access: "read", fields: [] };
}

describe("mintGrant()", () => {
  it("names a client called System system-2, and the next one system-3: agent:system stays the scheduled work's", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, [...session.Schema, ...agentSchema]);
    const tokens = new AgentTokens(db);
    for (const name of ["System", "SYSTEM", "Claude"]) assert.equal(typeof mintGrant(tokens, "ada@example.com", request(name)), "string");
    const names = tokens.list("ada@example.com").map((token) => token.Name);
    assert.deepEqual(names.toSorted(), ["claude", "system-2", "system-3"]);
    assert.equal(Actor.System.String(), "agent:system");
  });
});
