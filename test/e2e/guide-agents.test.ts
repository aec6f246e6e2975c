/*
 * The guide's token and approval pages (examples/guide with the starter's
 * pages) over HTTP, for what the browser walk of guide.test.ts does not
 * try: a refused mint and revoke with their reasons, a read token's write
 * call, a declined call, a decision that is neither word, another
 * person's request, a decision posted from another site, and an MCP
 * client's write waiting on the same page.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { agentTokenIn, mintAgentToken, signInOverHTTP, startGuide, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";
import { postMCP } from "../_support/mcp-client.ts";

describe("the guide's agent pages (HTTP)", () => {
  let app: Demo;
  let ada: CookieJar;
  let bob: CookieJar;
  const get = (jar: CookieJar, path: string): Promise<TestResponse> => sendRequest(app.origin, "GET", path, { jar }, app.origin);
  const post = (jar: CookieJar, path: string, form: Record<string, string>, origin = app.origin): Promise<TestResponse> =>
    sendRequest(app.origin, "POST", path, { jar, form }, origin);
  const call = (token: string, tool: string, args: unknown): Promise<TestResponse> =>
    sendRequest(
      app.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      app.origin,
    );
  const approvalID = (r: TestResponse): string =>
    String((JSON.parse(r.body) as Record<string, unknown>)["approval_url"])
      .split("/")
      .at(-1) ?? "";
  const expenses = async (token: string): Promise<unknown[]> =>
    (JSON.parse((await call(token, "expenses_list", {})).body) as { result: { items: unknown[] } }).result.items;

  before(async () => {
    app = await startGuide();
    ada = await signInOverHTTP(app, "ada@example.com");
    bob = await signInOverHTTP(app, "bob@example.com");
  });
  after(async () => {
    await app?.close();
  });

  it("shows a new token with a copy button hidden until its script runs, in the person's language", async () => {
    for (const [prefix, copy, copied] of [
      ["", "Copy", "Copied"],
      ["/ar", "نسخ", "تم النسخ"],
    ] as const) {
      const minted = await post(ada, `${prefix}/account/agents`, { name: `copy${prefix.slice(1)}`, access: "read" });
      assert.equal(minted.status, 200);
      const token = agentTokenIn(minted.body) ?? "";
      assert.ok(minted.body.includes(`<code id="agent-token" data-agent-token="${token}">${token}</code>`));
      assert.ok(
        minted.body.includes(
          `<button type="button" class="secondary" data-copy="agent-token" data-copied="${copied}" hidden>${copy}</button>`,
        ),
      );
      assert.match(minted.body, /<script type="module" src="\/static\/copy-[0-9a-f]{10}\.js"><\/script>/);
      const script = /src="(\/static\/copy-[0-9a-f]{10}\.js)"/.exec(minted.body)?.[1] ?? "";
      const served = await get(ada, script);
      assert.equal(served.status, 200);
      assert.match(served.headers["content-type"] ?? "", /javascript/);
    }
    const listing = await get(ada, "/account/agents");
    assert.doesNotMatch(listing.body, /data-copy|copy-[0-9a-f]{10}\.js/, "no button and no script without a token to copy");
  });

  it("refuses a mint with an unknown access or a taken name on the page, with the reason and its 4xx", async () => {
    const bad = await post(ada, "/account/agents", { name: "x", access: "admin" });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /data-error>[^<]*access/);
    assert.equal(agentTokenIn(bad.body), undefined);
    await mintAgentToken(app, ada, "twice", "read");
    const taken = await post(ada, "/account/agents", { name: "twice", access: "read" });
    assert.equal(taken.status, 409);
    assert.match(taken.body, /data-error>/);
  });

  it("revokes a token (its next call is 401) and answers 404 for a token that is not the person's", async () => {
    const token = await mintAgentToken(app, ada, "short-lived", "read");
    const page = await get(ada, "/account/agents");
    const item = page.body.split("<li ").find((li) => li.includes("agent:short-lived")) ?? "";
    const id = /data-agent-id="([^"]+)"/.exec(item)?.[1] ?? "";
    assert.notEqual(id, "");
    assert.equal((await post(bob, "/account/agents/revoke", { id })).status, 404);
    assert.equal((await call(token, "expenses_list", {})).status, 200);
    const revoked = await post(ada, "/account/agents/revoke", { id });
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, "/account/agents");
    assert.equal((await call(token, "expenses_list", {})).status, 401);
  });

  it("refuses a read token's write call (403) without asking the person", async () => {
    const reader = await mintAgentToken(app, ada, "reader", "read");
    assert.equal((await call(reader, "expenses_create", { label: "Taxi", amount: "20.00" })).status, 403);
    assert.doesNotMatch((await get(ada, "/account/approvals")).body, /data-approval-id=/);
  });

  it("a declined call runs nothing; a decision that is neither word is a 400; another person's request is a 404", async () => {
    const writer = await mintAgentToken(app, ada, "writer", "write");
    const asked = await call(writer, "expenses_create", { label: "Taxi", amount: "20.00" });
    assert.equal(asked.status, 202);
    const id = approvalID(asked);
    assert.match((await get(ada, "/account/approvals")).body, new RegExp(`data-approval-id="${id}" data-approval-status="pending"`));
    assert.equal((await get(bob, `/account/approvals/${id}`)).status, 404);
    assert.equal((await post(bob, `/account/approvals/${id}`, { decision: "approve" })).status, 404);
    assert.equal((await post(ada, `/account/approvals/${id}`, { decision: "maybe" })).status, 400);
    const declined = await post(ada, `/account/approvals/${id}`, { decision: "decline" });
    assert.equal(declined.status, 303);
    assert.equal(declined.location, `/account/approvals/${id}`);
    assert.match((await get(ada, declined.location ?? "")).body, /data-approval-status="declined"[\s\S]*data-outcome="declined"/);
    const again = await call(writer, "expenses_create", { label: "Taxi", amount: "20.00" });
    assert.equal(again.status, 202, "declined: asked again, nothing ran");
    assert.deepEqual(await expenses(writer), []);
    assert.match((await get(ada, "/account/approvals")).body, /data-approval-status="pending"/);
  });

  it("refuses a decision posted from another site (403) and leaves the request pending", async () => {
    const writer = await mintAgentToken(app, ada, "cross", "write");
    const id = approvalID(await call(writer, "expenses_create", { label: "Dinner", amount: "45.00" }));
    const forged = await post(ada, `/account/approvals/${id}`, { decision: "approve" }, "https://evil.example");
    assert.equal(forged.status, 403);
    assert.match((await get(ada, `/account/approvals/${id}`)).body, /data-approval-status="pending"/);
  });

  it("sends an MCP client's write call to the same approval page", async () => {
    const writer = await mintAgentToken(app, ada, "mcp-writer", "write");
    const init = await postMCP(app, writer, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    assert.equal(init.status, 200, init.body);
    const session = String(init.headers["mcp-session-id"] ?? "");
    const headers = { "MCP-Protocol-Version": "2025-11-25", ...(session !== "" && { "Mcp-Session-Id": session }) };
    const called = await postMCP(
      app,
      writer,
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "expenses_create", arguments: { label: "Museum <b>tickets</b>", amount: "12.00" } },
      },
      headers,
    );
    const url = /"approval_url":"([^"]+)"/.exec(called.body)?.[1] ?? "";
    assert.match(url, new RegExp(`^${app.origin}/account/approvals/[A-Za-z0-9_-]{22}$`), called.body);
    const page = await get(ada, new URL(url).pathname);
    assert.equal(page.status, 200);
    // The agent's value is escaped, and only inside an element marked as the agent's text (docs/asvs.md 3.2.2).
    assert.match(
      page.body,
      /<tr data-value="label"><th scope="row">Label<\/th><td><span data-agent-text dir="auto">Museum &lt;b&gt;tickets&lt;\/b&gt;<\/span><\/td>/,
    );
  });
});
