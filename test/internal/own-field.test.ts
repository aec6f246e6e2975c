/*
 * Untrusted JSON is read by its own fields only (lib/internal ownField):
 * a field the prototype chain holds (`constructor`, or one a polluted
 * `Object.prototype` gained) is no field the sender wrote.
 */
import assert from "node:assert/strict";
import { describe, test, type TestContext } from "node:test";
import { ownField } from "../../lib/internal/index.ts";
import { verifyIDTokenClaims } from "../../lib/signin/oidc/id-token.ts";
import { parseClientData } from "../../lib/webauthn/client-data.ts";

/** Gives every object an inherited `name` for the rest of the test. */
function pollute(t: TestContext, name: string, value: unknown): void {
  Object.defineProperty(Object.prototype, name, { value, configurable: true, writable: true });
  t.after(() => delete (Object.prototype as Record<string, unknown>)[name]);
}

describe("ownField()", () => {
  test("reads an own field; an inherited one, `__proto__`'s contents included, reads as absent", (t) => {
    const doc: object = JSON.parse('{"a": 1, "__proto__": {"b": 2}}');
    assert.equal(ownField(doc, "a"), 1);
    assert.equal(ownField(doc, "b"), undefined);
    assert.deepEqual(ownField(doc, "__proto__"), { b: 2 }, "JSON's own __proto__ is a field like any other");
    assert.equal(ownField(doc, "constructor"), undefined);
    assert.equal(ownField(doc, "toString"), undefined);
    pollute(t, "c", 3);
    assert.equal(ownField(doc, "c"), undefined);
  });

  test("WebAuthn client data: an inherited topOrigin is no topOrigin (WebAuthn L3 §7.2 step 14)", (t) => {
    const bytes = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: "AAAA", origin: "https://example.org" }));
    pollute(t, "topOrigin", "https://evil.example");
    assert.equal(parseClientData(bytes, "authentication").topOrigin, undefined);
  });

  test("an ID token without a nonce claim is refused, whatever the prototype holds (OIDC Core §3.1.3.7)", (t) => {
    const now = new Date(1_700_000_000_000);
    const s = now.getTime() / 1000;
    const payload: object = JSON.parse(
      JSON.stringify({ iss: "https://id.example", aud: "https://app.example", exp: s + 60, iat: s, sub: "x", email: "x@example.com" }),
    );
    pollute(t, "nonce", "n-1");
    const result = verifyIDTokenClaims(payload, { issuer: "https://id.example", audience: "https://app.example", nonce: "n-1", now });
    assert.deepEqual(result, { ok: false, reason: "nonce" });
  });
});
