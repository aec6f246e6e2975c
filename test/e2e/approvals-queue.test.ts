/*
 * The approvals queue on the demo as a black box (issue 39, 4 and 5): an agent's three waiting write calls approved
 * and declined from `/account/approvals` in one form post, each then run exactly once by the agent's repeat (a declined
 * one never), each decision in the audit; the bounds and 400s of the batch form; the waiting count on every signed-in
 * page, which follows a new waiting call without a reload (Chromium) and drops after a decision; axe-core on the list
 * in light and dark. With SCREENSHOT_DIR set, the list is written there as approvals-<scheme>.png.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { axeViolations } from "../_support/axe.ts";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { mintAgentToken, mintTokenInBrowser, signInByLink, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

const SHOTS = process.env["SCREENSHOT_DIR"];

function call(demo: Demo, token: string, title: string): Promise<TestResponse> {
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  return sendRequest(demo.origin, "POST", "/api/tools/notes_create", { headers, body: JSON.stringify({ title }) }, demo.origin);
}

async function waiting(demo: Demo, token: string, title: string): Promise<string> {
  const held = await call(demo, token, title);
  assert.equal(held.status, 202, held.body);
  return new URL((JSON.parse(held.body) as { approval_url: string }).approval_url).pathname.split("/").pop() ?? "";
}

function decide(demo: Demo, jar: CookieJar, ids: readonly string[], decision: string): Promise<TestResponse> {
  const body = new URLSearchParams([...ids.map((id): [string, string] => ["id", id]), ["decision", decision]]).toString();
  const headers = { "Content-Type": "application/x-www-form-urlencoded" };
  return sendRequest(demo.origin, "POST", "/account/approvals", { jar, headers, body }, demo.origin);
}

const countIn = (body: string): string | undefined => /data-approvals-waiting="(\d+)"/.exec(body)?.[1];

describe("the approvals queue in the demo (HTTP)", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => demo?.close());

  it("approves two and declines one of three waiting calls in one post: each approved runs once on repeat, the declined never; each decision audited", async () => {
    const ada = await signInOverHTTP(demo, "batch@example.com");
    const bob = await signInOverHTTP(demo, "batch-bob@example.com");
    const token = await mintAgentToken(demo, ada, "batcher", "write");
    const [one, two, three] = [await waiting(demo, token, "one"), await waiting(demo, token, "two"), await waiting(demo, token, "three")];
    const bobs = await waiting(demo, await mintAgentToken(demo, bob, "bobbot", "write"), "bob's");

    const list = await sendRequest(demo.origin, "GET", "/account/approvals", { jar: ada }, demo.origin);
    assert.equal(list.status, 200);
    assert.deepEqual(
      [...list.body.matchAll(/<input type="checkbox" name="id" value="([^"]+)" form="approvals-batch" data-approval-select>/g)].map(
        (m) => m[1],
      ),
      [one, two, three],
    );
    assert.equal(countIn(list.body), "3");
    for (const id of [one, two, three]) assert.ok(list.body.includes(`<a href="/account/approvals/${id}">`), "a link to its own page");
    assert.match(list.body, /agent:batcher/);
    assert.match(list.body, /<button type="submit" name="decision" value="approve" data-batch="approve">/);
    assert.match(list.body, /<button class="secondary" type="submit" name="decision" value="decline" data-batch="decline">/);

    const approved = await decide(demo, ada, [one ?? "", two ?? "", bobs], "approve");
    assert.equal(approved.status, 200);
    assert.match(approved.body, /data-batch-outcome="approve" data-batch-done="2"/);
    assert.match(approved.body, /Approved: 2\./);
    assert.match(
      approved.body,
      new RegExp(`<li data-batch-refused="unknown"><code data-agent-text dir="auto">${bobs}</code>`),
      "another person's: unknown",
    );
    assert.equal(countIn(approved.body), "1");
    const declined = await decide(demo, ada, [three ?? "", one ?? ""], "decline");
    assert.match(declined.body, /data-batch-outcome="decline" data-batch-done="1"/);
    assert.match(
      declined.body,
      /<li data-batch-refused="decided"><code data-agent-text dir="auto">notes_create<\/code>: already decided or used/,
    );
    assert.equal(countIn(declined.body), "0");
    assert.match(
      (await sendRequest(demo.origin, "GET", `/account/approvals/${bobs}`, { jar: bob }, demo.origin)).body,
      /data-approval-status="pending"/,
    );

    for (const title of ["one", "two"]) {
      assert.equal((await call(demo, token, title)).status, 200, `${title} runs on its approval`);
      assert.equal((await call(demo, token, title)).status, 202, `${title} runs once: its repeat asks again`);
    }
    assert.equal((await call(demo, token, "three")).status, 202, "declined: asked again, nothing ran");
    const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
    try {
      const notes = db.prepare("SELECT title FROM notes WHERE owner = ? ORDER BY title").pluck().all("batch@example.com");
      assert.deepEqual(notes, ["one", "two"]);
      const decisions = db
        .prepare(
          "SELECT type, json_extract(data, '$.approval') AS approval FROM events WHERE subject = ? AND type LIKE 'agent.call_%' ORDER BY seq",
        )
        .all("batch@example.com");
      assert.deepEqual(decisions, [
        { type: "agent.call_approved", approval: one },
        { type: "agent.call_approved", approval: two },
        { type: "agent.call_declined", approval: three },
      ]);
    } finally {
      db.close();
    }
  });

  it("refuses no id, an unknown decision and more than 100 ids with 400 naming the field, deciding nothing", async () => {
    const ada = await signInOverHTTP(demo, "bounds@example.com");
    const token = await mintAgentToken(demo, ada, "bounded", "write");
    const id = await waiting(demo, token, "bounded");
    const cases: [string[], string, RegExp][] = [
      [[], "approve", /id: choose at least one request/],
      [[id], "maybe", /decision must be &quot;approve&quot; or &quot;decline&quot;/],
      [[id, ...Array.from({ length: 100 }, (_, i) => `${i}`.padStart(22, "z"))], "approve", /id: at most 100 requests at once/],
    ];
    for (const [ids, decision, reason] of cases) {
      const refused = await decide(demo, ada, ids, decision);
      assert.equal(refused.status, 400, decision);
      assert.match(refused.body, reason);
      assert.match(refused.body, /data-error/);
    }
    assert.equal(countIn((await sendRequest(demo.origin, "GET", "/account", { jar: ada }, demo.origin)).body), "1", "nothing decided");
    const anonymous = await sendRequest(demo.origin, "POST", "/account/approvals", { form: { id, decision: "approve" } }, demo.origin);
    assert.ok([303, 401].includes(anonymous.status), `no session: ${anonymous.status}`);
    const count = await sendRequest(demo.origin, "GET", "/account/approvals/waiting", { headers: { Accept: "text/html" } }, demo.origin);
    assert.equal(count.status, 401, "the count needs a session, and answers 401 rather than a page to land in");
    const mine = await sendRequest(demo.origin, "GET", "/account/approvals/waiting", { jar: ada }, demo.origin);
    assert.equal(mine.headers["cache-control"], "no-store");
    assert.match(mine.body, /^<a href="\/account\/approvals" data-approvals-waiting="1">/);
  });
});

describe("the waiting count and the list (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    demo = await startDemo();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("shows 2, becomes 3 live when a call waits (no reload), drops after a decision; no serious axe violation in light and dark", async () => {
    const context = await browser.newContext();
    const { page, errors } = await watchedPage(context);
    await signInByLink(page, demo, "count@example.com");
    const token = await mintTokenInBrowser(page, demo, "counter", "write");
    await waiting(demo, token, "first");
    await waiting(demo, token, "second");
    await page.goto(`${demo.origin}/account`);
    assert.equal(await page.getAttribute("[data-approvals-waiting]", "data-approvals-waiting"), "2");
    assert.equal(await page.getAttribute(".waiting", "data-poll-every"), "10", "WAITING_POLL_SECONDS");
    await page.evaluate("window.sameDocument = true");
    await waiting(demo, token, "third");
    await page.waitForSelector('[data-approvals-waiting="3"]');
    assert.equal(await page.evaluate("window.sameDocument"), true, "no reload");

    await page.goto(`${demo.origin}/account/approvals`);
    for (const colorScheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme });
      if (SHOTS !== undefined) await page.screenshot({ path: join(SHOTS, `approvals-${colorScheme}.png`), fullPage: true });
      const violations = await axeViolations(page);
      assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
    }
    await page.click("[data-approval-select] >> nth=0");
    await page.click("[data-approval-select] >> nth=1");
    await page.click('button[data-batch="approve"]');
    await page.waitForSelector('[data-batch-outcome="approve"][data-batch-done="2"]');
    assert.equal(await page.getAttribute("[data-approvals-waiting]", "data-approvals-waiting"), "1");
    assert.deepEqual(errors, []);
    await context.close();
  });
});
