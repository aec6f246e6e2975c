import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { applySchema, mergeSchemas, OpenDB, type DB } from "../../lib/db/index.ts";
import { LatchError } from "../../lib/http/index.ts";
import * as session from "../../lib/session/index.ts";
import { DEFAULT_IDLE_TIMEOUT } from "../../lib/session/store.ts";
import { ErrEmptyInstanceKey, create, Schema, isSigninError, type Config } from "../../lib/signin/index.ts";
import { MIN_INSTANCE_KEY_BYTES, SIGNIN_ERROR_CODES, SigninError } from "../../lib/signin/errors.ts";

function openDB(t: TestContext): DB {
  const db = OpenDB(":memory:");
  t.after(() => db.close());
  applySchema(db, mergeSchemas(session.Schema, Schema));
  return db;
}

function config(db: DB, overrides: Partial<Config> = {}): Config {
  return {
    DB: db,
    Origin: "https://example.test",
    InstanceKey: "k".repeat(32),
    SigninPath: "/signin",
    SignedInPath: "/account",
    ...overrides,
  };
}

describe("SIGNIN_ERROR_CODES", () => {
  it("has 2 codes, each equal to its key", () => {
    assert.equal(Object.keys(SIGNIN_ERROR_CODES).length, 2);
    for (const [key, value] of Object.entries(SIGNIN_ERROR_CODES)) assert.equal(key, value);
  });
});

describe("New()", () => {
  it("refuses an empty InstanceKey with ErrEmptyInstanceKey", (t) => {
    const db = openDB(t);
    assert.throws(
      () => create(config(db, { InstanceKey: "" })),
      (err: unknown) => {
        assert.ok(err instanceof ErrEmptyInstanceKey);
        assert.ok(err instanceof SigninError);
        assert.ok(err instanceof LatchError);
        assert.equal(err.code, "ERR_SIGNIN_EMPTY_INSTANCE_KEY");
        assert.equal(err.name, "ErrEmptyInstanceKey");
        assert.match(err.message, /^signin: InstanceKey must not be empty; generate one with `openssl rand -base64 32`/);
        assert.ok(err.message.includes("randomBytes(32).toString('base64')"), err.message);
        assert.ok(isSigninError(err));
        return true;
      },
    );
  });

  it(`refuses an InstanceKey under MIN_INSTANCE_KEY_BYTES (${MIN_INSTANCE_KEY_BYTES}) bytes and says how to make one`, (t) => {
    assert.equal(MIN_INSTANCE_KEY_BYTES, 32);
    const db = openDB(t);
    for (const key of ["k", "k".repeat(31), "é".repeat(15)]) {
      assert.throws(
        () => create(config(db, { InstanceKey: key })),
        (err: unknown) => {
          assert.ok(isSigninError(err) && !(err instanceof ErrEmptyInstanceKey));
          assert.equal(err.code, "ERR_SIGNIN_INVALID_CONFIG");
          const bytes = Buffer.byteLength(key);
          assert.match(
            err.message,
            new RegExp(
              `^signin: InstanceKey must carry at least 32 bytes \\(it has ${bytes}\\); generate one with \`openssl rand -base64 32\``,
            ),
          );
          return true;
        },
        JSON.stringify(key),
      );
    }
    assert.doesNotThrow(() => create(config(db, { InstanceKey: "k".repeat(32) })));
    assert.doesNotThrow(() => create(config(db, { InstanceKey: "é".repeat(16) })), "bytes, not characters");
  });

  it("refuses an Origin that is not an http(s) origin", (t) => {
    const db = openDB(t);
    for (const origin of [
      "",
      "example.test",
      "not a url",
      "https://",
      "localhost:8080",
      "javascript:alert(1)",
      "file:///srv/app",
      "ftp://example.test",
      "data:text/plain,x",
    ]) {
      assert.throws(
        () => create(config(db, { Origin: origin })),
        (err: unknown) => isSigninError(err) && err.code === "ERR_SIGNIN_INVALID_CONFIG" && !(err instanceof ErrEmptyInstanceKey),
        JSON.stringify(origin),
      );
    }
  });

  it("accepts http and https origins and names the cookie after the scheme", (t) => {
    const db = openDB(t);
    const table = [
      { origin: "http://localhost:8080", cookie: "framework_session" },
      { origin: "http://127.0.0.1:3000/", cookie: "framework_session" },
      { origin: "https://example.test", cookie: "__Host-framework_session" },
      { origin: "HTTPS://Example.TEST:443", cookie: "__Host-framework_session" },
    ];
    for (const { origin, cookie } of table) assert.equal(create(config(db, { Origin: origin })).SessionCookie(), cookie, origin);
  });

  it("refuses SigninPath and SignedInPath that are not local paths", (t) => {
    const db = openDB(t);
    for (const bad of [
      { SigninPath: "signin" },
      { SigninPath: "//evil.test/signin" },
      { SignedInPath: "https://evil.test/" },
      { SignedInPath: "" },
    ]) {
      assert.throws(
        () => create(config(db, bad)),
        (err: unknown) => isSigninError(err) && err.code === "ERR_SIGNIN_INVALID_CONFIG",
        JSON.stringify(bad),
      );
    }
  });

  it("refuses StalePath and SessionsPath that are not local paths, naming the field", (t) => {
    const db = openDB(t);
    for (const [name, bad] of [
      ["StalePath", "//evil.test/"],
      ["StalePath", "https://evil.test/"],
      ["SessionsPath", "//evil.test"],
      ["SessionsPath", "/\\evil.test"],
    ] as const) {
      assert.throws(
        () => create(config(db, { [name]: bad })),
        (err: unknown) => isSigninError(err) && err.code === "ERR_SIGNIN_INVALID_CONFIG" && err.message.startsWith(`signin: ${name} `),
        `${name} ${bad}`,
      );
    }
    create(config(db, { StalePath: "/signin/again", SessionsPath: "/account/sessions" }));
  });

  it("refuses LinkTTL, SessionTTL and IdleTimeout that are not whole positive milliseconds, naming the field", (t) => {
    const db = openDB(t);
    for (const name of ["LinkTTL", "SessionTTL", "IdleTimeout"] as const) {
      for (const bad of [0, -1, 1.5, NaN, Infinity]) {
        assert.throws(
          () => create(config(db, { [name]: bad })),
          (err: unknown) => isSigninError(err) && err.code === "ERR_SIGNIN_INVALID_CONFIG" && err.message.startsWith(`signin: ${name} `),
          `${name} ${bad}`,
        );
      }
    }
    // A link outliving Node's longest timer is a mistake; a 30-day session (the default) is not.
    assert.throws(
      () => create(config(db, { LinkTTL: 2 ** 31 })),
      (err: unknown) => isSigninError(err) && /LinkTTL/.test(err.message),
    );
    create(config(db, { LinkTTL: 60_000, SessionTTL: session.DefaultSessionTTL, IdleTimeout: DEFAULT_IDLE_TIMEOUT }));
  });

  it("isSigninError() tells sign-in errors by code", () => {
    assert.equal(isSigninError(new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: x")), true);
    assert.equal(isSigninError(new Error("x")), false);
    assert.equal(isSigninError(Object.assign(new Error("x"), { code: "ERR_MAIL_ABORTED" })), false);
  });
});
