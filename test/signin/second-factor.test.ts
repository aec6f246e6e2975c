import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it } from "node:test";
import type { Identity } from "../../lib/signin/index.ts";
import { CookieJar, count, startSigninApp } from "../_support/signin-app.ts";

const MINUTE = 60 * 1000;

describe("Signin Config.SecondFactor()", () => {
  it("mints no session when the hook answers the request itself", async (t) => {
    const seen: Identity[] = [];
    const app = await startSigninApp(t, {
      config: {
        SecondFactor: async (_req, res, identity) => {
          seen.push(identity);
          res.statusCode = 303;
          res.setHeader("Location", "/confirm");
          res.end();
          return true;
        },
      },
    });
    await app.begin(" Ann@Example.COM ");
    const link = await app.linkFor("ann@example.com");
    app.clock.advance(MINUTE);
    const jar = new CookieJar();
    const res = await app.request("GET", link, { jar });
    assert.equal(res.status, 303);
    assert.equal(res.location, "/confirm");
    assert.deepEqual(res.setCookie, []);
    assert.equal(jar.cookies.size, 0);
    assert.equal(count(app.db, "sessions"), 0);
    assert.equal(count(app.db, "signin_links"), 0, "the link is spent all the same");
    assert.deepEqual(seen, [{ Subject: "ann@example.com", Method: "magiclink", AuthTime: app.clock.now() }]);
  });

  it("lets sign-in proceed when the hook returns false", async (t) => {
    const seen: Identity[] = [];
    const app = await startSigninApp(t, {
      config: {
        SecondFactor: (_req, _res, identity) => {
          seen.push(identity);
          return false;
        },
      },
    });
    const jar = await app.signIn("ann@example.com");
    assert.equal(seen.length, 1);
    assert.equal(count(app.db, "sessions"), 1);
    const me: unknown = JSON.parse((await app.request("GET", "/me", { jar })).body);
    assert.deepEqual(me, {
      from: { Subject: "ann@example.com", Method: "magiclink", AuthTime: seen[0]?.AuthTime.toISOString() },
      session: { Subject: "ann@example.com", Method: "magiclink", AuthTime: seen[0]?.AuthTime.toISOString() },
      userID: null,
    });
  });

  it("is not called when Authorize refuses", async (t) => {
    let called = 0;
    const app = await startSigninApp(t, {
      config: {
        Authorize: () => false,
        SecondFactor: () => {
          called++;
          return false;
        },
      },
    });
    await app.begin("ann@example.com");
    const res = await app.request("GET", await app.linkFor("ann@example.com"));
    assert.equal(res.location, "/signin?err=address");
    assert.equal(called, 0);
  });
});

describe("Signin RequireFreshSession()", () => {
  it("passes a fresh session and refuses a stale one: 303 to StalePath?next= for HTML, 401 otherwise", async (t) => {
    const app = await startSigninApp(t, { freshFor: 5 * MINUTE });
    const jar = await app.signIn("ann@example.com");
    const html = { Accept: "text/html" };

    const fresh = await app.request("GET", "/fresh?tab=keys", { jar, headers: html });
    assert.equal(fresh.status, 200);
    assert.match(fresh.body, /"from":\{"Subject":"ann@example.com","Method":"magiclink"/);

    app.clock.advance(5 * MINUTE);
    assert.equal((await app.request("GET", "/fresh", { jar, headers: html })).status, 200, "exactly maxAge old is still fresh");

    app.clock.advance(1);
    const stale = await app.request("GET", "/fresh?tab=keys", { jar, headers: html });
    assert.equal(stale.status, 303);
    assert.equal(stale.location, `/stepup?next=${encodeURIComponent("/fresh?tab=keys")}`);
    const api = await app.request("GET", "/fresh", { jar, headers: { Accept: "application/json" } });
    assert.equal(api.status, 401);
    assert.equal(api.location, undefined);

    // The stale session is still a session: RequireSession passes it.
    assert.equal((await app.request("GET", "/me", { jar })).status, 200);
    assert.equal(count(app.db, "sessions"), 1);
  });

  it("refuses, when built, a maxAge that is not a whole number of milliseconds: NaN would pass a session of any age", async (t) => {
    const app = await startSigninApp(t);
    const unset = Number(process.env["LATCH_TEST_UNSET_VARIABLE"]) * 1000;
    for (const maxAge of [unset, Number.NaN, 0, -1, 1.5, Infinity, 2 ** 31]) {
      assert.throws(() => app.auth.RequireFreshSession(maxAge), {
        name: "SigninError",
        code: "ERR_SIGNIN_INVALID_CONFIG",
        message: /^signin: RequireFreshSession maxAge must be /,
      });
    }
    // A whole number of ms up to Node's longest timer is a duration (lib/internal durationProblem).
    assert.equal(typeof app.auth.RequireFreshSession(2 ** 31 - 1), "function");
  });

  it("names no next for a stale unsafe request: a redirect cannot replay a form POST", async (t) => {
    const app = await startSigninApp(t, { freshFor: 5 * MINUTE });
    const jar = await app.signIn("ann@example.com");
    app.clock.advance(5 * MINUTE + 1);
    const stale = await app.request("POST", "/fresh", { jar, headers: { Accept: "text/html" }, form: { x: "1" } });
    assert.equal(stale.status, 303);
    assert.equal(stale.location, "/stepup");
  });

  it("behaves as RequireSession without a session", async (t) => {
    const app = await startSigninApp(t);
    const html = await app.request("GET", "/fresh", { headers: { Accept: "text/html" } });
    assert.equal(html.status, 303);
    assert.equal(html.location, "/signin");
    assert.equal((await app.request("GET", "/fresh")).status, 401);
  });

  it("falls back to SigninPath when StalePath is unset", async (t) => {
    const app = await startSigninApp(t, { freshFor: MINUTE, stalePath: false });
    const jar = await app.signIn("ann@example.com");
    app.clock.advance(MINUTE + 1);
    const stale = await app.request("GET", "/fresh", { jar, headers: { Accept: "text/html" } });
    assert.equal(stale.location, "/signin?next=%2Ffresh");
  });

  it("measures freshness from AuthTime, not from the last request", async (t) => {
    const app = await startSigninApp(t, { freshFor: 10 * MINUTE });
    const jar = await app.signIn("ann@example.com");
    for (let i = 0; i < 3; i++) {
      app.clock.advance(4 * MINUTE);
      await app.request("GET", "/me", { jar });
    }
    assert.equal((await app.request("GET", "/fresh", { jar })).status, 401);
  });

  it("puts only the local path and query in next=, even for an absolute-form request", async (t) => {
    const app = await startSigninApp(t, { freshFor: MINUTE });
    const jar = await app.signIn("ann@example.com");
    app.clock.advance(MINUTE + 1);
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const headers = { Cookie: jar.header() ?? "", Accept: "text/html" };
      const req = request(`${app.base}/`, { path: "http://evil.example/fresh?x=1", headers, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.headers.location));
      });
      req.on("error", reject);
      req.end();
    });
    assert.equal(location, `/stepup?next=${encodeURIComponent("/fresh?x=1")}`);
  });
});
