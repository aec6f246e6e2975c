/*
 * The sign-in schema's place after the sessions schema (SPEC §4.1: merge
 * order is apply order, and the component's backfill migration reads the
 * sessions table). A database that already holds sessions when the sign-in
 * steps first run gets one account per subject, first and last sign-in
 * taken from its sessions; merged the wrong way round, boot fails on the
 * backfill step.
 */
import assert from "node:assert/strict";
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, it } from "node:test";
import { applySchema, mergeSchemas, type DB, type Step } from "../../lib/db/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import { Handler } from "../../lib/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { open, tempFile } from "../_support/db.ts";
import { cookiePair } from "../_support/http-client.ts";
import { FakeClock } from "../_support/clock.ts";
import { startSigninApp } from "../_support/signin-app.ts";

const HOUR = 60 * 60 * 1000;

interface Account {
  address: string;
  first_signin_at: number;
  last_signin_at: number;
}

function accounts(db: DB): Account[] {
  return db.prepare<[], Account>("SELECT address, first_signin_at, last_signin_at FROM signin_accounts ORDER BY address").all();
}

/**
 * Fills `db` (with `before` applied) with sessions minted by the session
 * store: ann at start and start+2h, bob at start+1h; ann's first session is
 * used again at start+90min (so its last_seen is not its creation). Returns
 * the start time.
 */
function seedSessions(db: DB, before: readonly Step[], clock: FakeClock): number {
  applySchema(db, before);
  const sessions = new session.Sessions(db, { Origin: "http://app.test", Clock: clock });
  const request = (cookie?: string): IncomingMessage => {
    const req = new IncomingMessage(new Socket());
    if (cookie !== undefined) req.headers.cookie = cookie;
    return req;
  };
  const mint = (subject: string): string => {
    const req = request();
    const res = new ServerResponse(req);
    sessions.create(req, res, { Subject: subject, Method: "magiclink", AuthTime: clock.now() });
    return cookiePair(String(res.getHeader("Set-Cookie")));
  };
  const start = clock.now().getTime();
  const annFirst = mint("ann@example.com");
  clock.advance(HOUR);
  mint("bob@example.com");
  clock.advance(HOUR / 2);
  assert.equal(sessions.read(request(annFirst))?.Subject, "ann@example.com");
  clock.advance(HOUR / 2);
  mint("ann@example.com");
  const lastSeen = db.prepare<[], { last_seen: number }>("SELECT last_seen FROM sessions ORDER BY created_at").pluck().all();
  assert.deepEqual(lastSeen, [start + 1.5 * HOUR, start + HOUR, start + 2 * HOUR], "the seeded sessions");
  return start;
}

describe("signin Schema after the sessions schema (SPEC §4.1)", () => {
  // A database from before the sign-in component, and one from before its accounts table.
  const histories: { name: string; before: readonly Step[] }[] = [
    { name: "the sessions schema alone", before: session.Schema },
    { name: "the sign-in steps released before accounts", before: [...session.Schema, ...signin.Schema.slice(0, 2)] },
  ];
  for (const { name, before } of histories) {
    it(`backfills one account per session subject on a database holding ${name}`, (t) => {
      const db = open(t, tempFile(t));
      const start = seedSessions(db, before, new FakeClock());
      const applied = applySchema(db, mergeSchemas(session.Schema, signin.Schema));
      assert.ok(applied.includes("signin/004-backfill-accounts"), `applied ${applied.join(", ")}`);
      assert.deepEqual(accounts(db), [
        { address: "ann@example.com", first_signin_at: start, last_signin_at: start + 2 * HOUR },
        { address: "bob@example.com", first_signin_at: start + HOUR, last_signin_at: start + HOUR },
      ]);
    });
  }

  it("keeps the backfilled first sign-in when the subject signs in again after the upgrade", async (t) => {
    const dbPath = tempFile(t);
    const clock = new FakeClock();
    const db = open(t, dbPath);
    const start = seedSessions(db, session.Schema, clock);
    db.close();
    clock.advance(HOUR);
    const app = await startSigninApp(t, { dbPath, clock });
    await app.signIn("ann@example.com");
    const ann = accounts(app.db).find((a) => a.address === "ann@example.com");
    assert.deepEqual(ann, { address: "ann@example.com", first_signin_at: start, last_signin_at: start + 3 * HOUR });
  });

  it("fails boot on the backfill step when merged before the sessions schema", () => {
    assert.throws(
      () =>
        Handler({
          Mux: (_req, res) => void res.end(),
          DBPath: ":memory:",
          Logger: discardLogger,
          Schema: mergeSchemas(signin.Schema, session.Schema),
        }),
      (err: unknown) => {
        assert.ok(err instanceof Error && "code" in err);
        assert.equal(err.code, "ERR_DB_STEP_FAILED");
        assert.match(err.message, /step signin\/004-backfill-accounts failed/);
        assert.match(String(err.cause), /no such table: sessions/);
        return true;
      },
    );
  });
});
