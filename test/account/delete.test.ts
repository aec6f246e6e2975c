/*
 * Deletion (lib/account, issue 24 item 4): after it, a scan of every
 * column of every table of the demo's database finds the address nowhere,
 * the other person's rows are as they were, and an event the person left
 * in someone else's stream reads on under a stable pseudonym.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { askChange, ROUTES, rowsWith, scan, seed, startAccountApp } from "./harness.ts";
import { verifyEvents, type Break } from "../../lib/events/verify.ts";

const ADA = "ada@example.com";
const BOB = "bob@example.org";

describe("account: deletion", () => {
  it("deletes every row of the person in one step, ends their sessions, and leaves the other person untouched", async (t) => {
    const app = await startAccountApp(t);
    const other = await app.signIn(ADA);
    const ada = await app.signIn(ADA);
    const bob = await app.signIn(BOB);
    seed(app, ADA, "a");
    const bobs = seed(app, BOB, "b");
    // Ada left an event on Bob's note (a shared stream): it is Bob's history too.
    const human = { String: () => "human" };
    app.events.append({
      Stream: `notes:${bobs.noteID}`,
      Expected: 1,
      Type: "notes.commented",
      Data: { text: "hi" },
      Actor: human,
      Subject: ADA,
    });
    const bobBefore = rowsWith(app.db, BOB);

    const mismatch = await app.request("POST", ROUTES.delete, { jar: ada, form: { email: BOB } });
    assert.equal(mismatch.location, "/account/security?delete=confirm", "the typed address must be the person's own");
    const unconfirmed = await app.request("POST", ROUTES.delete, { jar: ada, form: { email: ADA } });
    assert.equal(
      unconfirmed.location,
      "/stepup?next=%2Faccount%2Fsecurity",
      "an account with a passkey is deleted only after a passkey assertion",
    );
    assert.notDeepEqual(scan(app.db, ADA), []);

    // The session a passkey confirmed (a sign-in with the passkey as second factor).
    app.db.prepare("UPDATE sessions SET method = 'magiclink+passkey' WHERE subject = ?").run(ADA);
    const deleted = await app.request("POST", ROUTES.delete, { jar: ada, form: { email: ADA } });
    assert.equal(deleted.location, "/signin?account=deleted");
    assert.deepEqual(scan(app.db, ADA), [], "no column of any table holds the address");
    assert.deepEqual(rowsWith(app.db, BOB), bobBefore, "the other person's rows are unchanged");
    assert.equal((await app.request("GET", "/me", { jar: ada })).status, 401);
    assert.equal((await app.request("GET", "/me", { jar: other })).status, 401);
    assert.equal((await app.request("GET", "/me", { jar: bob })).status, 200);

    const kept = app.events.read(`notes:${bobs.noteID}`);
    assert.equal(kept.length, 2, "Bob's note keeps its history");
    assert.match(kept[1]?.Subject ?? "", /^deleted:[A-Za-z0-9_-]{22}$/, "under a pseudonym");
    assert.equal(kept[1]?.Type, "notes.commented");
    // Issue 37: the erasure is the one deletion of events, and itself recorded, without the address.
    const erasures = app.events.read("latch:erasures");
    assert.deepEqual(
      erasures.map((e) => [e.Type, e.Subject]),
      [["history.erased", kept[1]?.Subject]],
    );
    // Issue 41: every stream still verifies, and the verifier counts the event the erasure rewrote in Bob's stream.
    const broken: Break[] = [];
    assert.deepEqual(
      { ...verifyEvents(app.db, (b) => broken.push(b)), Streams: 0, Events: 0 },
      { Streams: 0, Events: 0, Erased: 1, Erasures: 1, Broken: 0 },
    );
    assert.deepEqual(broken, []);
  });

  it("after a change of address, erases the history under both addresses", async (t) => {
    const app = await startAccountApp(t);
    const ada = await app.signIn(ADA);
    const NEW = "ada.lovelace@example.net";
    await app.signIn(BOB);
    const bobs = seed(app, BOB, "b");
    app.events.append({
      Stream: `notes:${bobs.noteID}`,
      Expected: 1,
      Type: "notes.commented",
      Data: {},
      Actor: { String: () => "human" },
      Subject: ADA,
    });
    const { code } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=changed");
    assert.notDeepEqual(scan(app.db, ADA), [], "the old address is in the history before the deletion");
    assert.equal((await app.request("POST", ROUTES.delete, { jar: ada, form: { email: NEW } })).location, "/signin?account=deleted");
    assert.deepEqual(scan(app.db, ADA), []);
    assert.deepEqual(scan(app.db, NEW), []);
    assert.match(app.events.read(`notes:${bobs.noteID}`)[1]?.Subject ?? "", /^deleted:/);
  });

  it("the pseudonym is stable: the same person's events share one", async (t) => {
    const app = await startAccountApp(t);
    const ada = await app.signIn(ADA);
    await app.signIn(BOB);
    const bobs = seed(app, BOB, "b");
    const human = { String: () => "human" };
    app.events.append({ Stream: `notes:${bobs.noteID}`, Expected: 1, Type: "notes.commented", Data: {}, Actor: human, Subject: ADA });
    app.events.append({ Stream: "shared:board", Expected: 0, Type: "board.posted", Data: {}, Actor: human, Subject: ADA });
    assert.equal((await app.request("POST", ROUTES.delete, { jar: ada, form: { email: ADA } })).location, "/signin?account=deleted");
    const a = app.events.read(`notes:${bobs.noteID}`)[1]?.Subject;
    const b = app.events.read("shared:board")[0]?.Subject;
    assert.ok(a !== undefined && a === b);
  });
});
