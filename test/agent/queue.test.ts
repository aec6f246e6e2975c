/*
 * The approvals queue in lib/agent (issue 39, 4 and 5): `decideAll` decides several waiting calls at once, each one
 * single-use, bound to its own arguments and audited on its own; `waiting` counts a person's waiting calls along an
 * index; `WaitingNotices` mails a person whose call waits past WAITING_NOTICE_AFTER, at most once each
 * WAITING_NOTICE_INTERVAL, through a real SMTP server, on a fake clock.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { applySchema, type DB } from "../../lib/db/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { newSMTPMailer } from "../../lib/mail/index.ts";
import * as session from "../../lib/session/index.ts";
import {
  APPROVAL_TTL,
  AgentTokens,
  Approvals,
  MAX_BATCH_DECISIONS,
  Schema,
  ToolWrite,
  WAITING_NOTICE_AFTER,
  WAITING_NOTICE_INTERVAL,
  WaitingNotices,
  accountRows,
  isAgentError,
} from "../../lib/agent/index.ts";
import { MAX_PENDING_APPROVALS, type ApprovalBinding } from "../../lib/agent/approvals.ts";
import { open } from "../_support/db.ts";
import { FakeClock } from "../_support/clock.ts";
import { startSMTPServer } from "../_support/smtp-server.ts";

const ADA = "ada@example.com";

function store(t: TestContext): {
  db: DB;
  approvals: Approvals;
  clock: FakeClock;
  events: EventStore;
  tokens: AgentTokens;
  bind: (n: number, who?: string) => ApprovalBinding;
} {
  const db = open(t, ":memory:");
  applySchema(db, [...session.Schema, ...eventsSchema, ...Schema]);
  const clock = new FakeClock();
  const events = new EventStore(db, { Clock: clock });
  const tokens = new AgentTokens(db, { Clock: clock });
  const ids = new Map<string, string>();
  const tokenOf = (who: string): string => {
    if (!ids.has(who)) ids.set(who, tokens.mint({ Subject: who, Name: "bot", Access: ToolWrite }).Info.ID);
    return ids.get(who) ?? "";
  };
  const bind = (n: number, who = ADA): ApprovalBinding => ({
    Subject: who,
    TokenID: tokenOf(who),
    Tool: "notes_create",
    ArgsHash: n.toString(16).padStart(64, "0"),
  });
  return { db, approvals: new Approvals(db, { Clock: clock, Events: events }), clock, events, tokens, bind };
}

const invalid = (pattern: RegExp) => (err: unknown) =>
  isAgentError(err) && err.code === "ERR_AGENT_INVALID_APPROVAL" && err.status === 400 && pattern.test(err.message);

describe("Approvals.decideAll", () => {
  it("approves three waiting calls at once: each spent once by its own call, each decision its own audit event", (t) => {
    const { approvals, events, bind } = store(t);
    const asked = [1, 2, 3].map((n) => approvals.request(bind(n), { title: `note ${n}` }).ID);
    const decided = approvals.decideAll(asked, ADA, "approve");
    assert.deepEqual(
      [...decided.values()].map((d) => d.ok),
      [true, true, true],
    );
    for (const n of [1, 2, 3]) {
      assert.equal(approvals.consume(bind(n)), asked[n - 1], "its own call spends it");
      assert.equal(approvals.consume(bind(n)), undefined, "once");
    }
    assert.equal(approvals.consume(bind(4)), undefined, "bound to its own arguments: another call spends none");
    const audit = events.latestHistory(ADA, 10, "human").map((e) => [e.Type, e.Data["approval"]]);
    assert.deepEqual(
      audit.reverse(),
      asked.map((id) => ["agent.call_approved", id]),
    );
  });

  it("declines: a declined call is never spent; a repeated id is decided once; decided and lapsed ones are named", (t) => {
    const { approvals, clock, bind } = store(t);
    const [one, two, three] = [1, 2, 3].map((n) => approvals.request(bind(n), {}).ID) as [string, string, string];
    approvals.decide(one, ADA, "approve");
    clock.advance(APPROVAL_TTL - 1);
    const late = approvals.request(bind(9), {}).ID;
    clock.advance(1); // the first three lapse now; `late` still waits
    const decided = approvals.decideAll([late, late, one, two], ADA, "decline");
    assert.deepEqual(Object.fromEntries([...decided].map(([id, d]) => [id, d.ok ? "ok" : d.reason])), {
      [late]: "ok",
      [one]: "decided",
      [two]: "expired",
    });
    assert.equal(approvals.consume(bind(9)), undefined, "declined: never runs");
    assert.equal(approvals.get(three, ADA)?.Status, "pending", "not named, not decided");
  });

  it("ignores another person's id like an unknown one: never decided", (t) => {
    const { approvals, bind } = store(t);
    const bobs = approvals.request(bind(1, "bob@example.com"), {}).ID;
    const decided = approvals.decideAll([bobs, "x".repeat(22)], ADA, "approve");
    assert.deepEqual(
      [...decided.values()].map((d) => (d.ok ? "ok" : d.reason)),
      ["unknown", "unknown"],
    );
    assert.equal(approvals.get(bobs, "bob@example.com")?.Status, "pending");
  });

  it(`refuses no id, more than MAX_BATCH_DECISIONS (${MAX_BATCH_DECISIONS}) ids, or an unknown decision with 400 naming the field, deciding nothing`, (t) => {
    assert.equal(MAX_BATCH_DECISIONS, 100);
    assert.equal(MAX_BATCH_DECISIONS, 5 * MAX_PENDING_APPROVALS);
    const { approvals, bind } = store(t);
    const id = approvals.request(bind(1), {}).ID;
    const many = (n: number): string[] => [id, ...Array.from({ length: n - 1 }, (_, i) => `${i}`.padStart(22, "z"))];
    assert.throws(() => approvals.decideAll([], ADA, "approve"), invalid(/^decide approvals: id: choose at least one/));
    assert.throws(() => approvals.decideAll(many(MAX_BATCH_DECISIONS + 1), ADA, "approve"), invalid(/id: at most 100 requests/));
    assert.throws(() => approvals.decideAll([id], ADA, "maybe"), invalid(/decision must be "approve" or "decline"/));
    assert.equal(approvals.get(id, ADA)?.Status, "pending", "nothing decided on a refusal");
    assert.equal(approvals.decideAll(many(MAX_BATCH_DECISIONS), ADA, "approve").get(id)?.ok, true, "exactly the bound is taken");
  });
});

describe("Approvals.waiting", () => {
  it("counts the person's calls awaiting a decision, not decided, lapsed or another person's, along its index", (t) => {
    const { db, approvals, clock, bind } = store(t);
    assert.equal(approvals.waiting(ADA), 0);
    const first = approvals.request(bind(1), {}).ID;
    approvals.request(bind(2), {});
    approvals.request(bind(3, "bob@example.com"), {});
    assert.equal(approvals.waiting(ADA), 2);
    approvals.decide(first, ADA, "decline");
    assert.equal(approvals.waiting(ADA), 1);
    clock.advance(APPROVAL_TTL);
    assert.equal(approvals.waiting(ADA), 0, "lapsed");
    const plan = db
      .prepare("EXPLAIN QUERY PLAN SELECT count(*) AS n FROM agent_approvals WHERE subject = ? AND status = 'pending' AND expires_at > ?")
      .all(ADA, 0) as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join("\n"), /USING COVERING INDEX agent_approvals_waiting/);
  });
});

describe("WaitingNotices", () => {
  it("has documented times: mail after 2 minutes of waiting (inside APPROVAL_TTL), at most one an hour", () => {
    assert.equal(WAITING_NOTICE_AFTER, 2 * 60 * 1000);
    assert.equal(WAITING_NOTICE_INTERVAL, 60 * 60 * 1000);
    assert.ok(WAITING_NOTICE_AFTER < APPROVAL_TTL);
  });

  it("mails once past WAITING_NOTICE_AFTER, none for a second overdue call within the hour, one again after it; never the arguments", async (t) => {
    const { db, approvals, clock, bind } = store(t);
    const smtp = await startSMTPServer();
    t.after(() => smtp.close());
    const notices = new WaitingNotices({
      DB: db,
      Mailer: newSMTPMailer(`smtp://127.0.0.1:${smtp.port}`),
      MailFrom: "app@example.com",
      Origin: "https://app.example",
      Clock: clock,
    });
    approvals.request(bind(1), { title: "SECRET-VALUE-1" });
    clock.advance(WAITING_NOTICE_AFTER - 1);
    assert.equal(await notices.sweep(), 0, "not yet overdue");
    clock.advance(1);
    assert.equal(await notices.sweep(), 1);
    assert.equal(smtp.messages.length, 1);
    const mail = smtp.messages[0];
    assert.deepEqual(mail?.to, [ADA]);
    assert.equal(mail?.parsed.subject, "An agent is waiting for your approval");
    assert.match(mail?.parsed.text ?? "", /- agent:bot asks to run notes_create/);
    assert.match(mail?.parsed.text ?? "", /https:\/\/app\.example\/account\/approvals\b/);
    assert.doesNotMatch(mail?.raw ?? "", /SECRET-VALUE/);
    assert.equal(await notices.sweep(), 0, "the same call: no second mail");

    // A second call, overdue within the hour: none.
    approvals.request(bind(2), { title: "SECRET-VALUE-2" });
    clock.advance(WAITING_NOTICE_AFTER);
    assert.equal(await notices.sweep(), 0);
    // After the hour, one again.
    clock.advance(WAITING_NOTICE_INTERVAL - 2 * WAITING_NOTICE_AFTER);
    approvals.request(bind(3), {});
    clock.advance(WAITING_NOTICE_AFTER);
    assert.equal(await notices.sweep(), 1);
    assert.equal(smtp.messages.length, 2);
    assert.equal(await notices.sweep(), 0);
  });

  it("mails in the person's locale, Arabic included; a decided call sends none; the notice time moves, exports and goes with the account", async (t) => {
    const { db, approvals, clock, bind } = store(t);
    const smtp = await startSMTPServer();
    t.after(() => smtp.close());
    const notices = new WaitingNotices({
      DB: db,
      Mailer: newSMTPMailer(`smtp://127.0.0.1:${smtp.port}`),
      MailFrom: "app@example.com",
      Origin: "https://app.example",
      Clock: clock,
      Locale: (subject) => (subject === ADA ? "ar" : "en"),
    });
    const decided = approvals.request(bind(1, "bob@example.com"), {}).ID;
    approvals.decide(decided, "bob@example.com", "approve");
    approvals.request(bind(2), {});
    clock.advance(WAITING_NOTICE_AFTER);
    assert.equal(await notices.sweep(), 1, "only the waiting one");
    assert.equal(smtp.messages[0]?.parsed.subject, "وكيل ينتظر موافقتك");
    assert.match(smtp.messages[0]?.parsed.text ?? "", /agent:bot يطلب تشغيل notes_create/);

    const rows = accountRows(db);
    const exported = (who: string): string =>
      rows
        .export(who)
        .find((r) => r.Table === "agent_approval_notices")
        ?.page(undefined).text ?? "";
    const noticed = (who: string): unknown => db.prepare("SELECT noticed_at FROM agent_approval_notices WHERE subject = ?").get(who);
    assert.equal(exported(ADA), JSON.stringify({ noticed_at: clock.now().getTime() }));
    db.transaction(() => rows.move(ADA, "ada@new.example", false))();
    assert.deepEqual(
      [noticed(ADA), noticed("ada@new.example")],
      [undefined, { noticed_at: clock.now().getTime() }],
      "the hour follows the address",
    );
    rows.erase("ada@new.example");
    assert.equal(noticed("ada@new.example"), undefined);
  });
});
