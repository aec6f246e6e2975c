import assert from "node:assert/strict";
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, it, type TestContext } from "node:test";
import { isOIDCError } from "../../lib/signin/oidc/errors.ts";
import { importJWK, KeySet, parseJWKS } from "../../lib/signin/oidc/jwks.ts";
import { startServer } from "../_support/server.ts";

function publicJWK(key: KeyObject, extra: object = {}): object {
  return { ...key.export({ format: "jwk" }), ...extra };
}

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed = generateKeyPairSync("ed25519");

describe("importJWK()", () => {
  it("imports RSA, P-256 and Ed25519 public keys", () => {
    for (const pair of [rsa, ec, ed]) {
      const imported = importJWK(publicJWK(pair.publicKey, { kid: "k" }));
      assert.equal(imported?.kid, "k");
      assert.ok(imported?.key.equals(pair.publicKey));
    }
  });

  it("imports only the public half of a private JWK", () => {
    const imported = importJWK(publicJWK(ec.privateKey));
    assert.equal(imported?.key.type, "public");
    assert.ok(imported?.key.equals(ec.publicKey));
  });

  const skipped = [
    { name: "an encryption key", jwk: publicJWK(rsa.publicKey, { use: "enc" }) },
    { name: "key_ops without verify", jwk: publicJWK(rsa.publicKey, { key_ops: ["encrypt"] }) },
    { name: "a P-384 key", jwk: publicJWK(generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey) },
    { name: "a symmetric key", jwk: { kty: "oct", k: "AAAA" } },
    { name: "an RSA key without n", jwk: { kty: "RSA", e: "AQAB" } },
    { name: "garbage coordinates", jwk: { kty: "EC", crv: "P-256", x: "AA", y: "AA" } },
    { name: "a string", jwk: "RSA" },
  ];
  for (const { name, jwk } of skipped) {
    it(`skips ${name}`, () => assert.equal(importJWK(jwk), undefined));
  }
});

describe("parseJWKS()", () => {
  it("keeps the usable keys and throws on a document that is no key set", () => {
    assert.equal(parseJWKS({ keys: [publicJWK(rsa.publicKey), { kty: "oct" }] }).length, 1);
    assert.throws(
      () => parseJWKS({ keys: {} }),
      (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_JWKS",
    );
  });
});

/** Serves the JWK Set returned by `current()` and counts requests. */
async function jwksServer(t: TestContext, current: () => object): Promise<{ url: URL; hits: () => number }> {
  let hits = 0;
  const server = await startServer(t, (_req, res) => {
    hits++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(current()));
  });
  return { url: new URL(`${server.base}/jwks`), hits: () => hits };
}

describe("KeySet.candidates()", () => {
  it("caches the set and fetches it again once for an unknown kid", async (t) => {
    let keys = [publicJWK(rsa.publicKey, { kid: "old" })];
    const server = await jwksServer(t, () => ({ keys }));
    const set = new KeySet(server.url, 5000);
    assert.equal((await set.candidates("old", "RS256")).length, 1);
    assert.equal((await set.candidates("old", "RS256")).length, 1);
    assert.equal(server.hits(), 1);
    keys = [publicJWK(ec.publicKey, { kid: "new" })];
    const found = await set.candidates("new", "ES256");
    assert.equal(found.length, 1);
    assert.ok(found[0]?.equals(ec.publicKey));
    assert.equal(server.hits(), 2);
    assert.deepEqual(await set.candidates("gone", "ES256"), []);
    assert.equal(server.hits(), 3);
  });

  it("matches keys by algorithm and the JWK's own alg", async (t) => {
    const server = await jwksServer(t, () => ({
      keys: [publicJWK(rsa.publicKey, { kid: "r", alg: "PS256" }), publicJWK(ed.publicKey, { kid: "e", alg: "EdDSA" })],
    }));
    const set = new KeySet(server.url, 5000);
    assert.deepEqual(await set.candidates("r", "RS256"), []);
    assert.equal((await set.candidates("e", "Ed25519")).length, 1);
    assert.equal((await set.candidates(undefined, "EdDSA")).length, 1);
  });

  it("throws ERR_SIGNIN_OIDC_UNREACHABLE when the set cannot be fetched", async () => {
    const set = new KeySet(new URL("http://127.0.0.1:1/jwks"), 5000);
    await assert.rejects(set.candidates("k", "RS256"), (e: unknown) => isOIDCError(e) && e.code === "ERR_SIGNIN_OIDC_UNREACHABLE");
  });
});
