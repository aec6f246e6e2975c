import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { computeCodeChallenge } from "../../lib/internal/index.ts";
import { createCodeVerifier } from "../../lib/signin/oidc/pending.ts";

describe("computeCodeChallenge()", () => {
  it("matches RFC 7636 Appendix B", () => {
    // RFC 7636 Appendix B: the verifier is base64url of the 32 octets listed there.
    const octets = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83,
      132, 141, 121,
    ];
    const verifier = createCodeVerifier({ read: () => Uint8Array.from(octets) });
    assert.equal(verifier, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    assert.equal(computeCodeChallenge(verifier), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });

  it("agrees with node:crypto over random verifiers", () => {
    for (let i = 0; i < 50; i++) {
      const verifier = createCodeVerifier();
      assert.match(verifier, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(computeCodeChallenge(verifier), createHash("sha256").update(verifier).digest("base64url"));
    }
  });
});
