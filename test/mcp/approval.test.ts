/*
 * An agent's write call over MCP, approved by its person in real headless
 * Chromium: the demo (`node dist/examples/demo/main.js`, real SMTP), the
 * official SDK client declaring URL-mode elicitation, the approval page of
 * /account/approvals. The call runs exactly once per approval.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { hasChromium, launchBrowser, watchedPage, type Browser } from "../_support/browser.ts";
import { mintTokenInBrowser, signInByLink, startDemo, type Demo } from "../_support/demo.ts";
import { connectMCP } from "../_support/mcp-client.ts";

describe("MCP endpoint of the demo (browser approval)", { skip: hasChromium ? false : "no system Chromium" }, () => {
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

  it("sends a write call to the person as a URL elicitation; approved in the browser, the identical call runs once", async () => {
    const { page, errors } = await watchedPage(await browser.newContext());
    await signInByLink(page, demo, "grace@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    const token = await mintTokenInBrowser(page, demo, "claude", "write");
    const client = await connectMCP(demo, token, { elicitation: { url: {} } });

    const elicited = async (args: Record<string, unknown>): Promise<{ url: string; elicitationId: string; mode: string }> => {
      try {
        await client.callTool({ name: "start_job", arguments: args });
      } catch (err) {
        assert.ok(err instanceof McpError && err.code === -32042, String(err));
        const [elicitation, ...more] = (err.data as { elicitations: { url: string; elicitationId: string; mode: string }[] }).elicitations;
        assert.ok(elicitation !== undefined && more.length === 0);
        return elicitation;
      }
      assert.fail("the write call ran without an approval");
    };
    const first = await elicited({ kind: "ok" });
    assert.equal(first.mode, "url");
    assert.equal(first.url, `${demo.origin}/account/approvals/${first.elicitationId}`);

    await page.goto(first.url);
    assert.equal(await page.textContent("[data-confirm]"), "Start a demo background job for you?");
    const argumentRows = `[...document.querySelectorAll("[data-arguments] [data-argument]")].map((row) => [row.dataset.argument, row.querySelector("td.value").textContent])`;
    assert.deepEqual(Object.fromEntries((await page.evaluate(argumentRows)) as [string, string][]), { kind: "ok" });
    await page.click('button[data-approval="approve"]');
    await page.waitForSelector('[data-outcome="approved"]');

    assert.notEqual((await elicited({ kind: "fail" })).url, first.url, "other arguments never run on the approval");
    const ran = (await client.callTool({ name: "start_job", arguments: { kind: "ok" } })) as CallToolResult;
    assert.equal(ran.isError, undefined);
    const job = ran.structuredContent as { id: string; status: string };
    assert.equal(job.status, "running");
    const repeat = await elicited({ kind: "ok" });
    assert.notEqual(repeat.url, first.url, "a further identical call needs a new approval");

    await page.goto(`${demo.origin}/account/activity`);
    const rows = (await page.evaluate(
      `[...document.querySelectorAll('li[data-type="tool.call"]')].map((li) => li.dataset.actor + " " + li.dataset.via + " " + li.querySelector("[data-agent-text]").textContent + " " + li.textContent.split("→ ")[1].trim().split(/\\s/)[0])`,
    )) as string[];
    const started = rows.filter((r) => r.includes("start_job"));
    assert.deepEqual(started, [
      "agent:claude mcp start_job approval_required",
      "agent:claude mcp start_job ok",
      "agent:claude mcp start_job started",
      "agent:claude mcp start_job approval_required",
      "agent:claude mcp start_job approval_required",
    ]);
    // Long work is a job: the agent follows it with the read tool.
    let status = "running";
    // Politely, as an agent within its tool call rate (20 at once) polls: a job of 10 steps of 50 ms.
    for (let i = 0; i < 10_000 && status === "running"; i++) {
      if (i > 0) await delay(100);
      const polled = (await client.callTool({ name: "job_status", arguments: { id: job.id } })) as CallToolResult;
      status = (polled.structuredContent as { status: string }).status;
    }
    assert.equal(status, "done");
    await client.close();

    assert.deepEqual(errors, []);
  });
});
