/*
 * The authorization request survives sign-in: a person without a session
 * signs in by the emailed link or by its code and lands back on the same
 * request, then allows it; the grant is listed and revocable.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CookieJar, extractCode } from "../_support/signin-app.ts";
import { ORIGIN, TOOLS_RESOURCE, requestParams, startOAuthApp } from "./_app.ts";

const authorizePath = `/oauth/authorize?${requestParams({ resource: TOOLS_RESOURCE }).toString()}`;

describe("sign-in inside an authorization request", () => {
  for (const path of ["link", "code"] as const) {
    it(`returns to the request after the ${path} path, then the person allows and the client calls`, async (t) => {
      const app = await startOAuthApp(t);
      const jar = new CookieJar();
      const first = await app.request("GET", authorizePath, { jar });
      assert.equal(first.status, 303);
      assert.match(first.location ?? "", /^\/signin\?next=/);
      // Remembered in this browser for 15 minutes (NEXT_TTL_SECONDS), a sign-in link's life.
      assert.match(first.setCookie.find((c) => c.startsWith("framework_next=")) ?? "", /Max-Age=900;/);
      const sent = app.smtp?.messages.filter((m) => m.to.includes("bob@example.com")).length ?? 0;
      assert.equal((await app.begin("bob@example.com", { jar })).location, "/signin?sent=1");
      const link = await app.linkFor("bob@example.com", sent + 1);
      let landed;
      if (path === "link") {
        landed = await app.request("GET", link, { jar });
      } else {
        const message = app.smtp?.messages.filter((m) => m.to.includes("bob@example.com"))[sent];
        landed = await app.request("POST", "/auth/code", { jar, form: { code: extractCode(message?.parsed.text ?? "") } });
      }
      assert.equal(landed.status, 303);
      assert.equal(landed.location, authorizePath);
      const consent = await app.request("GET", landed.location ?? "", { jar });
      assert.equal(consent.status, 200, consent.body);
      const allowed = await app.request("POST", "/oauth/authorize", {
        jar,
        form: { ...Object.fromEntries(requestParams({ resource: TOOLS_RESOURCE })), decision: "allow" },
      });
      assert.equal(allowed.status, 302);
      const query = new URL(allowed.location ?? "").searchParams;
      assert.equal(query.get("iss"), ORIGIN);
      const tokens = await app.exchange(query.get("code") ?? "");
      const call = await app.call(String(tokens.json.access_token), "counter_get", {});
      assert.equal(call.status, 200);
      assert.equal(JSON.parse(call.body).result.subject, "bob@example.com");
      // The next sign-in of this browser lands where it always did: the remembered request was taken once.
      const [grant] = app.tokens.list("bob@example.com");
      assert.equal(grant?.Client?.Host, "client.example");
    });
  }

  it("never returns to another origin: a next that is not a local path is ignored", async (t) => {
    const app = await startOAuthApp(t);
    const jar = new CookieJar();
    const sent = app.smtp?.messages.filter((m) => m.to.includes("eve@example.com")).length ?? 0;
    const begun = await app.request("POST", "/signin", { jar, form: { email: "eve@example.com", next: "//evil.example/x" } });
    assert.equal(begun.location, "/signin?sent=1");
    const landed = await app.request("GET", await app.linkFor("eve@example.com", sent + 1), { jar });
    assert.equal(landed.location, "/account");
  });
});
