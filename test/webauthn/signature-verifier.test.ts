import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { IN_THREAD_PER_SECOND, MAX_VERIFY_WORKERS } from "../../lib/webauthn/signature-verifier.ts";
import { parseCOSEKey } from "../../lib/webauthn/cose.ts";
import {
  SignatureVerifier,
  verifyAuthentication,
  verifyAuthenticationWith,
  type AuthenticationExpectations,
  type AuthenticationResponse,
} from "../../lib/webauthn/index.ts";
import { verifySignature } from "../../lib/webauthn/signature.ts";
import { authenticationCase, loadVectorFile } from "../_support/passkey-vectors.ts";

const VECTORS = ["w3c/none-es256/authentication", "w3c/packed-eddsa/authentication"];

function load(name: string): { response: AuthenticationResponse; expect: AuthenticationExpectations; publicKey: Buffer } {
  const v = loadVectorFile("w3c-webauthn-l3.json").vectors.find((x) => x.name === name);
  assert.ok(v !== undefined, name);
  const { response, expect, publicKey } = authenticationCase(v, "s");
  return { response, expect, publicKey };
}

/** Runs `fn` and returns its result or the error's code and step. */
async function outcome(fn: () => unknown): Promise<unknown> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { code?: string; step?: string };
    return { code: e.code, step: e.step };
  }
}

describe("SignatureVerifier", () => {
  test("defaults: 10 checks a second on the event loop, at most 2 worker threads", () => {
    assert.equal(IN_THREAD_PER_SECOND, 10);
    assert.equal(MAX_VERIFY_WORKERS, 2);
  });

  test("through the worker pool, valid and invalid signatures get the in-thread answers", async (t) => {
    const pool = new SignatureVerifier({ inThreadPerSecond: 0, workers: 2 });
    t.after(() => pool.close());
    for (const name of VECTORS) {
      const { response, publicKey } = load(name);
      const key = parseCOSEKey(publicKey, "test");
      const signed = Buffer.concat([response.authenticatorDataBytes, createHash("sha256").update(response.clientDataJSON).digest()]);
      const flipped = Buffer.from(response.signature);
      flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
      const otherData = Buffer.from(signed);
      otherData[0] = (otherData[0] ?? 0) ^ 1;
      const cases: [Uint8Array, Uint8Array][] = [
        [signed, response.signature],
        [signed, flipped],
        [otherData, response.signature],
        [signed, new Uint8Array(0)],
      ];
      const want = cases.map(([data, sig]) => verifySignature(key, data, sig));
      assert.deepEqual(want, [true, false, false, false], name);
      assert.deepEqual(await Promise.all(cases.map(([data, sig]) => pool.verify(key, data, sig))), want, name);
    }
    assert.equal(pool.threads, 2, "the checks ran on worker threads");
  });

  test("verifyAuthenticationWith() accepts and refuses exactly what verifyAuthentication() does, through the pool", async (t) => {
    const pool = new SignatureVerifier({ inThreadPerSecond: 0, workers: 1 });
    t.after(() => pool.close());
    for (const name of VECTORS) {
      const { response, expect } = load(name);
      const flipped = Buffer.from(response.signature);
      flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
      const bad = { ...response, signature: flipped };
      const counted = { ...expect, credential: { ...expect.credential, signCount: 2 ** 31 } };
      for (const [r, e] of [
        [response, expect],
        [bad, expect],
        [response, counted],
      ] as const) {
        assert.deepEqual(await outcome(() => verifyAuthenticationWith(pool, r, e)), await outcome(() => verifyAuthentication(r, e)), name);
      }
      assert.deepEqual(await outcome(() => verifyAuthenticationWith(pool, bad, expect)), {
        code: "ERR_PASSKEY_SIGNATURE",
        step: "7.2 step 21: signature",
      });
    }
    assert.equal(pool.threads, 1);
  });

  test("workers: 0 keeps every check on the event loop", async () => {
    const inThread = new SignatureVerifier({ inThreadPerSecond: 0, workers: 0 });
    const { response, expect } = load(VECTORS[0] ?? "");
    assert.equal((await verifyAuthenticationWith(inThread, response, expect)).newSignCount, response.authenticatorData.signCount);
    assert.equal(inThread.threads, 0);
  });

  test("after close(), checks run on the event loop with the same answers", async () => {
    const pool = new SignatureVerifier({ inThreadPerSecond: 0, workers: 1 });
    const { response, expect } = load(VECTORS[1] ?? "");
    await verifyAuthenticationWith(pool, response, expect);
    await pool.close();
    assert.equal(pool.threads, 0);
    assert.equal((await verifyAuthenticationWith(pool, response, expect)).userVerified, response.authenticatorData.flags.userVerified);
  });
});
