import assert from "node:assert/strict";
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { describe, it } from "node:test";
import { ID_TOKEN_CLOCK_SKEW, verifyIDToken, type IDTokenExpectations } from "../../lib/signin/oidc/id-token.ts";
import { isKeyForAlgorithm, parseJWT, type JWSAlgorithm } from "../../lib/signin/oidc/jwt.ts";

const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const ed = generateKeyPairSync("ed25519");
const otherEC = generateKeyPairSync("ec", { namedCurve: "P-256" });
const PUBLIC_KEYS: KeyObject[] = [rsa.publicKey, ec.publicKey, ed.publicKey];

const NOW = new Date("2030-01-01T00:00:00Z");
const SECONDS = Math.floor(NOW.getTime() / 1000);
const EXPECT: IDTokenExpectations = { issuer: "https://id.example", audience: "https://app.example", nonce: "n-123", now: NOW };
const CLAIMS = {
  iss: EXPECT.issuer,
  aud: EXPECT.audience,
  sub: "user-1",
  nonce: EXPECT.nonce,
  iat: SECONDS - 10,
  exp: SECONDS + 300,
  email: "alice@example.com",
  email_verified: true,
};

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Signs a compact JWS the way a provider would. */
function signJWT(alg: string, payload: object, key: KeyObject, header: object = {}): string {
  const input = `${b64({ alg, kid: "k1", ...header })}.${b64(payload)}`;
  const data = Buffer.from(input);
  let sig: Buffer;
  if (alg === "RS256") sig = sign("sha256", data, key);
  else if (alg === "ES256") sig = sign("sha256", data, { key, dsaEncoding: "ieee-p1363" });
  else sig = sign(null, data, key);
  return `${input}.${sig.toString("base64url")}`;
}

const findKeys = async (_kid: string | undefined, alg: JWSAlgorithm): Promise<KeyObject[]> =>
  PUBLIC_KEYS.filter((k) => isKeyForAlgorithm(k, alg));

describe("verifyIDToken()", () => {
  const algorithms = [
    { alg: "RS256", key: rsa.privateKey },
    { alg: "ES256", key: ec.privateKey },
    { alg: "EdDSA", key: ed.privateKey },
    { alg: "Ed25519", key: ed.privateKey },
  ];
  for (const { alg, key } of algorithms) {
    it(`accepts a valid ${alg} token and reads its claims`, async () => {
      const result = await verifyIDToken(signJWT(alg, CLAIMS, key), findKeys, EXPECT);
      assert.deepEqual(result, {
        ok: true,
        claims: { sub: "user-1", email: "alice@example.com", emailVerified: true, authTime: undefined },
      });
    });
  }

  const rs = (changes: object): string => signJWT("RS256", { ...CLAIMS, ...changes }, rsa.privateKey);
  const skewSeconds = ID_TOKEN_CLOCK_SKEW / 1000;
  const tamperedPayload = (): string => {
    const [h, , sig] = rs({}).split(".");
    return `${h}.${b64({ ...CLAIMS, email: "eve@example.com" })}.${sig}`;
  };
  const relabelled = (): string => signJWT("ES256", CLAIMS, ec.privateKey).replace(/^[^.]+/, b64({ alg: "RS256" }));
  const refusals: { name: string; token: () => string; reason: string }[] = [
    { name: "a signature by another key", token: () => signJWT("ES256", CLAIMS, otherEC.privateKey), reason: "signature" },
    { name: "an RS256 header over an ES256 signature", token: relabelled, reason: "signature" },
    { name: "a tampered payload", token: tamperedPayload, reason: "signature" },
    { name: "alg none", token: () => `${b64({ alg: "none" })}.${b64(CLAIMS)}.`, reason: "malformed" },
    { name: "alg HS256", token: () => `${b64({ alg: "HS256" })}.${b64(CLAIMS)}.AAAA`, reason: "malformed" },
    { name: "a crit header", token: () => signJWT("RS256", CLAIMS, rsa.privateKey, { crit: ["exp"] }), reason: "malformed" },
    { name: "two parts", token: () => `${b64({ alg: "RS256" })}.${b64(CLAIMS)}`, reason: "malformed" },
    { name: "a wrong issuer", token: () => rs({ iss: "https://evil.example" }), reason: "iss" },
    { name: "a wrong audience", token: () => rs({ aud: "https://other.example" }), reason: "aud" },
    { name: "several audiences without azp", token: () => rs({ aud: [EXPECT.audience, "x"] }), reason: "azp" },
    { name: "a wrong azp", token: () => rs({ azp: "x" }), reason: "azp" },
    { name: "an expiry past the skew", token: () => rs({ exp: SECONDS - skewSeconds }), reason: "exp" },
    { name: "no expiry", token: () => rs({ exp: undefined }), reason: "exp" },
    { name: "an issue time past the skew in the future", token: () => rs({ iat: SECONDS + skewSeconds + 1 }), reason: "iat" },
    { name: "a not-before in the future", token: () => rs({ nbf: SECONDS + 3600 }), reason: "nbf" },
    { name: "a wrong nonce", token: () => rs({ nonce: "n-124" }), reason: "nonce" },
    { name: "no nonce", token: () => rs({ nonce: undefined }), reason: "nonce" },
    { name: "no subject", token: () => rs({ sub: "" }), reason: "sub" },
  ];
  for (const { name, token, reason } of refusals) {
    it(`refuses ${name}`, async () => {
      assert.deepEqual(await verifyIDToken(token(), findKeys, EXPECT), { ok: false, reason });
    });
  }

  it("tolerates an expiry within the clock skew", async () => {
    const token = rs({ exp: SECONDS - skewSeconds + 1 });
    assert.equal((await verifyIDToken(token, findKeys, EXPECT)).ok, true);
  });

  it("reads email_verified as true only for the JSON value true", async () => {
    for (const value of ["true", 1, undefined]) {
      const result = await verifyIDToken(rs({ email_verified: value }), findKeys, EXPECT);
      assert.equal(result.ok && result.claims.emailVerified, false, String(value));
    }
  });

  it("refuses an RSA key under 2048 bits", async () => {
    const small = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const token = signJWT("RS256", CLAIMS, small.privateKey);
    const result = await verifyIDToken(token, async () => [small.publicKey], EXPECT);
    assert.deepEqual(result, { ok: false, reason: "signature" });
  });
});

describe("parseJWT()", () => {
  it("returns the header's alg and kid and the signed bytes", () => {
    const token = signJWT("ES256", CLAIMS, ec.privateKey);
    const jwt = parseJWT(token);
    assert.equal(jwt?.alg, "ES256");
    assert.equal(jwt?.kid, "k1");
    assert.equal(jwt?.signingInput.toString(), token.split(".").slice(0, 2).join("."));
    assert.equal(jwt?.signature.length, 64);
  });

  it("refuses non-canonical base64url and non-object parts", () => {
    const token = signJWT("ES256", CLAIMS, ec.privateKey);
    const rows = [`${token}=`, token.replace(".", ".="), `${b64({ alg: "ES256" })}.${b64([1])}.AA`, `${b64("x")}.${b64(CLAIMS)}.AA`];
    for (const bad of rows) {
      assert.equal(parseJWT(bad), undefined, bad.slice(0, 30));
    }
  });
});
