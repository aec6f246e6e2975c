/*
 * Agents end to end in the demo (`node dist/examples/demo/main.js`, real
 * SMTP): a person signs in, mints agent tokens on /account/agents, and an
 * agent (this test, over HTTP with `Authorization: Bearer`) calls the
 * demo's tools. The write call waits for the person, who approves it in
 * real headless Chromium; then it runs exactly once, and the person's
 * activity page shows who did what. A call `start_job` could not run (an
 * unknown kind) is refused before the person is asked.
 */
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { setTimeout as delay } from "node:timers/promises";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { agentTokenIn, mintAgentToken, signInByLink, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type TestResponse } from "../_support/http-client.ts";

function call(demo: Demo, token: string, tool: string, args: unknown): Promise<TestResponse> {
  return sendRequest(
    demo.origin,
    "POST",
    `/api/tools/${tool}`,
    {
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(args),
    },
    demo.origin,
  );
}

function whoami(demo: Demo, token: string): Promise<TestResponse> {
  return sendRequest(demo.origin, "GET", "/api/whoami", { headers: { Authorization: `Bearer ${token}` } }, demo.origin);
}

const idsIn = (body: string): string[] => [...body.matchAll(/data-agent-id="([^"]+)"/g)].map((m) => m[1] ?? "");

describe("agents in the demo (HTTP)", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "50" });
  });
  after(async () => demo?.close());

  it("mints tokens on /account/agents, refuses bad input with 4xx and a message, and revokes", async () => {
    const jar = await signInOverHTTP(demo, "ada@example.com");
    const me = await sendRequest(demo.origin, "GET", "/api/whoami", { jar }, demo.origin);
    assert.deepEqual([me.status, JSON.parse(me.body)], [200, { actor: "human", subject: "ada@example.com" }]);

    const mint = (form: Record<string, string>): Promise<TestResponse> =>
      sendRequest(demo.origin, "POST", "/account/agents", { jar, form }, demo.origin);
    for (const [form, status, message] of [
      [{ name: "Not A Name", access: "read" }, 400, /name must be/],
      [{ name: "", access: "read" }, 400, /name must be/],
      [{ name: "bot", access: "admin" }, 400, /access must be &quot;read&quot; or &quot;write&quot;/],
      [{ name: "bot" }, 400, /access must be/],
    ] as const) {
      const res = await mint(form);
      assert.equal(res.status, status, JSON.stringify(form));
      assert.match(res.body, message);
      assert.equal(agentTokenIn(res.body), undefined);
      assert.deepEqual(idsIn(res.body), [], "nothing stored");
    }
    const minted = await mint({ name: "reader", access: "read" });
    assert.equal(minted.status, 200);
    assert.equal(minted.headers["cache-control"], "no-store");
    const token = agentTokenIn(minted.body);
    assert.ok(token !== undefined);
    assert.ok(minted.body.includes(`>${token}</code>`), "shown as text too");
    // The copy button is hidden in the markup: without script it never shows, the token stays selectable text;
    // its script is a file of the page's origin (CSP script-src 'self'), never inline.
    assert.match(minted.body, /<button type="button" class="secondary" data-copy="agent-token" data-copied="Copied" hidden>Copy<\/button>/);
    assert.match(minted.body, /<code id="agent-token" data-agent-token=/);
    assert.match(minted.body, /<script type="module" src="\/static\/copy-[0-9a-f]{10}\.js"><\/script>/);
    assert.doesNotMatch(minted.body, /<script>|onclick=/);
    const taken = await mint({ name: "reader", access: "write" });
    assert.equal(taken.status, 409);
    assert.match(taken.body, /already has this name/);
    const listing = await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin);
    assert.equal(agentTokenIn(listing.body), undefined, "shown once");
    const [id] = idsIn(listing.body);
    assert.ok(id !== undefined && idsIn(listing.body).length === 1);

    assert.deepEqual(JSON.parse((await whoami(demo, token)).body), { actor: "agent:reader", subject: "ada@example.com" });
    const write = await call(demo, token, "start_job", {});
    assert.equal(write.status, 403);
    const read = await call(demo, token, "job_status", { id: "nope" });
    assert.equal(read.status, 404);

    assert.equal((await sendRequest(demo.origin, "POST", "/account/agents/revoke", { jar, form: {} }, demo.origin)).status, 400);
    assert.equal(
      (await sendRequest(demo.origin, "POST", "/account/agents/revoke", { jar, form: { id: "unknown" } }, demo.origin)).status,
      404,
    );
    const revoked = await sendRequest(demo.origin, "POST", "/account/agents/revoke", { jar, form: { id } }, demo.origin);
    assert.equal(revoked.location, "/account/agents");
    const refused = await whoami(demo, token);
    const unknown = await whoami(demo, "A".repeat(43));
    assert.equal(refused.status, 401);
    assert.deepEqual(
      [refused.status, refused.headers["www-authenticate"], refused.body],
      [unknown.status, unknown.headers["www-authenticate"], unknown.body],
    );
    assert.ok(!demo.logs().includes(token), "no token in the demo's logs");
  });

  it("lets a token act only for the person who minted it", async () => {
    const bob = await signInOverHTTP(demo, "bob@example.com");
    const token = await mintAgentToken(demo, bob, "bobs-bot", "write");
    const held = JSON.parse((await call(demo, token, "start_job", {})).body) as { approval_url: string };
    const ada = await signInOverHTTP(demo, "ada2@example.com");
    const other = await sendRequest(demo.origin, "GET", held.approval_url, { jar: ada }, demo.origin);
    assert.equal(other.status, 404, "another person cannot see, let alone approve, the request");
    const anonymous = await sendRequest(demo.origin, "GET", held.approval_url, {}, demo.origin);
    assert.equal(anonymous.status, 401, "the approval page needs a (fresh) session");
    const decided = await sendRequest(demo.origin, "POST", held.approval_url, { jar: ada, form: { decision: "approve" } }, demo.origin);
    assert.equal(decided.status, 404);
    assert.equal((await call(demo, token, "start_job", {})).status, 202);
  });

  it("refuses a start_job of an unknown kind with 400 before its person is asked", async () => {
    const carol = await signInOverHTTP(demo, "carol@example.com");
    const token = await mintAgentToken(demo, carol, "carols-bot", "write");
    const db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
    const approvals = (): unknown => db.prepare("SELECT count(*) AS n FROM agent_approvals WHERE subject = ?").get("carol@example.com");
    try {
      const refused = await call(demo, token, "start_job", { kind: "forever" });
      assert.deepEqual([refused.status, JSON.parse(refused.body)], [400, { error: 'start job: kind must be "ok" or "fail"' }]);
      assert.deepEqual(approvals(), { n: 0 });
      assert.equal((await call(demo, token, "start_job", { kind: "fail" })).status, 202);
      assert.deepEqual(approvals(), { n: 1 });
    } finally {
      db.close();
    }
  });
});

describe("agents in the demo (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    demo = await startDemo({ JOB_STEP_MS: "50" });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("holds an agent's write call until the person approves it in the browser, then runs it exactly once", async () => {
    const context = await browser.newContext();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: demo.origin });
    const { page, errors } = await watchedPage(context);
    await signInByLink(page, demo, "grace@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    await page.click('a[href="/account/agents"]');
    await page.fill('input[name="name"]', "claude");
    await page.click('input[name="access"][value="write"]');
    await page.click('form[action="/account/agents"] button[type="submit"]');
    await page.waitForSelector("[data-agent-token]");
    const token = (await page.getAttribute("[data-agent-token]", "data-agent-token")) ?? "";
    assert.equal(await page.textContent("code[data-agent-token]"), token);
    // The copy button shows once its script runs, puts the token on the clipboard and says so.
    assert.equal(await page.getAttribute("button[data-copy]", "hidden"), null);
    await page.click("button[data-copy]");
    await page.waitForSelector('button[data-copy][data-copy-state="copied"]');
    assert.equal(await page.textContent("button[data-copy]"), "Copied");
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), token);
    assert.ok((await page.getAttribute("[data-agent-id]", "data-agent-name")) === "claude");
    // A listed token's Revoke button ends its line (at the list item's end edge), not wrapped in after the dates.
    assert.equal(
      await page.evaluate(
        `(() => { const li = document.querySelector("[data-agent-id]"); const b = li.querySelector("button"); return Math.round(li.getBoundingClientRect().right - b.getBoundingClientRect().right); })()`,
      ),
      0,
    );
    // The token page says when the token expires: 90 days after its creation (lib/agent/README.md#tokens).
    const created = Date.parse((await page.getAttribute("[data-agent-id] time", "datetime")) ?? "");
    const expires = Date.parse((await page.getAttribute("[data-agent-id] [data-agent-expires]", "data-agent-expires")) ?? "");
    assert.equal(expires - created, 90 * 24 * 60 * 60 * 1000);
    assert.match((await page.textContent("[data-agent-id] [data-agent-expires]")) ?? "", /^expires on \d{4}-\d{2}-\d{2} /);

    assert.deepEqual(JSON.parse((await whoami(demo, token)).body), { actor: "agent:claude", subject: "grace@example.com" });
    const held = await call(demo, token, "start_job", { kind: "ok", confirmed: true });
    assert.equal(held.status, 202);
    const url = (JSON.parse(held.body) as { approval_url: string }).approval_url;
    assert.equal(held.location, url);
    assert.ok(url.startsWith(`${demo.origin}/account/approvals/`));

    await page.goto(url);
    assert.equal(await page.textContent("[data-confirm]"), "Start a demo background job for you?");
    // The arguments as a table (name, value, type), never raw JSON.
    assert.deepEqual(
      await page.evaluate(
        `[...document.querySelectorAll("table[data-arguments] tbody tr")].map((tr) => [...tr.cells].map((c) => c.textContent))`,
      ),
      [["kind", "ok", "text"]],
    );
    assert.equal(await page.evaluate(`document.querySelectorAll("pre").length`), 0);
    await page.click('button[data-approval="approve"]');
    await page.waitForSelector('[data-outcome="approved"]');

    const changed = await call(demo, token, "start_job", { kind: "fail" });
    assert.equal(changed.status, 202, "changed arguments never run on the approval");
    const ran = await call(demo, token, "start_job", { kind: "ok" });
    assert.equal(ran.status, 200);
    const job = (JSON.parse(ran.body) as { result: { id: string } }).result;
    const repeat = await call(demo, token, "start_job", { kind: "ok" });
    assert.equal(repeat.status, 202, "a further identical call needs a new approval");
    assert.notEqual((JSON.parse(repeat.body) as { approval_url: string }).approval_url, url);

    await page.goto(`${demo.origin}/account/activity`);
    const rows = (await page.evaluate(
      `[...document.querySelectorAll("li[data-actor]")].map((li) => [li.dataset.actor, li.dataset.type, li.textContent])`,
    )) as [string, string, string][];
    // Each entry reads "<actor> <type> [<tool>] <time>", a tool call "<actor> called the tool <tool> → <outcome> <time>"; drop the time.
    const entries = rows.map(([actor, , text]) => {
      const words = text
        .replace(/\s+/g, " ")
        .replace(/ \d{4}-.*$/, "")
        .trim();
      assert.ok(words.startsWith(`${actor} `), words);
      return words;
    });
    // Two lists, newest first: the person's own steps down to the sign-in's own auth event (the sign-in
    // log's audit sink), then each call of the agent, actors in audit form.
    assert.deepEqual(entries, [
      "human agent.call_approved start_job",
      "human agent.token_minted",
      "human auth.signed_in",
      "agent:claude called the tool start_job → approval_required",
      "agent:claude called the tool start_job → ok",
      "agent:claude called the tool start_job → started",
      "agent:claude called the tool start_job → approval_required",
      "agent:claude called the tool start_job → approval_required",
    ]);

    // The agent follows its job with the read tool until it finishes.
    let status = "running";
    // Politely, as an agent within its tool call rate (20 at once) polls: a job of 10 steps of 50 ms.
    for (let i = 0; i < 10_000 && status === "running"; i++) {
      if (i > 0) await delay(100);
      const polled = await call(demo, token, "job_status", { id: job.id });
      assert.equal(polled.status, 200);
      status = (JSON.parse(polled.body) as { result: { status: string } }).result.status;
    }
    assert.equal(status, "done");
    assert.deepEqual(errors, []);
  });
});
