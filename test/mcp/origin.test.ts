/*
 * The MCP endpoint checks `Origin` by the rule crossOriginProtection falls
 * back on (latch/http `originVerdict`): for every `Origin` a request can
 * carry, both refuse or both let it through. Only Fetch Metadata parts
 * them, on purpose: MCP does not take `Sec-Fetch-Site`'s word (DNS
 * rebinding makes a foreign page same-origin to the browser).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { ORIGIN, startTransportsApp } from "../_support/agent-transports.ts";

/** POSTs `body` to `base` + `path` with exactly `headers` (no Origin unless given); resolves to the status. */
function post(base: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method: "POST", headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const PING = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });

describe("Origin on /mcp and behind crossOriginProtection", () => {
  it("refuses and accepts the same origins on both", async (t) => {
    const app = await startTransportsApp(t, { wrap: false });
    const token = app.mint("read", "claude");
    const origins = [
      undefined,
      ORIGIN,
      "http://evil.example",
      "null",
      "https://app.test",
      "http://app.test:8080",
      "http://app.test.evil.example",
      // Not how a browser serializes this origin (RFC 6454 §6.2): both compare it exactly and refuse it.
      "http://APP.test",
      "http://app.test:80",
      "http://app.test/",
    ];
    const verdicts: Record<string, [form: number, mcp: number]> = {};
    for (const origin of origins) {
      const sent: Record<string, string> = origin === undefined ? {} : { Origin: origin };
      const form = await post(app.base, "/form", { ...sent, "Content-Type": "application/x-www-form-urlencoded" }, "a=1");
      const mcp = await post(app.base, "/mcp", { ...sent, "Content-Type": "application/json", Authorization: `Bearer ${token}` }, PING);
      verdicts[origin ?? "(none)"] = [form, mcp];
    }
    assert.deepEqual(verdicts, {
      "(none)": [204, 200],
      [ORIGIN]: [204, 200],
      "http://evil.example": [403, 403],
      null: [403, 403],
      "https://app.test": [403, 403],
      "http://app.test:8080": [403, 403],
      "http://app.test.evil.example": [403, 403],
      "http://APP.test": [403, 403],
      "http://app.test:80": [403, 403],
      "http://app.test/": [403, 403],
    });
  });

  it("keeps refusing a foreign Origin on /mcp when Sec-Fetch-Site says same-origin (DNS rebinding), where the form takes its word", async (t) => {
    const app = await startTransportsApp(t, { wrap: false });
    const token = app.mint("read", "claude");
    const rebound = { Origin: "http://evil.example", "Sec-Fetch-Site": "same-origin" };
    assert.equal(await post(app.base, "/form", { ...rebound, "Content-Type": "application/x-www-form-urlencoded" }, "a=1"), 204);
    assert.equal(
      await post(app.base, "/mcp", { ...rebound, "Content-Type": "application/json", Authorization: `Bearer ${token}` }, PING),
      403,
    );
  });
});
