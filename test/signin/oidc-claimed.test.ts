import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { InboxProvider } from "../../lib/signin/oidc/provider.ts";
import type { LookupFunc } from "../../lib/signin/oidc/options.ts";
import { startOIDCProvider } from "../_support/oidc-provider.ts";
import { startServer } from "../_support/server.ts";

const ORIGIN = "http://127.0.0.1:9";

function provider(issuer: string, extra: { Lookup?: LookupFunc; LookupTimeout?: number } = {}): InboxProvider {
  return new InboxProvider({
    Issuer: issuer,
    ClientID: ORIGIN,
    RedirectURI: `${ORIGIN}/auth/callback`,
    InstanceKey: "k".repeat(32),
    ...extra,
  });
}

/** A WebFinger endpoint answering every request with `status` and `body`. */
async function fixedServer(t: TestContext, status: number, body: string): Promise<string> {
  return (await startServer(t, (_req, res) => void res.writeHead(status, { "content-type": "application/jrd+json" }).end(body))).base;
}

describe("InboxProvider.isClaimed()", () => {
  it("answers true for an address the issuer's WebFinger links, false for another", async (t) => {
    const idp = await startOIDCProvider({ clientOrigin: ORIGIN, accounts: {}, claimed: ["alice@example.com"] });
    t.after(() => idp.close());
    const p = provider(idp.issuer);
    assert.equal(await p.isClaimed("alice@example.com"), true);
    assert.equal(await p.isClaimed("nobody@example.com"), false);
    assert.equal(idp.webfingerRequests(), 2);
  });

  it("accepts the configured issuer with a trailing slash", async (t) => {
    const idp = await startOIDCProvider({ clientOrigin: ORIGIN, accounts: {}, claimed: ["alice@example.com"] });
    t.after(() => idp.close());
    assert.equal(await provider(`${idp.issuer}/`).isClaimed("alice@example.com"), true);
  });

  it("answers false when WebFinger stalls past the lookup timeout", async (t) => {
    const idp = await startOIDCProvider({ clientOrigin: ORIGIN, accounts: {}, claimed: ["alice@example.com"], stallWebFinger: true });
    t.after(() => idp.close());
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const answer = provider(idp.issuer, { LookupTimeout: 1500 }).isClaimed("alice@example.com");
    while (idp.webfingerRequests() === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    t.mock.timers.tick(1500);
    assert.equal(await answer, false);
    assert.equal(idp.webfingerRequests(), 1);
  });

  it("answers false when the provider is unreachable", async () => {
    assert.equal(await provider("http://127.0.0.1:1").isClaimed("alice@example.com"), false);
  });

  const ISSUER_REL = "http://openid.net/specs/connect/1.0/issuer";
  const answers = [
    { name: "a 500", status: 500, body: "{}" },
    { name: "malformed JSON", status: 200, body: "{links:" },
    { name: "links not an array", status: 200, body: JSON.stringify({ links: {} }) },
    { name: "another issuer", status: 200, body: JSON.stringify({ links: [{ rel: ISSUER_REL, href: "https://evil.example" }] }) },
    { name: "another relation", status: 200, body: JSON.stringify({ links: [{ rel: "self", href: "https://x.example" }] }) },
  ];
  for (const { name, status, body } of answers) {
    it(`answers false for ${name}`, async (t) => {
      const issuer = await fixedServer(t, status, body);
      assert.equal(await provider(issuer).isClaimed("alice@example.com"), false);
    });
  }

  it("uses a custom Lookup instead of WebFinger", async () => {
    const asked: string[] = [];
    const p = provider("https://id.example", {
      Lookup: async (address) => {
        asked.push(address);
        return address.endsWith("@claimed.example");
      },
    });
    assert.equal(await p.isClaimed("a@claimed.example"), true);
    assert.equal(await p.isClaimed("a@other.example"), false);
    assert.deepEqual(asked, ["a@claimed.example", "a@other.example"]);
  });

  it("answers false when a custom Lookup throws or never settles", async (t) => {
    const throwing = provider("https://id.example", { Lookup: () => Promise.reject(new Error("lookup: down")) });
    assert.equal(await throwing.isClaimed("a@example.com"), false);
    t.mock.timers.enable({ apis: ["setTimeout"] });
    let aborted = false;
    const hanging = provider("https://id.example", {
      LookupTimeout: 1500,
      Lookup: (_address, signal) => {
        signal.addEventListener("abort", () => (aborted = true));
        return new Promise<boolean>(() => {});
      },
    });
    const answer = hanging.isClaimed("a@example.com");
    t.mock.timers.tick(1499);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(aborted, false);
    t.mock.timers.tick(1);
    assert.equal(await answer, false);
    assert.equal(aborted, true);
  });
});
