/*
 * The standing approval store on its own (lib/agent/standing.ts): its limits and defaults, what a call must share to be
 * covered, and what ends one (its token revoked or expired, `Sessions.RevokeAll`, a team membership, its lifetime).
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { applySchema } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import {
  AgentTokens,
  Approvals,
  Schema,
  STANDING_DEFAULT_CALLS,
  STANDING_DEFAULT_TTL,
  STANDING_MAX_CALLS,
  STANDING_MAX_TTL,
  StandingApprovals,
  ToolRegistry,
  ToolWrite,
  accountRows,
  defineAction,
} from "../../lib/agent/index.ts";
import { open } from "../_support/db.ts";
import { FakeClock } from "../_support/clock.ts";

const SUBJECT = "ada@example.com";
const HOUR = 3_600_000;
const REQ = { headers: {} } as IncomingMessage;
const FRENCH = { headers: { "accept-language": "fr" } } as IncomingMessage;

function store(t: TestContext) {
  const db = open(t, ":memory:");
  applySchema(db, [...session.Schema, ...Schema]);
  const clock = new FakeClock();
  const tokens = new AgentTokens(db, { Clock: clock });
  const token = tokens.mint({ Subject: SUBJECT, Name: "bot", Access: ToolWrite }).Info.ID;
  const approvals = new Approvals(db, { Clock: clock });
  const tools = new ToolRegistry();
  tools.register(
    defineAction({
      name: "edit",
      method: "POST",
      route: "/edit",
      tool: { Description: "Edits", Access: ToolWrite, Confirm: "Edit?" },
      handler: () => undefined,
      target: (args) => ({ Record: String(args.get("id")), Fields: ["title"], Context: String(args.get("team") ?? "") }),
      // What the approval page shows: the record by its name, the field by its label; nothing for a record it cannot read.
      preview: ({ Args }, req) =>
        Args.get("id") === "unreadable"
          ? undefined
          : {
              Kind: "update",
              Title: `Page ${String(Args.get("id"))}`,
              Fields: [{ Field: "title", Label: req === FRENCH ? "Titre" : "Heading", Value: "New", Before: "Old" }],
              Unchanged: [],
              Stale: false,
              ReferredBy: [],
            },
    }),
  );
  const standing = new StandingApprovals(db, { Approvals: approvals, Tools: tools, Clock: clock });
  // A pending request of `edit` on record `id` in `team`, and a standing approval made from it.
  const grant = (bounds: Partial<Parameters<StandingApprovals["create"]>[3]> = {}, id = "r1", team = "t1") => {
    const request = approvals.request(
      { Subject: SUBJECT, TokenID: token, Tool: "edit", ArgsHash: `${id}${team}`.padEnd(64, "0") },
      { id, team },
    );
    return standing.create(REQ, SUBJECT, request.ID, { Calls: 3, Hours: 1, SameRecord: true, SameFields: true, ...bounds });
  };
  const spend = (record = "r1", team = "t1", fields = ["title"]) =>
    standing.spend(SUBJECT, token, "edit", { Record: record, Fields: fields, Context: team });
  return { db, clock, tokens, token, standing, grant, spend };
}

describe("StandingApprovals", () => {
  it("allows at most 20 calls and 8 hours; the form's defaults are 10 calls and 1 hour", async (t) => {
    assert.equal(STANDING_MAX_CALLS, 20);
    assert.equal(STANDING_MAX_TTL, 8 * HOUR);
    assert.equal(STANDING_DEFAULT_CALLS, 10);
    assert.equal(STANDING_DEFAULT_TTL, HOUR);
    const { grant } = store(t);
    await assert.rejects(grant({ Calls: 21 }), /calls must be a whole number from 1 to 20/);
    await assert.rejects(grant({ Calls: 0 }), /calls must be a whole number from 1 to 20/);
    await assert.rejects(grant({ Hours: 9 }), /hours must be a whole number from 1 to 8/);
    await assert.rejects(grant({ Calls: 2.5 }), /calls/);
    const most = await grant({ Calls: 20, Hours: 8 });
    assert.equal(most?.Remaining, 20);
    assert.equal((most?.ExpiresAt.getTime() ?? 0) - (most?.CreatedAt.getTime() ?? 0), 8 * HOUR);
  });

  it("covers only calls of its context, record and fields, and only N of them", async (t) => {
    const { grant, spend } = store(t);
    const made = await grant({ Calls: 2 });
    assert.equal(spend("r2"), undefined, "another record");
    assert.equal(spend("r1", "t2"), undefined, "another team");
    assert.equal(spend("r1", "t1", ["title", "body"]), undefined, "another field");
    assert.equal(spend("r1", "t1", []), made?.ID, "fewer fields");
    assert.equal(spend(), made?.ID);
    assert.equal(spend(), undefined, "the third of two");
  });

  it("names its record and fields as its tool's preview of the approved call does for the request listing it", async (t) => {
    const { clock, grant, standing } = store(t);
    // A millisecond apart: listed oldest first.
    await grant();
    clock.advance(1);
    await grant({}, "unreadable");
    clock.advance(1);
    await grant({ SameRecord: false, SameFields: false });
    const named = (req: IncomingMessage) => standing.list(SUBJECT, req).map((s) => [s.Record, s.Title, s.Fields, s.FieldLabels]);
    assert.deepEqual(named(REQ), [
      ["r1", "Page r1", ["title"], ["Heading"]],
      ["unreadable", undefined, ["title"], ["title"]],
      [undefined, undefined, undefined, undefined],
    ]);
    assert.deepEqual(named(FRENCH)[0], ["r1", "Page r1", ["title"], ["Titre"]], "in the locale of the page listing it");
    assert.ok(
      standing.list(SUBJECT).every((s) => s.Title === undefined && s.FieldLabels === undefined),
      "without a request, none",
    );
  });

  it("ends with its lifetime, its token, the person's tokens, a team membership; the sweep deletes what ended", async (t) => {
    const { db, clock, tokens, token, standing, grant, spend } = store(t);
    await grant();
    clock.advance(HOUR);
    assert.equal(spend(), undefined, "expired");
    await grant();
    tokens.revoke(SUBJECT, token);
    assert.equal(spend(), undefined, "its token revoked");
    assert.deepEqual(standing.list(SUBJECT), []);
    const other = store(t);
    await other.grant();
    other.tokens.revokeAll(SUBJECT);
    assert.equal(other.spend(), undefined, "every token of the person revoked (Sessions.RevokeAll)");
    const team = store(t);
    await team.grant({}, "r1", "t1");
    await team.grant({}, "r1", "t2");
    assert.equal(
      team.standing.end(SUBJECT, (s) => s.Context === "t1", "membership ended"),
      1,
    );
    assert.equal(team.spend("r1", "t1"), undefined);
    assert.ok(team.spend("r1", "t2") !== undefined, "another team's stays");
    assert.equal(await standing.sweep(clock.now()), 2);
    assert.equal(db.prepare("SELECT count(*) AS n FROM agent_standing_approvals").pluck().get(), 0);
  });

  it("is the person's account rows: exported, moved and erased with them", async (t) => {
    const { db, grant } = store(t);
    const made = await grant();
    const rows = accountRows(db);
    assert.ok(rows.isAccount?.(SUBJECT));
    rows.move(SUBJECT, "ada@new.example", false);
    assert.equal(db.prepare("SELECT subject FROM agent_standing_approvals WHERE id = ?").pluck().get(made?.ID), "ada@new.example");
    rows.erase("ada@new.example");
    assert.equal(db.prepare("SELECT count(*) FROM agent_standing_approvals").pluck().get(), 0);
  });
});
