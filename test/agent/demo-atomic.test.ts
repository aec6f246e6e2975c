/*
 * The demo's token and approval pages: minting, revoking and deciding each
 * commit with their audit event or not at all. The failure is injected from
 * a second connection to the demo's database, a trigger that RAISEs on the
 * events insert, as a full disk would refuse it.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { OpenDB, type DB } from "../../lib/db/index.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";

const ADA = "ada-atomic@example.com";

describe("demo: a token or approval change and its audit event", () => {
  let demo: Demo;
  let db: DB;
  let jar: CookieJar;
  before(async () => {
    demo = await startDemo();
    db = OpenDB(join(demo.stateDir, "demo.db"));
    jar = await signInOverHTTP(demo, ADA);
  });
  after(async () => {
    db.close();
    await demo.close();
  });

  const refuseEvents = (): (() => void) => {
    db.exec(
      "CREATE TRIGGER refuse_events BEFORE INSERT ON events WHEN NEW.type LIKE 'agent.%' BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END",
    );
    return () => db.exec("DROP TRIGGER refuse_events");
  };
  const post = (path: string, form: Record<string, string>): Promise<{ status: number }> =>
    sendRequest(demo.origin, "POST", path, { jar, form }, demo.origin);
  const one = (sql: string, ...params: unknown[]): unknown => db.prepare(sql).get(...params);

  it("mints no token whose event cannot be appended", async () => {
    const allow = refuseEvents();
    assert.equal((await post("/account/agents", { name: "ghost", access: "write" })).status, 500);
    allow();
    assert.deepEqual(one("SELECT count(*) AS n FROM agent_tokens WHERE subject = ?", ADA), { n: 0 });
  });

  it("revokes no token and decides no approval whose event cannot be appended", async () => {
    const token = await mintAgentToken(demo, jar, "claude", "write");
    const { id } = one("SELECT id FROM agent_tokens WHERE subject = ? AND name = 'claude'", ADA) as { id: string };
    const held = await sendRequest(
      demo.origin,
      "POST",
      "/api/tools/start_job",
      {
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: "{}",
      },
      demo.origin,
    );
    assert.equal(held.status, 202);
    const approval = String((JSON.parse(held.body) as { approval_url: string }).approval_url)
      .split("/")
      .pop();
    const allow = refuseEvents();
    assert.equal((await post("/account/agents/revoke", { id })).status, 500);
    assert.equal((await post(`/account/approvals/${approval}`, { decision: "approve" })).status, 500);
    allow();
    assert.deepEqual(one("SELECT revoked_at FROM agent_tokens WHERE id = ?", id), { revoked_at: null });
    assert.deepEqual(one("SELECT status FROM agent_approvals WHERE id = ?", approval), { status: "pending" });
    assert.deepEqual(
      db
        .prepare("SELECT type FROM events WHERE stream = ? AND type LIKE 'agent.%'")
        .all(`audit:${ADA}`)
        .map((r) => (r as { type: string }).type),
      ["agent.token_minted"],
    );
  });
});
