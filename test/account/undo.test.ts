/*
 * An undo that holds (issue 36 item 3): a refused undo spends nothing; the
 * undo works when the old address has become an account since (the
 * person signed in there again, or a write authenticated before the change
 * was held open across it), and it ends what the changer holds: sessions,
 * agent tokens, OAuth grants.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { auditStream } from "../../lib/events/index.ts";
import {
  appendedSince,
  askChange,
  eventRows,
  mailTo,
  ROUTES,
  scanRows,
  seed,
  startAccountApp,
  undoLink,
  type AccountApp,
} from "./harness.ts";
import { startRaceApp, TOOLS_RESOURCE, type RaceApp } from "./race-app.ts";
import type { CookieJar } from "../_support/http-client.ts";

const ADA = "ada@example.com";
const NEW = "mallory@example.net";

const reversals = (app: AccountApp): number => (app.db.prepare("SELECT count(*) AS n FROM account_reversals").get() as { n: number }).n;

/** The changer, holding `jar` (Ada's session), moves the account to NEW with the code; returns the undo token Ada's inbox got. */
async function takeOver(app: AccountApp, jar: CookieJar): Promise<{ token: string; notice: string }> {
  const { code } = await askChange(app, jar, NEW, ADA);
  const before = app.smtp?.messages.length ?? 0;
  assert.equal((await app.request("POST", ROUTES.code, { jar, form: { code } })).location, "/account/security?address=changed");
  const notice = await mailTo(app, ADA, before);
  return { token: undoLink.exec(notice)?.[1] ?? "", notice };
}

const tools = (app: RaceApp, token: string, tool: string, body: unknown = {}) =>
  app.request("POST", `/api/tools/${tool}`, {
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("account: an undo that holds", () => {
  it("a refused undo spends nothing: the link works afterwards", async (t) => {
    const app = await startAccountApp(t);
    const ada = await app.signIn(ADA);
    const { token } = await takeOver(app, ada);
    assert.equal((await app.request("POST", ROUTES.undo, { form: { token: "x".repeat(43) } })).location, "/signin?account=reverse_failed");
    assert.equal(reversals(app), 1);
    // The undo's audit event cannot be written: the whole undo rolls back, the link with it.
    app.db.exec("CREATE TEMP TRIGGER refuse_events BEFORE INSERT ON main.events BEGIN SELECT RAISE(ABORT, 'injected: disk full'); END");
    const failed = await app.request("POST", ROUTES.undo, { form: { token } });
    assert.ok(failed.status >= 500, `answered as a failure (${failed.status})`);
    app.db.exec("DROP TRIGGER refuse_events");
    assert.equal(reversals(app), 1, "the link was not spent");
    assert.equal((await app.request("POST", ROUTES.undo, { form: { token } })).location, "/signin?account=reversed");
    assert.equal(reversals(app), 0);
  });

  it("works after the person signed in again at the old address: that account joins theirs, every session of both ends", async (t) => {
    const app = await startAccountApp(t);
    const stolen = await app.signIn(ADA);
    seed(app, ADA, "a");
    const { token, notice } = await takeOver(app, stolen);
    assert.match(notice, /Use this link first/, "the notice says what to do first");
    assert.match(notice, /Signing in again at this address does not bring the account back/);
    // Ada, seeing the notice, signs in at her own address: a new, empty account there.
    const ada = await app.signIn(ADA);
    assert.equal((await app.request("GET", "/me", { jar: ada })).status, 200);
    const history = app.events.latestHistory(NEW, 1000).map((e) => `${e.Stream} ${e.Seq}`);
    const since = app.events.latestHistory(ADA, 1000).map((e) => `${e.Stream} ${e.Seq}`);
    const logged = eventRows(app.db);

    assert.equal((await app.request("POST", ROUTES.undo, { form: { token } })).location, "/signin?account=reversed");
    assert.deepEqual(scanRows(app.db, NEW), [], "nothing is left under the changer's address but its history");
    assert.deepEqual(
      appendedSince(app.db, logged)
        .map((row) => (JSON.parse(row) as { type: string }).type)
        .sort(),
      ["auth.address_change_reversed", "history.continued_from", "history.continues"],
      "the undo changes no event: it links the histories and records itself",
    );
    assert.equal((await app.request("GET", "/me", { jar: stolen })).status, 401, "the changer's session ended");
    assert.equal((await app.request("GET", "/me", { jar: ada })).status, 401, "and the one at the old address");
    for (const [table, column] of [
      ["signin_accounts", "address"],
      ["expenses", "owner"],
      ["notes", "owner"],
      ["passkey_user_handles", "subject"],
    ])
      assert.deepEqual(
        app.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).get(ADA),
        { n: 1 },
        `${table}: one row of Ada`,
      );
    const merged = app.events.latestHistory(ADA, 1000).map((e) => `${e.Stream} ${e.Seq}`);
    assert.deepEqual(
      merged.filter((e) => !history.includes(e) && !since.includes(e)).length,
      3,
      "both histories read as one: the account's, what was made at the old address since, the undo's links and event",
    );
    assert.equal(merged.length, history.length + since.length + 3);
    assert.equal(app.events.read(auditStream(ADA)).at(-1)?.Type, "auth.address_change_reversed");
    const again = await app.signIn(ADA);
    assert.equal((JSON.parse((await app.request("GET", "/me", { jar: again })).body) as { from: { Subject: string } }).from.Subject, ADA);
  });

  it("a form post held open across the change commits nothing; the undo ends the changer's session, tokens and grants", async (t) => {
    const app = await startRaceApp(t);
    const stolen = await app.signIn(ADA);
    seed(app, ADA, "a");
    const arrived = app.authenticated();
    const held = app.hold("POST", "/expenses", "label=held&amount=12.00", stolen);
    await arrived;
    const { token } = await takeOver(app, stolen);
    const late = await held.finish();
    assert.equal(late.status, 303, "answered as an expired session");
    assert.equal(late.location, "/signin");
    assert.deepEqual(app.db.prepare("SELECT count(*) AS n FROM expenses WHERE label = 'held'").get(), { n: 0 }, "nothing landed");

    // The changer gives an agent a token and connects an OAuth client under the new address.
    const pasted = app.tokens.mint({ Subject: NEW, Name: "evil", Access: "write" }).Token;
    const client = { ID: "https://evil.example/client.json", Name: "Evil", Host: "evil.example" };
    const grant = app.tokens.mint({ Subject: NEW, Name: "evil-app", Access: "write", Client: client }).Info.ID;
    const access = app.tokens.issueAccessToken(grant, TOOLS_RESOURCE, 3600_000)?.Token ?? "";
    assert.equal((await tools(app, pasted, "expenses_list")).status, 200);
    assert.equal((await tools(app, access, "expenses_list")).status, 200);

    const undone = await app.request("POST", ROUTES.undo, { form: { token } });
    assert.equal(undone.location, "/signin?account=reversed");
    assert.equal((await app.request("GET", "/me", { jar: stolen })).status, 401, "the changer's session ended");
    for (const bearer of [pasted, access]) {
      const refused = await tools(app, bearer, "expenses_list");
      assert.equal(refused.status, 401, "the changer's token and grant ended");
      assert.match(String(refused.headers["www-authenticate"]), /invalid_token/);
    }
    assert.equal(app.tokens.issueAccessToken(grant, TOOLS_RESOURCE, 3600_000), undefined, "the grant cannot be refreshed");
    assert.equal(app.expensesOf(ADA), 1, "Ada's records are under her address again");
    assert.deepEqual(scanRows(app.db, NEW), []);
  });
});
