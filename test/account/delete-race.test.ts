/*
 * A deleted account stays deleted (issue 36 item 4): a form post and an
 * agent's tool call authenticated before the deletion, committing after
 * it, leave nothing; the next account at the address starts empty.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { auditStream } from "../../lib/events/index.ts";
import { ROUTES, scan } from "./harness.ts";
import { startRaceApp, type RaceApp } from "./race-app.ts";

const ADA = "ada@example.com";

function callGated(app: RaceApp, token: string) {
  return app.request("POST", "/api/tools/expenses_gated", {
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: "{}",
  });
}

describe("account: writes in flight at a deletion", () => {
  it("a held form post and a waiting tool call commit nothing after the deletion; a new account at the address is empty", async (t) => {
    const app = await startRaceApp(t);
    const ada = await app.signIn(ADA);
    const token = app.tokens.mint({ Subject: ADA, Name: "bot", Access: "write" }).Token;
    // The agent's write call waits for Ada's approval, then runs: its run waits for the test.
    const asked = await callGated(app, token);
    assert.equal(asked.status, 202);
    const approval =
      String((JSON.parse(asked.body) as { approval_url: string }).approval_url)
        .split("/")
        .at(-1) ?? "";
    assert.equal(app.approvals.decide(approval, ADA, "approve").ok, true);
    const call = callGated(app, token);
    await app.gate.entered;
    const arrived = app.authenticated();
    const held = app.hold("POST", "/expenses", "label=held&amount=1.00", ada);
    await arrived;

    assert.equal((await app.request("POST", ROUTES.delete, { jar: ada, form: { email: ADA } })).location, "/signin?account=deleted");
    app.gate.release();
    const [called, posted] = await Promise.all([call, held.finish()]);
    assert.equal(called.status, 401, "the tool call is answered as a revoked token");
    assert.match(String(called.headers["www-authenticate"]), /invalid_token/);
    assert.equal(posted.status, 303, "the form post as an expired session");
    assert.equal(posted.location, "/signin");
    assert.deepEqual(scan(app.db, ADA), [], "no column of any table holds the address");

    const again = await app.signIn(ADA);
    assert.equal((await app.request("GET", "/me", { jar: again })).status, 200);
    assert.equal(app.expensesOf(ADA), 0, "the new account starts empty");
    const types = app.events.read(auditStream(ADA)).map((e) => e.Type);
    assert.ok(!types.includes("tool.call"), `no call of the old account on the new one's stream: ${types.join(", ")}`);
  });
});
