import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { MAX_CBOR_DEPTH } from "../../lib/webauthn/cbor.ts";
import { decodeBase64url, encodeBase64url } from "../../lib/webauthn/base64url.ts";
import { isPasskeyError } from "../../lib/webauthn/index.ts";
import { parseCOSEKey } from "../../lib/webauthn/cose.ts";

describe("encodeBase64url() / decodeBase64url()", () => {
  it("agrees with Buffer on random inputs, padded or not", () => {
    for (let n = 0; n < 200; n++) {
      const bytes = new Uint8Array(randomBytes(n % 67));
      const text = encodeBase64url(bytes);
      assert.equal(text, Buffer.from(bytes).toString("base64url"));
      assert.deepEqual(decodeBase64url(text, 100), bytes);
      const padded = text + "=".repeat((4 - (text.length % 4)) % 4);
      assert.deepEqual(decodeBase64url(padded, 100), bytes);
    }
  });
  it("refuses characters Buffer would skip, bad padding and oversize input", () => {
    for (const bad of ["ab+c", "ab/c", "a b", "abc=d", "a", "abcde", "ab=", "abc==", "=", "ab\n"]) {
      assert.equal(decodeBase64url(bad, 100), undefined, bad);
    }
    assert.equal(decodeBase64url("AAAAAAAA", 5), undefined);
    assert.ok(decodeBase64url("AAAAAAAA", 6) !== undefined);
  });
});

describe("parseCOSEKey()", () => {
  const malformed = (bytes: number[]): void => {
    assert.throws(
      () => parseCOSEKey(Uint8Array.from(bytes), "t"),
      (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_MALFORMED_PUBLIC_KEY" && e.step === "t",
    );
  };
  it("refuses non-maps, missing alg, wrong kty and off-curve points", () => {
    malformed([0x80]);
    malformed([0xa1, 0x01, 0x02]);
    malformed([0xa2, 0x01, 0x03, 0x03, 0x26]);
    const x = Array(32).fill(1);
    malformed([0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20, ...x, 0x22, 0x58, 0x20, ...x]);
  });
  it(`refuses nesting beyond MAX_CBOR_DEPTH (${MAX_CBOR_DEPTH})`, () => {
    malformed([...Array(MAX_CBOR_DEPTH + 1).fill(0x81), 0x00]);
  });
  it("reports an unsupported algorithm as ERR_PASSKEY_ALGORITHM", () => {
    assert.throws(
      () => parseCOSEKey(Uint8Array.of(0xa2, 0x01, 0x03, 0x03, 0x39, 0xff, 0xfe), "t"),
      (e: unknown) => isPasskeyError(e) && e.code === "ERR_PASSKEY_ALGORITHM",
    );
  });
});
