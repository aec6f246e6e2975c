import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { writeText } from "../../lib/internal/index.ts";
import { sendRequest } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";

// The one plain-text answer: the router's, the asset handler's and every component's refusals are written by it.
describe("writeText", () => {
  it("answers the message and a newline as plain text with its length, and no nosniff unless asked", async (t) => {
    const { base } = await startServer(t, (_req, res) => writeText(res, 403, "403 forbidden: cross-origin request refused"));
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.equal(r.status, 403);
    assert.equal(r.body, "403 forbidden: cross-origin request refused\n");
    assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.equal(r.headers["x-content-type-options"], undefined);
  });

  it("adds X-Content-Type-Options: nosniff when asked, as Go's http.Error (the router and the asset handler)", async (t) => {
    const { base } = await startServer(t, (_req, res) => writeText(res, 404, "404 page not found — ü", { nosniff: true }));
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.equal(r.status, 404);
    assert.equal(r.body, "404 page not found — ü\n");
    assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  });
});
