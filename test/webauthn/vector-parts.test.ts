/*
 * The signature-only and authenticator-data parsing entries of
 * test/fixtures/passkey/simplewebauthn.json (signatureVectors, parseVectors).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { isPasskeyError } from "../../lib/webauthn/index.ts";
import { parseAuthenticatorData } from "../../lib/webauthn/authenticator-data.ts";
import { parseCOSEKey } from "../../lib/webauthn/cose.ts";
import { verifySignature } from "../../lib/webauthn/signature.ts";
import { loadVectorFile } from "../_support/passkey-vectors.ts";

const file = loadVectorFile("simplewebauthn.json");
const b64 = (s: unknown): Uint8Array => {
  assert.equal(typeof s, "string");
  return new Uint8Array(Buffer.from(String(s), "base64url"));
};
const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? new Uint8Array()).toString("hex");

function entries(key: string): Record<string, unknown>[] {
  const list = file.raw[key];
  assert.ok(Array.isArray(list));
  return list.filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null);
}

/** CBOR tag 259 header (d9 0103) the extractor wrapped these keys in; authenticators never send tags. */
const TAG_259 = "d90103";

describe("verifySignature() on simplewebauthn.json signatureVectors", () => {
  for (const v of entries("signatureVectors")) {
    it(`${String(v["name"])} verifies`, () => {
      const tagged = b64(v["credentialPublicKey"]);
      // latch refuses CBOR tags in COSE keys (CTAP2 canonical form); the fixture's tag is stripped to reach the key.
      assert.throws(
        () => parseCOSEKey(tagged, "test"),
        (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_MALFORMED_PUBLIC_KEY",
      );
      assert.equal(hex(tagged.subarray(0, 3)), TAG_259);
      const key = parseCOSEKey(tagged.subarray(3), "test");
      assert.equal(key.alg, v["alg"]);
      const data = b64(v["data"]);
      const sig = b64(v["signature"]);
      assert.equal(verifySignature(key, data, sig), true);
      const flipped = Uint8Array.from(sig);
      flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 0x01;
      assert.equal(verifySignature(key, data, flipped), false);
    });
  }
});

describe("parseAuthenticatorData() on simplewebauthn.json parseVectors", () => {
  const [rsa, ext, firefox] = entries("parseVectors");
  it("parses attested RSA credential data with signCount 37", () => {
    assert.ok(rsa !== undefined);
    const want = rsa["expected"];
    assert.ok(typeof want === "object" && want !== null);
    const got = parseAuthenticatorData(b64(rsa["authenticatorData"]));
    assert.equal(got.signCount, 37);
    assert.equal(got.flags.userPresent, true);
    assert.equal(got.flags.attestedCredentialData, true);
    assert.equal(hex(got.attestedCredentialData?.aaguid), "c87cdd9756c149b89e24cb363654f350");
    assert.equal(hex(got.attestedCredentialData?.credentialId), hex(b64(Reflect.get(want, "credentialId"))));
    assert.equal(hex(got.attestedCredentialData?.publicKey), hex(b64(Reflect.get(want, "credentialPublicKey"))));
  });
  it("parses an extensions map with signCount 141", () => {
    assert.ok(ext !== undefined);
    const want = ext["expected"];
    assert.ok(typeof want === "object" && want !== null);
    const got = parseAuthenticatorData(b64(ext["authenticatorData"]));
    assert.equal(got.signCount, 141);
    assert.equal(got.flags.extensionData, true);
    assert.equal(hex(got.extensions), hex(b64(Reflect.get(want, "extensionsCborB64u"))));
  });
  it("refuses Firefox 117's malformed EdDSA key: 62 leftover bytes", () => {
    assert.ok(firefox !== undefined);
    assert.throws(
      () => parseAuthenticatorData(b64(firefox["authenticatorData"])),
      (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA" && e.message.includes("62 leftover bytes"),
    );
  });
});
