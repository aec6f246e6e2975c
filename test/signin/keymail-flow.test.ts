/*
 * The inbox-provider ("keymail") sign-in driven end to end over HTTP:
 * POST /signin and GET /auth/callback of a whole app (Handler + Mux +
 * signin.New with a Provider), against a real oidc-provider whose client_id
 * is the app's Origin. Every failure at the callback must land on
 * SigninPath?err=keymail&force=1, clear the pending cookie and mint nothing.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, beforeEach, describe, it } from "node:test";
import { PENDING_BLOB_TTL } from "../../lib/signin/oidc/pending.ts";
import { assertLogsClean, beginKeymail, callback, noteSecret, startKeymailApp } from "../_support/keymail-app.ts";
import { cookiePair, setCookieLine } from "../_support/http-client.ts";
import type { Begun, KeymailApp } from "../_support/keymail-app.ts";

const ALICE = "alice@example.com";
const BOB = "bob@example.com";
const CAROL = "carol@example.com";
const FAILED = "/signin?err=keymail&force=1";

const accounts = { [ALICE]: { email_verified: true }, [BOB]: { email_verified: true }, [CAROL]: { email_verified: false } };

describe("Signin.Begin() and Signin.Callback() with an inbox provider", () => {
  let app: KeymailApp;
  before(async () => {
    app = await startKeymailApp({ accounts, claimed: [ALICE, BOB, CAROL] });
  });
  after(() => app.close());
  beforeEach(() => {
    app.db.exec("DELETE FROM sessions");
    delete app.hooks.authorize;
    delete app.hooks.secondFactor;
    app.resetClock();
  });

  it("signs a claimed address in through the provider, with method keymail", async () => {
    const metadata: unknown = await (await fetch(`${app.idp.issuer}/.well-known/openid-configuration`)).json();
    assert.ok(typeof metadata === "object" && metadata !== null && "authorization_endpoint" in metadata);
    const begun = await beginKeymail(app, ALICE);
    const auth = begun.location;
    assert.equal(`${auth.origin}${auth.pathname}`, metadata.authorization_endpoint);
    const q = auth.searchParams;
    assert.equal(q.get("response_type"), "code");
    assert.equal(q.get("client_id"), app.origin);
    assert.equal(q.get("redirect_uri"), `${app.origin}/auth/callback`);
    assert.equal(q.get("scope"), "openid email");
    assert.match(q.get("state") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get("nonce") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/);
    assert.equal(q.get("code_challenge_method"), "S256");
    assert.equal(q.get("login_hint"), ALICE);
    const attrs = begun.blobLine
      .split(";")
      .slice(1)
      .map((a) => a.trim().toLowerCase());
    for (const attr of ["httponly", "samesite=lax", "path=/", "max-age=600"])
      assert.ok(attrs.includes(attr), `${attr} in ${begun.blobLine}`);
    assert.equal(app.smtp.messages.length, 0, "no email for a claimed address");

    const back = await app.idp.authorize(auth.href);
    assert.equal(`${back.origin}${back.pathname}`, `${app.origin}/auth/callback`);
    const res = await callback(app, back, begun.blob);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/account");
    assertBlobCleared(res);
    const sessionLine = setCookieLine(res.headers.getSetCookie(), app.auth.SessionCookie());
    assert.ok(sessionLine !== undefined && !sessionLine.startsWith(`${app.auth.SessionCookie()}=;`));
    noteSecret(app, cookiePair(sessionLine).split("=")[1]);
    assert.equal(app.sessionCount(), 1);

    const me = await app.get("/me", cookiePair(sessionLine));
    assert.equal(me.status, 200);
    assert.deepEqual(await me.json(), { subject: ALICE, method: "keymail" });

    // The same callback again: the code is spent and the cookie is gone from a real browser.
    const replay = await callback(app, back, begun.blob);
    assert.equal(replay.headers.get("location"), FAILED);
    assert.equal(app.sessionCount(), 1);
    assertLogsClean(app);
  });

  interface Row {
    name: string;
    reason: string;
    /** Produces the callback URL and the Cookie header the browser sends. */
    run(app: KeymailApp): Promise<{ url: URL; cookie: string | undefined }>;
  }
  const authorized = async (address: string, login?: string): Promise<{ begun: Begun; back: URL }> => {
    const begun = await beginKeymail(app, address);
    const back = await app.idp.authorize(begun.location.href, login === undefined ? {} : { login });
    return { begun, back };
  };
  const rows: Row[] = [
    {
      name: "a tampered blob",
      reason: "bad_blob",
      async run() {
        const { begun, back } = await authorized(ALICE);
        const eq = begun.blob.indexOf("=");
        const value = begun.blob.slice(eq + 1);
        const flipped = `${value.slice(0, 10)}${value[10] === "A" ? "B" : "A"}${value.slice(11)}`;
        return { url: back, cookie: `${begun.blob.slice(0, eq)}=${flipped}` };
      },
    },
    {
      name: "an expired blob",
      reason: "expired",
      async run(a) {
        const { begun, back } = await authorized(ALICE);
        a.advance(PENDING_BLOB_TTL + 1000);
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "a wrong state",
      reason: "state",
      async run() {
        const { begun, back } = await authorized(ALICE);
        back.searchParams.set("state", randomBytes(32).toString("base64url"));
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "a wrong iss",
      reason: "iss",
      async run() {
        const { begun, back } = await authorized(ALICE);
        back.searchParams.set("iss", "https://issuer.invalid");
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "an ID token for another address",
      reason: "email_mismatch",
      async run() {
        const { begun, back } = await authorized(ALICE, BOB);
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "an email the provider has not verified",
      reason: "email_unverified",
      async run() {
        const { begun, back } = await authorized(CAROL);
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "the user declining at the provider (error=access_denied)",
      reason: "provider_error",
      async run(a) {
        const begun = await beginKeymail(a, ALICE);
        const back = await a.idp.authorize(begun.location.href, { deny: true });
        assert.equal(back.searchParams.get("error"), "access_denied");
        return { url: back, cookie: begun.blob };
      },
    },
    {
      name: "no blob cookie at all",
      reason: "no_blob",
      async run() {
        const { back } = await authorized(ALICE);
        return { url: back, cookie: undefined };
      },
    },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} with err=keymail&force=1 and no session`, async () => {
      const { url, cookie } = await row.run(app);
      const from = app.log.lines().length;
      const res = await callback(app, url, cookie);
      assertRefusal(app, res, from, row.reason);
      assertLogsClean(app);
    });
  }

  it("refuses the callback when Authorize turns the address away (err=address)", async () => {
    const asked: string[] = [];
    app.hooks.authorize = (address) => (asked.push(address), false);
    const { begun, back } = await authorized(ALICE);
    const res = await callback(app, back, begun.blob);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/signin?err=address");
    assert.deepEqual(asked, [ALICE]);
    assertBlobCleared(res);
    assert.equal(setCookieLine(res.headers.getSetCookie(), app.auth.SessionCookie()), undefined);
    assert.equal(app.sessionCount(), 0);
    assertLogsClean(app);
  });

  it("hands the verified identity to SecondFactor with method keymail, which may answer instead", async () => {
    const seen: { Subject: string; Method: string }[] = [];
    app.hooks.secondFactor = (_req, res, identity) => {
      seen.push({ Subject: identity.Subject, Method: identity.Method });
      res.writeHead(303, { Location: "/confirm" }).end();
      return true;
    };
    const { begun, back } = await authorized(ALICE);
    const res = await callback(app, back, begun.blob);
    assert.deepEqual(seen, [{ Subject: ALICE, Method: "keymail" }]);
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/confirm");
    assertBlobCleared(res);
    assert.equal(setCookieLine(res.headers.getSetCookie(), app.auth.SessionCookie()), undefined);
    assert.equal(app.sessionCount(), 0);
    assertLogsClean(app);
  });
});

describe("Signin.Callback() with the provider unreachable", () => {
  it("refuses with err=keymail&force=1 and no session", async (t) => {
    const app = await startKeymailApp({ accounts, claimed: [ALICE] });
    t.after(() => app.close());
    const begun = await beginKeymail(app, ALICE);
    const back = await app.idp.authorize(begun.location.href);
    await app.idp.close();
    const from = app.log.lines().length;
    const res = await callback(app, back, begun.blob);
    assertRefusal(app, res, from, "provider_down");
    assertLogsClean(app);
  });
});

function assertBlobCleared(res: Response): void {
  const line = setCookieLine(res.headers.getSetCookie(), "framework_oidc");
  assert.ok(line !== undefined, "the pending cookie is cleared");
  assert.match(line, /^framework_oidc=;/);
  assert.match(line, /Max-Age=0/i);
}

function assertRefusal(app: KeymailApp, res: Response, from: number, reason: string): void {
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), FAILED);
  assertBlobCleared(res);
  assert.equal(setCookieLine(res.headers.getSetCookie(), app.auth.SessionCookie()), undefined, "no session cookie");
  assert.equal(app.sessionCount(), 0);
  const refusals = app.log
    .lines()
    .slice(from)
    .filter((l) => l["msg"] === "signin oidc: callback refused");
  assert.equal(refusals.length, 1, "logged once");
  assert.equal(refusals[0]?.["reason"], reason);
}
