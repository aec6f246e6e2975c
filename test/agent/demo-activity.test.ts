/*
 * The demo's /account/activity and approval pages against what an agent
 * can do to them (`node dist/examples/demo/main.js`, real SMTP): many
 * tool calls must not push the person's own sign-ins and token changes
 * off the page, and text an agent chose (a tool name as called, the
 * arguments of a write call) is shown only as marked data, never where it
 * could pass for the demo's own words.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { agentActor } from "../../lib/agent/actor.ts";
import { OpenDB } from "../../lib/db/index.ts";
import { EventStore, auditStream } from "../../lib/events/index.ts";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";

/** A fake security notice, 36 characters: a valid tool name as far as the caller is concerned. */
const NOTICE = "Your account is locked: call support";

/** The contents of every `data-agent-text` element of `body`. */
function agentTexts(body: string): string[] {
  return [...body.matchAll(/<(code|pre|td|span)\b[^>]*\bdata-agent-text\b[^>]*>([^<]*)<\/\1>/g)].map((m) => m[2] ?? "");
}

/** `body` without the `data-agent-text` elements' contents. */
function outsideAgentTexts(body: string): string {
  return body.replace(/(<(code|pre|td|span)\b[^>]*\bdata-agent-text\b[^>]*>)[^<]*(<\/\2>)/g, "$1$3");
}

/** The `data-type` of each entry of one activity list ("own" or "agents"), newest first. */
function listTypes(body: string, list: "own" | "agents"): string[] {
  const section = new RegExp(`<ol class="activity" data-activity="${list}">([\\s\\S]*?)</ol>`).exec(body)?.[1] ?? "";
  return [...section.matchAll(/data-type="([^"]*)"/g)].map((m) => m[1] ?? "");
}

describe("The demo's activity and approval pages", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => demo?.close());

  const activity = async (jar: CookieJar): Promise<string> => {
    const page = await sendRequest(demo.origin, "GET", "/account/activity", { jar }, demo.origin);
    assert.equal(page.status, 200);
    return page.body;
  };

  it("keeps the person's sign-in and token changes on the page after 200 tool calls", async () => {
    const subject = "ada-activity@example.com";
    const jar = await signInOverHTTP(demo, subject);
    const token = await mintAgentToken(demo, jar, "busy", "read");
    const revoked = await mintAgentToken(demo, jar, "gone", "read");
    const ids = [
      ...(await sendRequest(demo.origin, "GET", "/account/agents", { jar }, demo.origin)).body.matchAll(
        /data-agent-id="([^"]+)" data-agent-name="gone"/g,
      ),
    ];
    assert.equal(ids.length, 1);
    await sendRequest(demo.origin, "POST", "/account/agents/revoke", { jar, form: { id: ids[0]?.[1] ?? "" } }, demo.origin);
    assert.equal(
      (await sendRequest(demo.origin, "GET", "/api/whoami", { headers: { Authorization: `Bearer ${revoked}` } }, demo.origin)).status,
      401,
    );
    // 200 calls over the wire would take minutes at the tool call rate; an agent that kept calling for them is seeded into the database.
    const db = OpenDB(join(demo.stateDir, "demo.db"));
    try {
      const events = new EventStore(db);
      for (let i = 0; i < 200; i++)
        events.appendAudit({
          Type: "tool.call",
          Actor: agentActor("busy"),
          Subject: subject,
          Data: { tool: `junk_${i}`, args_hash: "", approval: null, outcome: "unknown_tool" },
        });
      assert.equal(events.version(auditStream(subject)), 204);
    } finally {
      db.close();
    }
    const calls = await sendRequest(
      demo.origin,
      "POST",
      "/api/tools/job_status",
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: '{"id":"nope"}' },
      demo.origin,
    );
    assert.equal(calls.status, 404);

    const body = await activity(jar);
    assert.deepEqual(listTypes(body, "own"), ["agent.token_revoked", "agent.token_minted", "agent.token_minted", "auth.signed_in"]);
    const agents = listTypes(body, "agents");
    assert.equal(agents.length, 100, "the newest 100 agent calls");
    assert.ok(agents.every((type) => type === "tool.call"));
    assert.equal(agentTexts(body)[0], "job_status", "newest first");
  });

  it("shows a tool name an agent chose only inside the marked data element, after the demo's own label", async () => {
    const jar = await signInOverHTTP(demo, "ada-notice@example.com");
    const token = await mintAgentToken(demo, jar, "prankster", "write");
    const call = (tool: string, args: unknown): ReturnType<typeof sendRequest> =>
      sendRequest(
        demo.origin,
        "POST",
        `/api/tools/${encodeURIComponent(tool)}`,
        { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
        demo.origin,
      );
    assert.equal((await call(NOTICE, {})).status, 404);
    const body = await activity(jar);
    assert.deepEqual(agentTexts(body), [NOTICE]);
    assert.match(
      body,
      /<code>agent:prankster<\/code>\s*called the tool\s*<code data-agent-text dir="auto">Your account is locked: call support<\/code> → unknown_tool/,
    );
    assert.doesNotMatch(outsideAgentTexts(body), /account is locked/i, "nowhere else: not a heading, not a sentence, not an attribute");

    const held = await call("notes_create", { title: NOTICE, body: "Call +1 555 0100 now." });
    assert.equal(held.status, 202);
    const approval = await sendRequest(
      demo.origin,
      "GET",
      (JSON.parse(held.body) as { approval_url: string }).approval_url,
      { jar },
      demo.origin,
    );
    assert.equal(approval.status, 200);
    // The preview (the form's fields in order, by the page's own labels): each value the agent sent is marked as the agent's, nothing else is.
    assert.deepEqual(agentTexts(approval.body), [NOTICE, "Call +1 555 0100 now."]);
    assert.doesNotMatch(outsideAgentTexts(approval.body), /account is locked|555 0100/i);
  });
});
