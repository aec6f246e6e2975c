/*
 * Step 9 of docs/guide.md: the guide's application (examples/guide, the
 * starter's account pages) over HTTP with its real SMTP peer. One person
 * finds the security page, downloads their data as JSON, moves the account
 * to a new address from the new inbox (the old inbox told, the other
 * session ended, the security notice linking back to the page), moves it
 * back from the old inbox, and deletes it: nothing at the address after,
 * the agent token refused, a new sign-in empty.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { OpenDB } from "../../lib/db/index.ts";
import { scanRows } from "../account/harness.ts";
import { mintAgentToken, signInOverHTTP, startGuide, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

const OLD = "ada@example.com";
const NEW = "ada@example.net";

describe("the guide's account step (HTTP)", () => {
  let app: Demo;
  let ada: CookieJar;
  // Without Accept: text/html, RequireSession answers a request with no live session 401 (a browser gets 303 to /signin).
  const get = (jar: CookieJar | undefined, path: string): Promise<TestResponse> =>
    sendRequest(app.origin, "GET", path, jar === undefined ? {} : { jar }, app.origin);
  const post = (jar: CookieJar | undefined, path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(app.origin, "POST", path, jar === undefined ? { form } : { jar, form }, app.origin);
  /** The text of the first mail to `address` received after the `since`-th, whose text matches `pattern`. */
  const mailTo = async (address: string, since: number, pattern: RegExp): Promise<string> => {
    const found = await app.smtp.waitForMessage(
      (m) => app.smtp.messages.indexOf(m) >= since && m.to.includes(address) && pattern.test(m.parsed.text ?? ""),
    );
    return found.parsed.text ?? "";
  };
  const exported = async (jar: CookieJar): Promise<{ reply: TestResponse; doc: Record<string, unknown> }> => {
    const reply = await get(jar, "/account/export");
    assert.equal(reply.status, 200, reply.body);
    return { reply, doc: JSON.parse(reply.body) as Record<string, unknown> };
  };
  const projectNames = (doc: Record<string, unknown>): unknown[] =>
    ((doc["tables"] as Record<string, Record<string, unknown>[]>)["projects"] ?? []).map((row) => row["name"]);

  before(async () => {
    app = await startGuide();
    ada = await signInOverHTTP(app, OLD);
  });
  after(async () => {
    await app?.close();
  });

  it("links the security page from the account page; it shows this session, the address and the data cards", async () => {
    const account = await get(ada, "/account");
    assert.match(account.body, /<a href="\/account\/security" data-account-link="security">Security settings<\/a>/);
    const page = await get(ada, "/account/security");
    assert.equal(page.status, 200);
    assert.equal((page.body.match(/<li class="card" data-session-id="[^"]+" data-current>/g) ?? []).length, 1);
    assert.ok(page.body.includes(`<p data-account-address="${OLD}">${OLD}</p>`));
    assert.match(page.body, /<form method="post" action="\/account\/address" data-account-form="address">/);
    assert.match(page.body, /<a href="\/account\/export" data-account-export download>/);
    assert.match(page.body, /<form method="post" action="\/account\/delete" data-account-form="delete">/);
    assert.match(page.body, /data-account-notices>/);
    const arabic = await get(ada, "/ar/account/security");
    assert.match(arabic.body, /<h1>إعدادات الأمان<\/h1>/);
  });

  it("downloads the person's data as one JSON document, their records in it", async () => {
    const created = await post(ada, "/projects", { name: "Workshop" });
    assert.equal(created.status, 303, created.body);
    const { reply, doc } = await exported(ada);
    assert.equal(reply.headers["content-type"], "application/json; charset=utf-8");
    assert.equal(reply.headers["content-disposition"], 'attachment; filename="account.json"');
    assert.equal(doc["format"], "latch.account-export.v1");
    assert.equal(doc["subject"], OLD);
    assert.deepEqual(projectNames(doc), ["Workshop"]);
    assert.ok(Array.isArray(doc["events"]));
  });

  it("moves the account to the address confirmed from its inbox; the old inbox is told and moves it back", async () => {
    const other = await signInOverHTTP(app, OLD);
    assert.equal((await get(other, "/account")).status, 200);
    const asked = app.smtp.messages.length;
    assert.equal((await post(ada, "/account/address", { email: NEW })).location, "/account/security?address=sent");
    const confirm = /\/account\/address\/confirm\?token=[A-Za-z0-9_-]+/.exec(await mailTo(NEW, asked, /address\/confirm/))?.[0] ?? "";
    assert.notEqual(confirm, "", "the new inbox gets the link");
    assert.match(await mailTo(OLD, asked, new RegExp(NEW.replace(/\./g, "\\."))), /./, "the old inbox is told");

    const confirmed = app.smtp.messages.length;
    assert.equal((await get(ada, confirm)).location, "/account/security?address=changed");
    const moved = await get(ada, "/account/security?address=changed");
    assert.ok(moved.body.includes(`<p data-account-address="${NEW}">${NEW}</p>`));
    assert.match(moved.body, /data-outcome="address-changed"/);
    assert.equal((await get(other, "/account")).status, 401, "the other session ended");
    // Step 2's security notice tells the new address, and links to the page where sessions end.
    assert.ok((await mailTo(NEW, confirmed, /\/account\/security/)).includes(`${app.origin}/account/security`));
    const { doc } = await exported(ada);
    assert.equal(doc["subject"], NEW);
    assert.deepEqual(projectNames(doc), ["Workshop"]);

    const undo = /\/account\/address\/undo\?token=([A-Za-z0-9_-]+)/.exec(await mailTo(OLD, confirmed, /address\/undo/));
    const token = undo?.[1] ?? "";
    const page = await get(undefined, undo?.[0] ?? "");
    assert.equal(page.status, 200);
    assert.equal(page.headers["referrer-policy"], "no-referrer");
    assert.ok(page.body.includes(`<input type="hidden" name="token" value="${token}">`));
    assert.equal((await post(undefined, "/account/address/undo", { token })).location, "/signin?account=reversed");
    assert.equal((await get(ada, "/account")).status, 401, "every session ended");
    assert.match((await get(undefined, "/signin?account=reversed")).body, /data-outcome="account-reversed"/);
    ada = await signInOverHTTP(app, OLD);
    assert.deepEqual(projectNames((await exported(ada)).doc), ["Workshop"], "back at the old address");
  });

  it("deletes the account once the person types their own address: its rows, sessions and tokens end", async () => {
    const token = await mintAgentToken(app, ada, "helper", "read");
    assert.equal((await post(ada, "/account/delete", { email: NEW })).location, "/account/security?delete=confirm");
    assert.match((await get(ada, "/account/security?delete=confirm")).body, /data-outcome="delete-confirm"/);
    assert.deepEqual(projectNames((await exported(ada)).doc), ["Workshop"], "nothing deleted");

    assert.equal((await post(ada, "/account/delete", { email: OLD })).location, "/signin?account=deleted");
    assert.equal((await get(ada, "/account")).status, 401, "signed out");
    assert.match((await get(undefined, "/signin?account=deleted")).body, /data-outcome="account-deleted"/);
    const call = await sendRequest(
      app.origin,
      "POST",
      "/api/tools/expenses_list",
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{}" },
      app.origin,
    );
    assert.equal(call.status, 401);
    const db = OpenDB(join(app.stateDir, "app.db"));
    try {
      assert.deepEqual(scanRows(db, OLD), [], "no row holds the address");
    } finally {
      db.close();
    }
    ada = await signInOverHTTP(app, OLD);
    assert.deepEqual(projectNames((await exported(ada)).doc), [], "a new account at the address starts empty");
    assert.deepEqual(app.errorLogs(), []);
  });
});
