import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type DB } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import { APPROVAL_TTL, AgentTokens, Approvals, Schema, ToolWrite, isAgentError } from "../../lib/agent/index.ts";
import { MAX_PENDING_APPROVALS, type ApprovalBinding } from "../../lib/agent/approvals.ts";
import { open } from "../_support/db.ts";
import { FakeClock } from "../_support/clock.ts";
import { count } from "../_support/signin-app.ts";

function approvalStore(t: TestContext): { db: DB; approvals: Approvals; clock: FakeClock; binding: ApprovalBinding } {
  const db = open(t, ":memory:");
  applySchema(db, [...session.Schema, ...Schema]);
  const clock = new FakeClock();
  const { Info } = new AgentTokens(db, { Clock: clock }).mint({ Subject: "ada@example.com", Name: "bot", Access: ToolWrite });
  const binding = { Subject: "ada@example.com", TokenID: Info.ID, Tool: "add", ArgsHash: "a".repeat(64) };
  return { db, approvals: new Approvals(db, { Clock: clock }), clock, binding };
}

describe("Approvals", () => {
  it("keeps one pending request per call, shows its exact arguments, and spends an approval once", (t) => {
    const { approvals, binding } = approvalStore(t);
    const pending = approvals.request(binding, { by: 2 });
    assert.equal(approvals.request(binding, { by: 2 }).ID, pending.ID);
    assert.deepEqual({ ...approvals.get(pending.ID, binding.Subject)?.Args }, { by: 2 });
    assert.equal(approvals.consume(binding), undefined, "pending is not approved");
    assert.equal(approvals.decide(pending.ID, binding.Subject, "approve").ok, true);
    assert.equal(approvals.consume(binding), pending.ID);
    assert.equal(approvals.consume(binding), undefined, "single-use");
    assert.equal(approvals.get(pending.ID, binding.Subject)?.Status, "spent");
  });

  it(`refuses a token's request past MAX_PENDING_APPROVALS (${MAX_PENDING_APPROVALS}) pending ones, with 429, storing nothing`, (t) => {
    assert.equal(MAX_PENDING_APPROVALS, 20);
    const { db, approvals, binding, clock } = approvalStore(t);
    const nth = (i: number) => ({ ...binding, ArgsHash: i.toString(16).padStart(64, "0") });
    const pending = Array.from({ length: MAX_PENDING_APPROVALS }, (_, i) => approvals.request(nth(i), { by: i }));
    const tooMany = (err: unknown) => isAgentError(err) && err.code === "ERR_AGENT_TOO_MANY_APPROVALS" && err.status === 429;
    assert.throws(() => approvals.request(nth(MAX_PENDING_APPROVALS), { by: 99 }), tooMany);
    assert.equal(count(db, "agent_approvals"), MAX_PENDING_APPROVALS, "nothing stored");
    assert.equal(approvals.request(nth(0), { by: 0 }).ID, pending[0]?.ID, "a repeat of a waiting call is not refused");
    // Another token of the same person has its own share.
    const other = new AgentTokens(db, { Clock: clock }).mint({ Subject: binding.Subject, Name: "other", Access: ToolWrite }).Info.ID;
    approvals.request({ ...nth(MAX_PENDING_APPROVALS), TokenID: other }, { by: 99 });
    // An answered request frees its place; so does a lapsed one.
    approvals.decide(pending[0]?.ID ?? "", binding.Subject, "decline");
    approvals.request(nth(MAX_PENDING_APPROVALS), { by: 99 });
    assert.throws(() => approvals.request(nth(MAX_PENDING_APPROVALS + 1), { by: 100 }), tooMany);
    clock.advance(APPROVAL_TTL);
    approvals.request(nth(MAX_PENDING_APPROVALS + 1), { by: 100 });
  });

  it("lists a person's requests awaiting a decision, oldest first: not another person's, not a decided or lapsed one", (t) => {
    const { db, approvals, binding, clock } = approvalStore(t);
    const first = approvals.request(binding, { by: 1 });
    clock.advance(1000);
    const second = approvals.request({ ...binding, ArgsHash: "b".repeat(64) }, { by: 2 });
    const decided = approvals.request({ ...binding, ArgsHash: "c".repeat(64) }, { by: 3 });
    approvals.decide(decided.ID, binding.Subject, "decline");
    const bob = new AgentTokens(db, { Clock: clock }).mint({ Subject: "bob@example.com", Name: "bot", Access: ToolWrite }).Info.ID;
    approvals.request({ ...binding, Subject: "bob@example.com", TokenID: bob }, { by: 9 });
    assert.deepEqual(
      approvals.pending(binding.Subject).map((a) => [a.ID, { ...a.Args }]),
      [
        [first.ID, { by: 1 }],
        [second.ID, { by: 2 }],
      ],
    );
    clock.advance(APPROVAL_TTL - 1000);
    assert.deepEqual(
      approvals.pending(binding.Subject).map((a) => a.ID),
      [second.ID],
      "the first lapsed",
    );
  });

  it("binds the approval to tool, arguments hash, token and subject", (t) => {
    const { approvals, binding } = approvalStore(t);
    const pending = approvals.request(binding, { by: 2 });
    approvals.decide(pending.ID, binding.Subject, "approve");
    for (const other of [{ Tool: "other" }, { ArgsHash: "b".repeat(64) }, { TokenID: "another-token" }, { Subject: "bob@example.com" }]) {
      assert.equal(approvals.consume({ ...binding, ...other }), undefined, JSON.stringify(other));
    }
    assert.equal(approvals.consume(binding), pending.ID);
  });

  it("lets nothing run on a declined request, and decides a request only once", (t) => {
    const { approvals, binding } = approvalStore(t);
    const pending = approvals.request(binding, { by: 2 });
    assert.equal(approvals.decide(pending.ID, binding.Subject, "decline").ok, true);
    assert.equal(approvals.consume(binding), undefined);
    assert.deepEqual(approvals.decide(pending.ID, binding.Subject, "approve"), { ok: false, reason: "decided" });
    assert.equal(approvals.consume(binding), undefined);
  });

  it("hides another person's request and unknown or malformed ids", (t) => {
    const { approvals, binding } = approvalStore(t);
    const pending = approvals.request(binding, {});
    assert.equal(approvals.get(pending.ID, "bob@example.com"), undefined);
    assert.deepEqual(approvals.decide(pending.ID, "bob@example.com", "approve"), { ok: false, reason: "unknown" });
    assert.deepEqual(approvals.decide("x".repeat(22), binding.Subject, "approve"), { ok: false, reason: "unknown" });
    assert.equal(approvals.get("../../etc", binding.Subject), undefined);
  });

  it("is valid 5 minutes from approval: 299 999 ms later it runs, 300 000 ms later it does not", (t) => {
    const { approvals, binding, clock } = approvalStore(t);
    assert.equal(APPROVAL_TTL, 300_000);
    const first = approvals.request(binding, {});
    clock.advance(60_000);
    approvals.decide(first.ID, binding.Subject, "approve");
    clock.advance(5 * 60 * 1000 - 1);
    assert.equal(approvals.consume(binding), first.ID);
    const second = approvals.request(binding, {});
    approvals.decide(second.ID, binding.Subject, "approve");
    clock.advance(5 * 60 * 1000);
    assert.equal(approvals.consume(binding), undefined);
  });

  it("lets an unanswered request lapse after 5 minutes", (t) => {
    const { approvals, binding, clock } = approvalStore(t);
    const pending = approvals.request(binding, {});
    clock.advance(5 * 60 * 1000);
    assert.deepEqual(approvals.decide(pending.ID, binding.Subject, "approve"), { ok: false, reason: "expired" });
    assert.notEqual(approvals.request(binding, {}).ID, pending.ID, "a new request replaces the lapsed one");
  });

  it("sweeps what is no longer valid and keeps what is", async (t) => {
    const { db, approvals, binding, clock } = approvalStore(t);
    const old = approvals.request(binding, { n: 1 });
    approvals.decide(old.ID, binding.Subject, "approve");
    clock.advance(5 * 60 * 1000);
    const live = approvals.request(binding, { n: 2 });
    assert.equal(await approvals.sweep(clock.now()), 1);
    assert.equal(approvals.get(old.ID, binding.Subject), undefined);
    assert.equal(approvals.get(live.ID, binding.Subject)?.Status, "pending");
    assert.equal(count(db, "agent_approvals"), 1);
  });

  it("refuses a decision other than approve or decline with 400, changing nothing", (t) => {
    const { db, approvals, binding } = approvalStore(t);
    const pending = approvals.request(binding, {});
    for (const decision of ["", "yes", "APPROVE", "approve "]) {
      assert.throws(
        () => approvals.decide(pending.ID, binding.Subject, decision),
        (err: unknown) =>
          isAgentError(err) && err.code === "ERR_AGENT_INVALID_APPROVAL" && err.status === 400 && /decision must be/.test(err.message),
      );
    }
    assert.equal(count(db, "agent_approvals", "status = 'pending'"), 1);
  });

  it("refuses a request with an empty binding field with 400, storing nothing", (t) => {
    const { db, approvals, binding } = approvalStore(t);
    for (const field of ["Subject", "TokenID", "Tool", "ArgsHash"] as const) {
      assert.throws(
        () => approvals.request({ ...binding, [field]: "" }, {}),
        (err: unknown) => isAgentError(err) && err.status === 400 && err.message === `request approval: empty ${field}`,
      );
    }
    assert.equal(count(db, "agent_approvals"), 0);
  });
});

describe("Approvals.voidPending", () => {
  it("voids the person's matching requests and unspent approvals with the reason; a voided one is never approved nor spent", (t) => {
    const { approvals, binding } = approvalStore(t);
    const waiting = approvals.request(binding, { team: "a" });
    const approved = approvals.request({ ...binding, ArgsHash: "b".repeat(64) }, { team: "a" });
    const other = approvals.request({ ...binding, ArgsHash: "c".repeat(64) }, { team: "b" });
    approvals.decide(approved.ID, binding.Subject, "approve");
    assert.equal(
      approvals.voidPending("bob@example.com", () => true, "gone"),
      0,
      "another person's requests are not theirs",
    );
    assert.equal(
      approvals.voidPending(binding.Subject, (a) => a.Args["team"] === "a", "membership ended"),
      2,
    );
    for (const id of [waiting.ID, approved.ID]) {
      assert.deepEqual(approvals.decide(id, binding.Subject, "approve"), { ok: false, reason: "decided" });
      const voided = approvals.get(id, binding.Subject);
      assert.deepEqual([voided?.Status, voided?.Reason], ["voided", "membership ended"]);
    }
    assert.equal(approvals.consume({ ...binding, ArgsHash: "b".repeat(64) }), undefined);
    assert.deepEqual([approvals.get(other.ID, binding.Subject)?.Status, approvals.get(other.ID, binding.Subject)?.Reason], ["pending", ""]);
  });

  it("keeps the requests made before the status column allowed voided (step agent/006 rebuilds the table)", (t) => {
    const db = open(t, ":memory:");
    const before = Schema.filter((step) => step.Name !== "agent/006-approvals-voided");
    applySchema(db, [...session.Schema, ...before]);
    const { Info } = new AgentTokens(db).mint({ Subject: "ada@example.com", Name: "bot", Access: ToolWrite });
    db.prepare(
      `INSERT INTO agent_approvals (id, subject, token_id, tool, args_hash, args, status, created_at, expires_at)
       VALUES ('AAAAAAAAAAAAAAAAAAAAAA', 'ada@example.com', ?, 'add', 'h', '{"by":1}', 'pending', 0, ?)`,
    ).run(Info.ID, Date.now() + APPROVAL_TTL);
    assert.deepEqual(applySchema(db, [...session.Schema, ...Schema]), ["agent/006-approvals-voided"]);
    const kept = new Approvals(db).get("AAAAAAAAAAAAAAAAAAAAAA", "ada@example.com");
    assert.deepEqual([kept?.Status, kept?.Tool, kept?.Args["by"], kept?.Reason], ["pending", "add", 1, ""]);
    const indexes = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'agent_approvals' AND sql IS NOT NULL");
    assert.deepEqual(indexes.pluck().all().sort(), ["agent_approvals_binding", "agent_approvals_expires_at"]);
  });
});
