/*
 * Operators end to end in the demo (its real entry point, real SMTP, headless Chromium with a CDP virtual
 * authenticator): every operator route answers 404 to anyone not an operator (signed out, signed in, an agent's token);
 * the operator without a passkey-confirmed session is sent to step up; after the step-up the operator finds a person,
 * suspends them (their browser session, their agent token's and their OAuth client's next call and their next sign-in
 * refused, a notice mailed, both audit streams written), then reactivates them (sign-in works again); resets a person's
 * passkeys and recovery codes (mailed; the link signs them in without the passkey, which is gone: they enrol again).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { addVirtualAuthenticator, hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { grantOAuthClient, isSigninMail, mintAgentToken, signInByLink, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { postMCP } from "../_support/mcp-client.ts";
import { CookieJar, sendRequest } from "../_support/http-client.ts";
import { decodeWords } from "../_support/mail-parse.ts";
import { BaseCatalogs, BaseLocales } from "../../lib/i18n/index.ts";

const OPERATOR = "op@example.com";
const PERSON = "victim@example.com";
const FRESH_SECONDS = 600;

/** Every operator route, with a form for the POSTs (a valid one: only the gate may refuse it). */
const ROUTES: readonly [string, string][] = [
  ["GET", "/operators"],
  ["GET", "/operators?q=vic"],
  ["GET", `/operators/person?address=${encodeURIComponent(PERSON)}`],
  ["POST", "/operators/suspend"],
  ["POST", "/operators/reactivate"],
  ["POST", "/operators/end-access"],
  ["POST", "/operators/reset-passkeys"],
  ["POST", "/operators/end-everyone"],
  ["GET", `/operators/audit?address=${encodeURIComponent(PERSON)}`],
];
const FORM = { address: PERSON, reason: "test" };
const LIST_TOOLS = { jsonrpc: "2.0", id: 1, method: "tools/list" };

/** One line of an audit export (lib/events README, "A stream as JSON Lines"). */
interface AuditLine {
  stream: string;
  seq: number;
  type: string;
  data: string;
  actor: string;
  subject: string;
  at: number;
  prev_hash: string;
  hash: string;
}

/**
 * The chain's hash recomputed from lib/events README's description alone, as an outside tool would (no latch code):
 * SHA-256 over prev_hash's 32 bytes, then each column as a 4-byte big-endian length of its UTF-8 bytes and those bytes.
 */
function recomputed(line: AuditLine): string {
  const sha = createHash("sha256").update(Buffer.from(line.prev_hash, "hex"));
  for (const value of [line.stream, String(line.seq), line.type, line.data, line.actor, line.subject, String(line.at)]) {
    const bytes = Buffer.from(value, "utf8");
    sha.update(Buffer.from([bytes.length >>> 24, (bytes.length >>> 16) & 255, (bytes.length >>> 8) & 255, bytes.length & 255]));
    sha.update(bytes);
  }
  return sha.digest("hex");
}

/** Signs `address` in over HTTP and answers where the emailed link lands (not asserting it is /account). */
async function signinLanding(demo: Demo, address: string): Promise<string | undefined> {
  const jar = new CookieJar();
  const before = demo.smtp.messages.length;
  await sendRequest(demo.origin, "POST", "/signin", { jar, form: { email: address } }, demo.origin);
  const mail = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address) && isSigninMail(m));
  const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
  return (await sendRequest(demo.origin, "GET", link, { jar }, demo.origin)).location;
}

describe("operators in the demo", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  let person: CookieJar;
  let token = "";
  let oauthToken = "";

  before(async () => {
    demo = await startDemo({ FRESH_SECONDS: String(FRESH_SECONDS), OPERATORS: ` ${OPERATOR.toUpperCase()} , other-op@example.com` });
    browser = await launchBrowser();
    page = (await watchedPage(await browser.newContext())).page;
    await addVirtualAuthenticator(page);
    person = await signInOverHTTP(demo, PERSON);
    token = await mintAgentToken(demo, person, "helper", "read");
    oauthToken = await grantOAuthClient(demo, person, "read");
    assert.equal((await postMCP(demo, oauthToken, LIST_TOOLS)).status, 200, "the OAuth client's call before the suspension");
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("answers 404 on every operator route to the signed out, a signed-in person and an agent's token, and changes nothing", async () => {
    for (const [method, target] of ROUTES) {
      const form = method === "POST" ? { ...FORM, confirm: new URL(demo.origin).host } : undefined;
      const html = { Accept: "text/html" };
      const anonymous = await sendRequest(demo.origin, method, target, { headers: html, ...(form && { form }) }, demo.origin);
      const signedIn = await sendRequest(demo.origin, method, target, { jar: person, headers: html, ...(form && { form }) }, demo.origin);
      const agent = await sendRequest(
        demo.origin,
        method,
        target,
        { headers: { ...html, Authorization: `Bearer ${token}` }, ...(form && { form }) },
        demo.origin,
      );
      assert.deepEqual([anonymous.status, signedIn.status, agent.status], [404, 404, 404], `${method} ${target}`);
    }
    assert.equal(
      (await sendRequest(demo.origin, "GET", "/account", { jar: person }, demo.origin)).status,
      200,
      "the person is still signed in",
    );
  });

  it("sends the operator's session to step up until a passkey confirms it, then shows the operator pages", async () => {
    await signInByLink(page, demo, OPERATOR);
    await page.waitForURL(`${demo.origin}/account`);
    await page.click('button[data-passkey="register"]');
    await page.waitForSelector("li[data-credential]");
    // A fresh session from an emailed link is not passkey-confirmed: the operator steps up first.
    await page.goto(`${demo.origin}/operators`);
    await page.waitForURL(/\/stepup\?next=%2Foperators$/);
    await page.click('button[data-passkey="stepup"]');
    await page.waitForURL(`${demo.origin}/operators`);
    await page.fill("#operators-q", "VIC");
    await page.click("form[data-operators-search] button");
    await page.click(`a:text("${PERSON}")`);
    await page.waitForSelector(`[data-operators-person="${PERSON}"]`);
    assert.equal(await page.getAttribute("[data-operators-status]", "data-operators-status"), "active");
    assert.equal(
      await page.evaluate(`document.querySelector('table[data-operators-table="agent_tokens"]') !== null`),
      true,
      "tokens shown",
    );
  });

  it("suspends in one transaction with its events: when the event cannot be stored, nothing of the suspension is", async () => {
    const db = new Database(join(demo.stateDir, "demo.db"));
    try {
      db.exec(
        "CREATE TRIGGER refuse_operator_events BEFORE INSERT ON events WHEN NEW.type LIKE 'operator.%' BEGIN SELECT RAISE(ABORT, 'injected: database or disk is full'); END",
      );
      const status = await page.evaluate(
        `fetch("/operators/suspend", { method: "POST", body: new URLSearchParams({ address: "${PERSON}", reason: "refused" }) }).then((r) => r.status)`,
      );
      assert.equal(status, 500);
      assert.equal(db.prepare("SELECT count(*) FROM operator_suspensions").pluck().get(), 0, "no suspension");
      assert.equal((await sendRequest(demo.origin, "GET", "/account", { jar: person }, demo.origin)).status, 200, "the session stands");
      const live = db.prepare("SELECT count(*) FROM agent_tokens WHERE subject = ? AND revoked_at IS NULL").pluck().get(PERSON);
      assert.equal(live, 2, "the agent token and the OAuth grant stand");
    } finally {
      db.exec("DROP TRIGGER IF EXISTS refuse_operator_events");
      db.close();
    }
  });

  it("suspends: the session, the agent token and the next sign-in are refused, the person is mailed, both streams record it", async () => {
    const before = demo.smtp.messages.length;
    // A half-finished passkey sign-in (a first factor made, the passkey not yet given) must not be finished after it.
    const half = new Database(join(demo.stateDir, "demo.db"));
    try {
      half
        .prepare("INSERT INTO passkey_pending (token_hash, subject, first_method, expires_at) VALUES ('half', ?, 'magiclink', ?)")
        .run(PERSON, Date.now() + 300_000);
    } finally {
      half.close();
    }
    await page.fill("#reason-suspend", "account taken over");
    await page.click('form[data-operators-action="suspend"] button');
    await page.waitForSelector('[data-outcome="suspended"]');
    assert.equal(await page.getAttribute("[data-operators-status]", "data-operators-status"), "suspended");

    const account = await sendRequest(demo.origin, "GET", "/account", { jar: person, headers: { Accept: "text/html" } }, demo.origin);
    assert.deepEqual([account.status, account.location], [303, "/signin"], "the browser session ended");
    const whoami = await sendRequest(demo.origin, "GET", "/api/whoami", { headers: { Authorization: `Bearer ${token}` } }, demo.origin);
    assert.equal(whoami.status, 401, "the agent token's next call");
    assert.equal((await postMCP(demo, oauthToken, LIST_TOOLS)).status, 401, "the OAuth client's next call");
    assert.equal(await signinLanding(demo, PERSON), "/signin?err=suspended");
    const refused = await sendRequest(demo.origin, "GET", "/signin?err=suspended", {}, demo.origin);
    assert.match(refused.body, /data-outcome="suspended"[^>]*>[^<]*(<svg[\s\S]*?<\/svg>)?\s*This account is suspended/);

    const notice = await demo.smtp.waitForMessage(
      (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(PERSON) && !isSigninMail(m),
    );
    assert.equal(notice.parsed.headers.get("subject"), "Your account has been suspended");
    assert.match(notice.parsed.text ?? "", /Reason given: account taken over/);

    const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
    try {
      const rows = db.prepare("SELECT stream, actor, data FROM events WHERE type = 'operator.suspended' ORDER BY stream").all() as {
        stream: string;
        actor: string;
        data: string;
      }[];
      assert.deepEqual(
        rows.map((r) => [r.stream, r.actor, JSON.parse(r.data).operator ?? JSON.parse(r.data).subject]),
        [
          [`audit:${OPERATOR}`, "human", PERSON],
          [`audit:${PERSON}`, "human", OPERATOR],
        ],
      );
      assert.equal(
        db.prepare("SELECT count(*) AS n FROM passkey_pending WHERE subject = ?").pluck().get(PERSON),
        0,
        "the half-finished sign-in",
      );
      const live = db.prepare("SELECT count(*) AS n FROM agent_tokens WHERE subject = ? AND revoked_at IS NULL").get(PERSON) as {
        n: number;
      };
      assert.equal(live.n, 0, "every agent token and OAuth grant revoked");
    } finally {
      db.close();
    }
  });

  it("reactivates: the person signs in again and is mailed", async () => {
    await page.fill("#reason-reactivate", "owner verified");
    await page.click('form[data-operators-action="reactivate"] button');
    await page.waitForSelector('[data-outcome="reactivated"]');
    assert.equal(await signinLanding(demo, PERSON), "/account");
    await demo.smtp.waitForMessage((m) => m.to.includes(PERSON) && m.parsed.headers.get("subject") === "Your account has been reactivated");
  });

  it("resets a person's passkeys and recovery codes: their session ends, they are mailed, the link no longer asks the passkey", async () => {
    const lost = "lost-key@example.com";
    const theirs = (await watchedPage(await browser.newContext())).page;
    await addVirtualAuthenticator(theirs);
    await signInByLink(theirs, demo, lost);
    await theirs.waitForURL(`${demo.origin}/account`);
    await theirs.click('button[data-passkey="register"]');
    await theirs.waitForSelector("li[data-credential]");
    await theirs.click('form[action="/account/recovery-codes"] button');
    await theirs.waitForSelector("ul.codes code");

    const before = demo.smtp.messages.length;
    await page.goto(`${demo.origin}/operators/person?address=${encodeURIComponent(lost)}`);
    await page.click('form[data-operators-action="reset_passkeys"] button');
    await page.waitForSelector('[data-outcome="passkeys_reset"]');
    // Security notices (a new device, new recovery codes) go to the same address: the operator's notice by its subject.
    const subject = BaseCatalogs().get("en")?.["mail.operator.passkeys_reset.subject"];
    await demo.smtp.waitForMessage(
      (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(lost) && m.parsed.headers.get("subject") === subject,
    );

    await theirs.goto(`${demo.origin}/account`);
    await theirs.waitForURL(`${demo.origin}/signin`);
    // With a passkey, the link leads to /confirm for it (test/e2e/passkey.test.ts); without, straight to the account.
    await signInByLink(theirs, demo, lost);
    await theirs.waitForURL(`${demo.origin}/account`);
    assert.equal(await theirs.evaluate(`document.querySelectorAll("li[data-credential]").length`), 0, "enrol again");
    const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
    try {
      const count = (table: string): unknown => db.prepare(`SELECT count(*) AS n FROM ${table} WHERE subject = ?`).pluck().get(lost);
      assert.deepEqual([count("passkey_credentials"), count("passkey_recovery_codes")], [0, 0]);
      const reset = db.prepare("SELECT stream FROM events WHERE type = 'operator.passkeys_reset' ORDER BY stream").pluck().all();
      assert.deepEqual(reset, [`audit:${lost}`, `audit:${OPERATOR}`]);
    } finally {
      db.close();
    }
    await theirs.context().close();
  });

  it("shows the person's audit chain head to them and to the operator, and exports their stream as JSON Lines an outside tool verifies", async () => {
    const jar = await signInOverHTTP(demo, PERSON);
    const activity = await sendRequest(demo.origin, "GET", "/account/activity", { jar }, demo.origin);
    const shown = /data-audit-head-seq="(\d+)" data-audit-head-hash="([0-9a-f]{64})"/.exec(activity.body);
    assert.ok(shown !== null, "the activity page shows the head");
    await page.goto(`${demo.origin}/operators/person?address=${encodeURIComponent(PERSON)}`);
    const [seq, hash] = [
      await page.getAttribute("[data-audit-head-seq]", "data-audit-head-seq"),
      await page.getAttribute("[data-audit-head-hash]", "data-audit-head-hash"),
    ];
    assert.deepEqual([seq, hash], [shown[1], shown[2]], "the operator's page shows the same head");
    // WCAG 1.4.10 (reflow): the 64 hex digits wrap on a 320-pixel screen.
    await page.setViewportSize({ width: 320, height: 640 });
    const head = `(() => { const p = document.querySelector("[data-audit-head-hash]"); return p.scrollWidth <= p.clientWidth; })()`;
    assert.equal(await page.evaluate(head), true, "the head does not overflow its line");
    await page.setViewportSize({ width: 1280, height: 720 });

    const exported = (await page.evaluate(
      `fetch(document.querySelector("a[data-operators-audit]").href).then(async (r) => [r.status, r.headers.get("content-type"), await r.text()])`,
    )) as [number, string, string];
    assert.deepEqual(exported.slice(0, 2), [200, "application/jsonl; charset=utf-8"]);
    const lines = exported[2]
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as AuditLine);
    let prev = "0".repeat(64);
    for (const [i, line] of lines.entries()) {
      assert.deepEqual([line.stream, line.seq, line.prev_hash], [`audit:${PERSON}`, i + 1, prev], `link at ${i + 1}`);
      assert.equal(recomputed(line), line.hash, `hash at ${line.seq}`);
      prev = line.hash;
    }
    assert.equal(lines[Number(seq) - 1]?.hash, hash, "the head shown is in the export");
    // The export records itself on both streams before the lines are read: the last line is it.
    assert.deepEqual([lines.at(-1)?.type, JSON.parse(lines.at(-1)?.data ?? "{}")], ["operator.audit_exported", { operator: OPERATOR }]);
    const anonymous = await sendRequest(demo.origin, "GET", `/operators/audit?address=${encodeURIComponent(PERSON)}`, { jar }, demo.origin);
    assert.equal(anonymous.status, 404, "a non-operator");
  });

  it("says the account is suspended, on the sign-in page and in the notice, in each of the 12 languages", async () => {
    assert.equal(BaseLocales().length, 12);
    for (const locale of BaseLocales()) {
      const address = `p-${locale.toLowerCase()}@example.com`;
      const words = BaseCatalogs().get(locale) ?? {};
      // The person's language is that of the browser they signed in from last (sign-in's known devices).
      const jar = new CookieJar();
      jar.cookies.set("framework_locale", locale);
      const before = demo.smtp.messages.length;
      await sendRequest(demo.origin, "POST", "/signin", { jar, form: { email: address } }, demo.origin);
      const mail = await demo.smtp.waitForMessage(
        (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address) && isSigninMail(m),
      );
      await sendRequest(
        demo.origin,
        "GET",
        /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "",
        { jar },
        demo.origin,
      );
      const status = await page.evaluate(
        `fetch("/operators/suspend", { method: "POST", body: new URLSearchParams({ address: "${address}", reason: "r-${locale}" }) }).then((r) => r.status)`,
      );
      assert.equal(status, 200, locale);
      const notice = await demo.smtp.waitForMessage((m) => m.to.includes(address) && !isSigninMail(m));
      assert.equal(decodeWords(notice.parsed.headers.get("subject") ?? ""), words["mail.operator.suspended.subject"], locale);
      assert.ok((notice.parsed.text ?? "").includes(words["mail.operator.reason"]?.replace("{reason}", `r-${locale}`) ?? "?"), locale);
      const shown = await sendRequest(demo.origin, "GET", "/signin?err=suspended", { jar }, demo.origin);
      assert.ok(shown.body.includes(words["signin.err.suspended"] ?? "?"), `${locale} sign-in page`);
    }
  });

  it("refuses a suspension without a reason (400 naming the field) and writes nothing", async () => {
    const status = await page.evaluate(
      `fetch("/operators/suspend", { method: "POST", body: new URLSearchParams({ address: "${PERSON}", reason: "" }) }).then((r) => r.status)`,
    );
    assert.equal(status, 400);
    assert.equal(await signinLanding(demo, PERSON), "/account");
  });

  it("ends everyone's sessions, agent tokens and OAuth grants once the host is typed, keeping the operator's own session", async () => {
    const someone = "incident@example.com";
    const jar = await signInOverHTTP(demo, someone);
    const agent = await mintAgentToken(demo, jar, "incident-helper", "read");
    const client = await grantOAuthClient(demo, jar, "read");
    const host = new URL(demo.origin).host;
    await page.goto(`${demo.origin}/operators`);
    assert.equal(await page.getAttribute("#operators-confirm", "data-phrase"), host);
    const wrong = await page.evaluate(
      `fetch("/operators/end-everyone", { method: "POST", body: new URLSearchParams({ confirm: "everyone" }) }).then((r) => r.status)`,
    );
    assert.equal(wrong, 400, "a wrong phrase");
    assert.equal((await sendRequest(demo.origin, "GET", "/account", { jar }, demo.origin)).status, 200, "nothing ended on a refusal");

    await page.fill("#operators-confirm", host);
    await page.click('form[data-operators-action="end_everyone"] button');
    await page.waitForSelector('[data-outcome="everyone_ended"]');
    const account = await sendRequest(demo.origin, "GET", "/account", { jar, headers: { Accept: "text/html" } }, demo.origin);
    assert.deepEqual([account.status, account.location], [303, "/signin"], "the person's browser session");
    const whoami = await sendRequest(demo.origin, "GET", "/api/whoami", { headers: { Authorization: `Bearer ${agent}` } }, demo.origin);
    assert.equal(whoami.status, 401, "the agent token's next call");
    assert.equal((await postMCP(demo, client, LIST_TOOLS)).status, 401, "the OAuth client's next call");
    await page.goto(`${demo.origin}/operators`);
    assert.equal(new URL(page.url()).pathname, "/operators", "the operator's own session stays");

    const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
    try {
      const live = db.prepare("SELECT count(*) FROM sessions WHERE subject != ?").pluck().get(OPERATOR);
      const tokens = db.prepare("SELECT count(*) FROM agent_tokens WHERE revoked_at IS NULL").pluck().get();
      assert.deepEqual([live, tokens], [0, 0]);
      const recorded = db.prepare("SELECT stream, actor, data FROM events WHERE type = 'operator.everyone_ended'").all() as {
        stream: string;
        actor: string;
        data: string;
      }[];
      assert.deepEqual(
        recorded.map((r) => [r.stream, r.actor, Object.keys(JSON.parse(r.data))]),
        [[`audit:${OPERATOR}`, "human", ["sessions", "access"]]],
      );
      assert.ok((JSON.parse(recorded[0]?.data ?? "{}").access as number) >= 2, "the token and the grant counted");
    } finally {
      db.close();
    }
  });
});
