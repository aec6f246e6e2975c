import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rawRequest, rawStatus } from "../_support/http.ts";
import { startSigninApp } from "../_support/signin-app.ts";

// An absolute-form target whose authority does not parse once made
// `new URL(req.url, base)` throw inside Verify and Callback: a 500 from bad input.
describe("Signin routes with a malformed absolute-form target", () => {
  for (const path of ["/auth/verify?token=x", "/auth/callback?code=x&state=y", "/me", "/fresh"]) {
    it(`answers ${path} under a bad authority with a 4xx, never a 500`, async (t) => {
      const app = await startSigninApp(t);
      const port = Number(new URL(app.base).port);
      const response = await rawRequest(port, `GET http://a:99999${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      const status = rawStatus(response);
      assert.ok(status !== undefined && status >= 400 && status < 500, `status ${String(status)}`);
    });
  }
});
