import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { HashToken, NewToken, TOKEN_PATTERN } from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";

const B64URL43 = /^[A-Za-z0-9_-]{43}$/;

describe("TOKEN_PATTERN", () => {
  it("matches exactly NewToken's shape: 43 base64url characters", () => {
    assert.match(NewToken(), TOKEN_PATTERN);
    for (const bad of [
      "A".repeat(42),
      "A".repeat(44),
      `${"A".repeat(42)}=`,
      `${"A".repeat(42)}+`,
      `${"A".repeat(42)}/`,
      ` ${"A".repeat(42)}`,
    ]) {
      assert.doesNotMatch(bad, TOKEN_PATTERN, bad);
    }
  });
});

describe("NewToken()", () => {
  it("returns 32 random bytes as 43 base64url characters without padding", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const token = NewToken();
      assert.match(token, B64URL43);
      assert.equal(Buffer.from(token, "base64url").length, 32);
      seen.add(token);
    }
    assert.equal(seen.size, 200);
  });

  it("reads exactly 32 bytes from the injected RandomReader", () => {
    for (let i = 0; i < 20; i++) {
      const bytes = randomBytes(32);
      const asked: number[] = [];
      const token = NewToken({ read: (n) => (asked.push(n), bytes) });
      assert.deepEqual(asked, [32]);
      assert.equal(token, bytes.toString("base64url"));
    }
    assert.equal(NewToken({ read: (n) => new Uint8Array(n).fill(0xff) }), "_".repeat(42) + "8");
  });
});

describe("HashToken()", () => {
  it("is the SHA-256 of the token in base64url (node:crypto oracle)", () => {
    for (let i = 0; i < 100; i++) {
      const token = i % 2 === 0 ? NewToken() : randomBytes(i).toString("latin1");
      const want = createHash("sha256").update(token).digest("base64url");
      const got = HashToken(token);
      assert.equal(got, want);
      assert.match(got, B64URL43);
    }
    assert.equal(HashToken(""), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  });

  it("is re-exported by the sign-in module", () => {
    assert.equal(signin.NewToken, NewToken);
    assert.equal(signin.HashToken, HashToken);
  });
});
