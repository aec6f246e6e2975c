import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { systemClock } from "../../lib/http/index.ts";
import { discoveryURL, MetadataCache, parseMetadata } from "../../lib/signin/oidc/discovery.ts";
import { isOIDCError } from "../../lib/signin/oidc/errors.ts";
import { startServer } from "../_support/server.ts";

const ISSUER = "https://id.example";
const DOC = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/auth`,
  token_endpoint: `${ISSUER}/token`,
  jwks_uri: `${ISSUER}/jwks`,
  authorization_response_iss_parameter_supported: true,
};

describe("discoveryURL()", () => {
  it("appends the well-known path once, with or without a trailing slash", () => {
    assert.equal(discoveryURL(ISSUER).href, `${ISSUER}/.well-known/openid-configuration`);
    assert.equal(discoveryURL(`${ISSUER}/tenant/`).href, `${ISSUER}/tenant/.well-known/openid-configuration`);
  });
});

describe("parseMetadata()", () => {
  it("picks the endpoints and the RFC 9207 flag", () => {
    const m = parseMetadata(DOC, `${ISSUER}/`);
    assert.equal(m.issuer, ISSUER);
    assert.equal(m.tokenEndpoint.href, `${ISSUER}/token`);
    assert.equal(m.issParameterSupported, true);
    assert.equal(parseMetadata({ ...DOC, authorization_response_iss_parameter_supported: "yes" }, ISSUER).issParameterSupported, false);
  });

  const rows = [
    { name: "another issuer", doc: { ...DOC, issuer: "https://evil.example" } },
    { name: "a missing token endpoint", doc: { ...DOC, token_endpoint: undefined } },
    { name: "an http endpoint beside an https issuer", doc: { ...DOC, jwks_uri: "http://id.example/jwks" } },
    { name: "an endpoint that is no URL", doc: { ...DOC, authorization_endpoint: "auth" } },
    { name: "an array", doc: [DOC] },
  ];
  for (const { name, doc } of rows) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => parseMetadata(doc, ISSUER),
        (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_DISCOVERY",
      );
    });
  }
});

describe("MetadataCache.get()", () => {
  it("caches a good document, does not cache a failure, and refetches after invalidate", async (t) => {
    let hits = 0;
    let failing = true;
    const server = await startServer(t, (_req, res) => {
      hits++;
      if (failing) res.writeHead(500).end("{}");
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...DOC, issuer }));
    });
    const issuer = server.base;
    const cache = new MetadataCache({ issuer, timeout: 5000, clock: systemClock });
    await assert.rejects(cache.get(), (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_DISCOVERY");
    failing = false;
    assert.equal((await cache.get()).issuer, issuer);
    await cache.get();
    assert.equal(hits, 2);
    cache.invalidate();
    await cache.get();
    assert.equal(hits, 3);
  });
});
