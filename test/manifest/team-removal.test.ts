/*
 * Issue 38 (4), a removal takes effect at once, for what agents do: a removed member's agent token reaches nothing of
 * the team over the tools endpoint and MCP (every call asks `roleOf` again), a viewer's agent writes nothing, and the
 * member's approvals waiting for the team's records are voided: never approved afterwards, their page saying why.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { teamWorld, type TeamWorld } from "./team-world.ts";

const count = (world: TeamWorld): number => (world.app.db.prepare("SELECT count(*) AS n FROM tasks").get() as { n: number }).n;

/** The approval id of a 202 answer's `approval_url`. */
function approvalOf(answer: { status: number; body: string }): string {
  assert.equal(answer.status, 202, answer.body);
  const id = /\/approvals\/([A-Za-z0-9_-]{22})$/.exec((JSON.parse(answer.body) as { approval_url: string }).approval_url)?.[1];
  assert.ok(id, answer.body);
  return id;
}

describe("a team member's agent", () => {
  it("reaches the team with its person's role, and nothing at once after the person is removed, over /api/tools and /mcp", async (t) => {
    const world = await teamWorld(t);
    const { app, team, jars, tokens } = world;
    const bobs = tokens.mint({ Subject: "bob@example.com", Name: "bob-agent", Access: "write" }).Token;
    const cats = tokens.mint({ Subject: "cat@example.com", Name: "cat-agent", Access: "write" }).Token;
    assert.equal((await world.agentCall(bobs, "tasks_list", { team })).status, 200);
    approvalOf(await world.agentCall(bobs, "tasks_create", { team, title: "Plane boards" }));
    // A viewer's agent reads, and its write is refused before anyone is asked to approve it.
    assert.equal((await world.agentCall(cats, "tasks_list", { team })).status, 200);
    const refused = await world.agentCall(cats, "tasks_create", { team, title: "mine" });
    assert.equal(refused.status, 403, refused.body);
    assert.match(refused.body, /a viewer/);
    assert.equal((await world.mcpCall(bobs, "tasks_list", { team }))["error"], undefined);

    assert.equal((await app.post(jars.ann, `/teams/${team}/members/remove`, { member: "bob@example.com" })).status, 303);
    for (const [tool, args] of [
      ["tasks_list", { team }],
      ["tasks_create", { team, title: "Plane boards" }],
    ] as const) {
      const answer = await world.agentCall(bobs, tool, args);
      assert.equal(answer.status, 404, `${tool}: ${answer.body}`);
      const mcp = (await world.mcpCall(bobs, tool, args))["result"] as { isError?: boolean; content: { text: string }[] };
      assert.equal(mcp.isError, true, tool);
      assert.match(mcp.content[0]?.text ?? "", /no such record/, tool);
    }
    assert.equal(count(world), 0);
  });
});

describe("a team member's pending approvals", () => {
  it("are voided when the member is removed: approving one then answers as for a decided one, and its page says why", async (t) => {
    const world = await teamWorld(t);
    const { app, team, jars, tokens, approvals } = world;
    const garden = await app.createTeam(jars.ann, "Garden");
    const invited = await app.invite(jars.ann, garden, "bob@example.com", "member");
    assert.equal((await app.post(jars.bob, "/teams/join", { token: invited })).status, 303);
    const bobs = tokens.mint({ Subject: "bob@example.com", Name: "bob-agent", Access: "write" }).Token;
    const waiting = approvalOf(await world.agentCall(bobs, "tasks_create", { team, title: "Plane boards" }));
    const approved = approvalOf(await world.agentCall(bobs, "tasks_create", { team, title: "Order oak" }));
    const elsewhere = approvalOf(await world.agentCall(bobs, "tasks_create", { team: garden, title: "Sow beans" }));
    const decide = (id: string, decision: string) => app.post(jars.bob, `/approvals/${id}`, { decision });
    assert.deepEqual(JSON.parse((await decide(approved, "approve")).body).ok, true);

    assert.equal((await app.post(jars.ann, `/teams/${team}/members/remove`, { member: "bob@example.com" })).status, 303);
    for (const id of [waiting, approved]) {
      assert.deepEqual(JSON.parse((await decide(id, "approve")).body), { ok: false, reason: "decided" }, id);
      const page = JSON.parse((await app.request("GET", `/approvals/${id}`, { jar: jars.bob })).body) as Record<string, unknown>;
      assert.equal(page["Status"], "voided");
      assert.equal(page["Reason"], "voided: your membership of the team it writes to ended");
    }
    // The retried call finds no approval to spend and no team to reach; nothing is written.
    assert.equal((await world.agentCall(bobs, "tasks_create", { team, title: "Order oak" })).status, 404);
    assert.equal(count(world), 0);
    // A request for another team Bob still belongs to stays his to decide.
    assert.equal(approvals.get(elsewhere, "bob@example.com")?.Status, "pending");
    assert.equal(JSON.parse((await decide(elsewhere, "approve")).body).ok, true);
  });
});
