import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InboxProvider } from "../../lib/signin/oidc/provider.ts";
import { isOIDCError } from "../../lib/signin/oidc/errors.ts";
import { PENDING_BLOB_TTL } from "../../lib/signin/oidc/pending.ts";
import type { InboxProviderOptions } from "../../lib/signin/oidc/options.ts";
import { MAX_TIMER_MS, durationProblem, readCookie } from "../../lib/internal/index.ts";
import { startOIDCProvider } from "../_support/oidc-provider.ts";

const GOOD: InboxProviderOptions = {
  Issuer: "https://id.example",
  ClientID: "https://app.example",
  RedirectURI: "https://app.example/auth/callback",
  InstanceKey: "k".repeat(32),
};

describe("new InboxProvider()", () => {
  const rows: { name: string; change: Partial<InboxProviderOptions>; want: string }[] = [
    { name: "an empty InstanceKey", change: { InstanceKey: "" }, want: "InstanceKey" },
    { name: "an issuer with a query", change: { Issuer: "https://id.example/?x=1" }, want: "Issuer" },
    { name: "an issuer that is no URL", change: { Issuer: "id.example" }, want: "Issuer" },
    { name: "a ClientID with a path", change: { ClientID: "https://app.example/app" }, want: "ClientID" },
    { name: "a RedirectURI on another origin", change: { RedirectURI: "https://evil.example/auth/callback" }, want: "RedirectURI" },
    { name: "a zero LookupTimeout", change: { LookupTimeout: 0 }, want: "LookupTimeout" },
    { name: "a NaN HTTPTimeout", change: { HTTPTimeout: Number.NaN }, want: "HTTPTimeout" },
    // Node fires a timer longer than 2^31 - 1 ms after 1 ms: the lookup would give up at once.
    { name: "a LookupTimeout of 3e9 ms", change: { LookupTimeout: 3e9 }, want: "LookupTimeout" },
    { name: "an HTTPTimeout of 3e9 ms", change: { HTTPTimeout: 3e9 }, want: "HTTPTimeout" },
    { name: "an Infinity HTTPTimeout", change: { HTTPTimeout: Infinity }, want: "HTTPTimeout" },
  ];
  for (const { name, change, want } of rows) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => new InboxProvider({ ...GOOD, ...change }),
        (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_INVALID_CONFIG" && e.message.includes(want),
      );
    });
  }

  it("refuses a duration with the words of the one shared check (durationProblem)", () => {
    assert.throws(
      () => new InboxProvider({ ...GOOD, LookupTimeout: 3e9 }),
      (e: unknown) => isOIDCError(e) && e.message.includes(`LookupTimeout ${String(durationProblem(3e9))}`),
    );
  });

  it("accepts the longest delay Node's timers honour", () => {
    assert.doesNotThrow(() => new InboxProvider({ ...GOOD, LookupTimeout: MAX_TIMER_MS, HTTPTimeout: MAX_TIMER_MS }));
  });
});

describe("InboxProvider.begin()", () => {
  it("sets a __Host- Secure cookie for an https origin", async (t) => {
    const idp = await startOIDCProvider({ clientOrigin: GOOD.ClientID, accounts: {}, claimed: [] });
    t.after(() => idp.close());
    const p = new InboxProvider({ ...GOOD, Issuer: idp.issuer });
    const { cookie, location } = await p.begin("alice@example.com");
    assert.match(cookie, /^__Host-framework_oidc=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+; Max-Age=600; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    assert.equal(PENDING_BLOB_TTL, 600_000);
    assert.equal(p.clearCookie(), "__Host-framework_oidc=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax");
    const url = new URL(location);
    assert.notEqual(url.searchParams.get("state"), url.searchParams.get("nonce"));
    const again = new URL((await p.begin("alice@example.com")).location);
    assert.notEqual(again.searchParams.get("state"), url.searchParams.get("state"));
    assert.notEqual(again.searchParams.get("code_challenge"), url.searchParams.get("code_challenge"));
  });

  it("sets an unprefixed cookie without Secure for an http origin", async (t) => {
    const idp = await startOIDCProvider({ clientOrigin: "http://localhost:8080", accounts: {}, claimed: [] });
    t.after(() => idp.close());
    const p = new InboxProvider({
      ...GOOD,
      Issuer: idp.issuer,
      ClientID: "http://localhost:8080",
      RedirectURI: "http://localhost:8080/auth/callback",
    });
    const { cookie } = await p.begin("alice@example.com");
    assert.match(cookie, /^framework_oidc=[^;]+; Max-Age=600; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal(p.clearCookie(), "framework_oidc=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax");
  });

  it("throws ERR_SIGNIN_OIDC_UNREACHABLE when the provider is down", async () => {
    const p = new InboxProvider({ ...GOOD, Issuer: "http://127.0.0.1:1" });
    await assert.rejects(p.begin("alice@example.com"), (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_UNREACHABLE");
  });
});

describe("readCookie()", () => {
  const rows = [
    { header: undefined, want: undefined },
    { header: "a=1; framework_oidc=v.w; b=2", want: "v.w" },
    { header: "framework_oidc=first; framework_oidc=second", want: "first" },
    { header: "xframework_oidc=v", want: undefined },
    { header: "framework_oidc", want: undefined },
  ];
  for (const { header, want } of rows) {
    it(`reads ${JSON.stringify(header)}`, () => assert.equal(readCookie(header, "framework_oidc"), want));
  }
});
