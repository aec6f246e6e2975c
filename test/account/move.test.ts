/*
 * A change of address (lib/account, issue 24): the demo's whole schema,
 * two people with rows in every table that can hold one, one of them
 * moved through the emailed link; then every column of every table is
 * scanned for the old address, and the other person's rows compared.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { REVERSE_WINDOW } from "../../lib/account/index.ts";
import { MAX_PENDING_CHANGES } from "../../lib/account/account.ts";
import { LINK_TTL } from "../../lib/signin/index.ts";
import { auditStream } from "../../lib/events/index.ts";
import { ownerTag } from "../../lib/manifest/search.ts";
import type { CookieJar } from "../_support/http-client.ts";
import { startSMTPServer } from "../_support/smtp-server.ts";
import {
  appendedSince,
  askChange,
  confirmLink,
  eventRows,
  holdsNoPerson,
  mailTo,
  ROUTES,
  rowsWith,
  scan,
  scanRows,
  seed,
  startAccountApp,
  tablesOf,
  undoLink,
  type AccountApp,
} from "./harness.ts";

const ADA = "ada@example.com";
const BOB = "bob@example.org";
const NEW = "ada.lovelace@example.net";

async function twoPeople(
  t: Parameters<typeof startAccountApp>[0],
): Promise<{ app: AccountApp; ada: CookieJar; bob: CookieJar; other: CookieJar }> {
  const app = await startAccountApp(t);
  const other = await app.signIn(ADA); // Ada's other device
  const ada = await app.signIn(ADA);
  const bob = await app.signIn(BOB);
  return { app, ada, bob, other };
}

describe("account: change of address", () => {
  it("the seed gives both people a row in every table of the demo's database that can hold a person", async (t) => {
    const { app } = await twoPeople(t);
    seed(app, ADA, "a");
    seed(app, BOB, "b");
    for (const { table } of tablesOf(app.db)) {
      if (holdsNoPerson(table)) continue;
      for (const person of [ADA, BOB]) {
        assert.ok(
          rowsWith(app.db, person).some((row) => row.startsWith(`${table} `)),
          `${table} holds no row of ${person}: seed it (harness.ts)`,
        );
      }
    }
  });

  it("moves every row to the new address in one step: nothing is left under the old one, the other person is untouched", async (t) => {
    const { app, ada, bob, other } = await twoPeople(t);
    const seeded = seed(app, ADA, "a");
    seed(app, BOB, "b");
    const bobBefore = rowsWith(app.db, BOB);
    const { confirm, notice } = await askChange(app, ada, NEW, ADA);
    assert.match(notice, new RegExp(NEW.replace(/\./g, "\\.")), "the old address is told which address is asked");
    assert.doesNotMatch(notice, confirmLink, "the old address never gets the confirming link");
    const history = app.events.latestHistory(ADA, 1000).map((e) => `${e.Stream} ${e.Seq}`);
    const logged = eventRows(app.db);

    const before = app.smtp?.messages.length ?? 0;
    const confirmed = await app.request("GET", confirm, { jar: ada });
    assert.equal(confirmed.location, "/account/security?address=changed");
    assert.deepEqual(scanRows(app.db, ADA), [], "no column of any table but the event log holds the old address");
    // Issue 37: the log is append-only; the change adds the two links of the history and its own event, and changes none.
    assert.deepEqual(
      appendedSince(app.db, logged)
        .map((row) => (JSON.parse(row) as { type: string }).type)
        .sort(),
      ["auth.address_changed", "history.continued_from", "history.continues"],
    );
    assert.deepEqual(rowsWith(app.db, BOB), bobBefore, "the other person's rows are unchanged");

    const me = await app.request("GET", "/me", { jar: ada });
    assert.equal((JSON.parse(me.body) as { from: { Subject: string } }).from.Subject, NEW, "the current session is the new address's");
    assert.equal((await app.request("GET", "/me", { jar: other })).status, 401, "every other session ended");
    assert.equal(app.store.useRecoveryCode(NEW, seeded.recoveryCode), true, "recovery codes work under the new address");
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM notes WHERE owner = ?").get(NEW), { n: 1 });
    assert.deepEqual(
      app.events.read(auditStream(NEW)).map((e) => e.Type),
      ["history.continued_from", "auth.address_changed"],
      "the new audit stream starts with the link to the old one",
    );
    assert.equal(app.events.read(auditStream(ADA)).at(-1)?.Type, "history.continues", "the old one ends with the link to the new one");
    assert.deepEqual(
      app.events
        .latestHistory(NEW, 1000)
        .slice(3)
        .map((e) => `${e.Stream} ${e.Seq}`),
      history,
      "the new address's history holds every earlier event of the person, after the change and its links",
    );
    assert.equal(app.events.read(`notes:${seeded.noteID}`)[0]?.Subject, ADA, "an event keeps the subject it was recorded with");
    const undo = await mailTo(app, ADA, before);
    assert.match(undo, undoLink, "the old address gets the link that reverses the change");
    assert.match(undo, new RegExp(`\\b${Math.round(REVERSE_WINDOW / 86400000)}\\b`), "and how many days it works");
    void bob;
  });

  // Issue 22: a write and its audit event commit together or not at all.
  it("a moved record stays findable by its new owner: its search row carries the new owner's tag", async (t) => {
    const { app, ada } = await twoPeople(t);
    seed(app, ADA, "a");
    // The row lib/manifest's store writes with a record (search.ts searchRow): the owner's tag, then the searched text.
    app.db
      .prepare("INSERT INTO expenses_search (rowid, body) SELECT rowid, ? || char(10) || label FROM expenses WHERE owner = ?")
      .run(ownerTag(ADA), ADA);
    const { code } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=changed");
    assert.deepEqual(app.db.prepare("SELECT body FROM expenses_search").pluck().all(), [`${ownerTag(NEW)}\ntrain`]);
  });

  it("a change whose audit event cannot be written does not happen: everything stays under the old address", async (t) => {
    const { app, ada } = await twoPeople(t);
    seed(app, ADA, "a");
    const { code } = await askChange(app, ada, NEW, ADA);
    const before = rowsWith(app.db, ADA);
    app.db.exec(
      "CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END",
    );
    const refused = await app.request("POST", ROUTES.code, { jar: ada, form: { code } });
    assert.ok(refused.status >= 500, `the failure is answered as one (${refused.status})`);
    app.db.exec("DROP TRIGGER refuse_events");
    assert.deepEqual(
      scan(app.db, NEW).filter((c) => c !== "signin_rate_events.bucket" && c !== "account_address_changes.new_address"),
      [],
    );
    assert.deepEqual(
      rowsWith(app.db, ADA).filter((row) => !row.startsWith("signin_links ") && !row.startsWith("signin_rate_events ")),
      before.filter((row) => !row.startsWith("signin_links ") && !row.startsWith("signin_rate_events ")),
    );
  });

  it("refuses a second use of the link and of the code", async (t) => {
    const { app, ada } = await twoPeople(t);
    const { confirm, code } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=changed");
    assert.equal((await app.request("GET", confirm, { jar: ada })).location, "/account/security?address=link");
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=link");
  });

  it("a sign-in link of the new address, in the asking browser, confirms no change", async (t) => {
    const { app, ada } = await twoPeople(t);
    const { confirm } = await askChange(app, ada, NEW, ADA);
    const before = app.smtp?.messages.length ?? 0;
    await app.request("POST", "/signin", { jar: ada, form: { email: NEW } });
    const token = /\/auth\/verify\?token=([A-Za-z0-9_-]+)/.exec(await mailTo(app, NEW, before))?.[1] ?? "";
    assert.equal((await app.request("GET", `${ROUTES.confirm}?token=${token}`, { jar: ada })).location, "/account/security?address=link");
    assert.deepEqual(
      scan(app.db, NEW).filter(
        (c) => c !== "signin_rate_events.bucket" && c !== "account_address_changes.new_address" && c !== "signin_links.address",
      ),
      [],
    );
    assert.equal((await app.request("GET", confirm, { jar: ada })).location, "/account/security?address=changed");
  });

  it("a link opened in another browser spends nothing", async (t) => {
    const { app, ada, bob } = await twoPeople(t);
    const { confirm } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("GET", confirm, { jar: bob, unbound: true })).location, "/account/security?address=link");
    assert.equal((await app.request("GET", confirm, { jar: ada })).location, "/account/security?address=changed");
  });

  it("to an address that is already an account: the same answer, and the mail there says so; nothing moves", async (t) => {
    const { app, ada } = await twoPeople(t);
    const before = app.smtp?.messages.length ?? 0;
    const asked = await app.request("POST", ROUTES.change, { jar: ada, form: { email: BOB } });
    assert.equal(asked.location, "/account/security?address=sent");
    const text = await mailTo(app, BOB, before);
    assert.doesNotMatch(text, confirmLink);
    assert.match(text, /already/);
    assert.deepEqual(
      app.db.prepare("SELECT count(*) AS n FROM signin_links WHERE purpose = 'account.address'").get(),
      { n: 0 },
      "no link can confirm it",
    );
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM sessions WHERE subject = ?").get(ADA), { n: 2 });
  });

  it("the old address's link reverses the change once, within the window, and ends every session", async (t) => {
    const { app, ada, bob } = await twoPeople(t);
    seed(app, ADA, "a");
    seed(app, BOB, "b");
    const bobBefore = rowsWith(app.db, BOB);
    const { confirm } = await askChange(app, ada, NEW, ADA);
    const before = app.smtp?.messages.length ?? 0;
    await app.request("GET", confirm, { jar: ada });
    const token = undoLink.exec(await mailTo(app, ADA, before))?.[1] ?? "";
    const reversed = await app.request("POST", ROUTES.undo, { form: { token } });
    assert.equal(reversed.location, "/signin?account=reversed");
    assert.deepEqual(scanRows(app.db, NEW), [], "nothing is left under the new address but its history");
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM sessions WHERE subject = ?").get(ADA), { n: 0 }, "every session ended");
    assert.equal((await app.request("GET", "/me", { jar: ada })).status, 401);
    for (const [table, column] of [
      ["expenses", "owner"],
      ["notes", "owner"],
      ["agent_tokens", "subject"],
      ["passkey_credentials", "subject"],
    ]) {
      assert.deepEqual(
        app.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).get(ADA),
        { n: 1 },
        `${table} back under the old address`,
      );
    }
    assert.deepEqual(rowsWith(app.db, BOB), bobBefore);
    assert.equal((await app.request("POST", ROUTES.undo, { form: { token } })).location, "/signin?account=reverse_failed", "single use");
    void bob;
  });

  it("the reversal link expires after the window", async (t) => {
    const { app, ada } = await twoPeople(t);
    const { confirm } = await askChange(app, ada, NEW, ADA);
    const before = app.smtp?.messages.length ?? 0;
    await app.request("GET", confirm, { jar: ada });
    const token = undoLink.exec(await mailTo(app, ADA, before))?.[1] ?? "";
    app.clock.advance(REVERSE_WINDOW);
    assert.equal((await app.request("POST", ROUTES.undo, { form: { token } })).location, "/signin?account=reverse_failed");
    assert.equal(REVERSE_WINDOW, 7 * 24 * 60 * 60 * 1000);
  });

  it("keeps at most MAX_PENDING_CHANGES (3) changes waiting per person; an expired one frees its place", async (t) => {
    const { app, ada } = await twoPeople(t);
    assert.equal(MAX_PENDING_CHANGES, 3);
    for (let i = 0; i < MAX_PENDING_CHANGES; i++) await askChange(app, ada, `ada.${i}@example.net`, ADA);
    const refused = await app.request("POST", ROUTES.change, { jar: ada, form: { email: "ada.more@example.net" } });
    assert.equal(refused.location, "/account/security?address=busy");
    app.clock.advance(LINK_TTL);
    const fresh = await app.signIn(ADA); // asking needs a fresh session; the first is 10 minutes old
    await askChange(app, fresh, "ada.more@example.net", ADA);
  });

  it("answers a request to an account's address as to a free one: same outcome, same cookies, same count against the limit", async (t) => {
    const { app, ada } = await twoPeople(t);
    const cookieNames = (lines: readonly string[]): string[] => lines.map((line) => line.slice(0, line.indexOf("="))).sort();
    const free = await app.request("POST", ROUTES.change, { jar: ada, form: { email: NEW } });
    const taken = await app.request("POST", ROUTES.change, { jar: ada, form: { email: BOB } });
    assert.equal(taken.location, free.location);
    assert.deepEqual(cookieNames(taken.setCookie), cookieNames(free.setCookie));
    await app.request("POST", ROUTES.change, { jar: ada, form: { email: "ada.third@example.net" } });
    const fourth = await app.request("POST", ROUTES.change, { jar: ada, form: { email: "ada.fourth@example.net" } });
    assert.equal(fourth.location, "/account/security?address=busy", "the taken address's request counted too");
  });

  it("a confirmation the mail server refuses changes nothing: no link, no waiting change, an error logged with a reference", async (t) => {
    const refusing = await startSMTPServer({ fail: { at: "DATA", code: 554 } });
    t.after(() => refusing.close());
    const app = await startAccountApp(t, { accountMailURL: `smtp://127.0.0.1:${refusing.port}` });
    const ada = await app.signIn(ADA);
    const asked = await app.request("POST", ROUTES.change, { jar: ada, form: { email: NEW } });
    assert.equal(asked.location, "/account/security?address=mail");
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM signin_links WHERE purpose = 'account.address'").get(), { n: 0 });
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM account_address_changes").get(), { n: 0 });
    const failure = app.log.lines().find((line) => line["msg"] === "account: sending the confirmation failed");
    assert.match(String(failure?.["ref"]), /^[A-Za-z0-9-]{6,}$/);
  });
});
