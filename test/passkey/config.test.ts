/*
 * create(config) checks its config at construction (STYLE §5: config mistakes
 * fail at startup): Origin, every path that reaches Location, and the RP ID
 * against the Origin's host (WebAuthn L3 §5.1.4.1).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { applySchema, mergeSchemas, OpenDB, type DB } from "../../lib/db/index.ts";
import { create, Schema, type Config } from "../../lib/passkey/index.ts";
import { isPasskeyError } from "../../lib/webauthn/index.ts";
import * as session from "../../lib/session/index.ts";

function base(): Config {
  const db: DB = OpenDB(":memory:");
  applySchema(db, mergeSchemas(session.Schema, Schema));
  return {
    DB: db,
    Sessions: new session.Sessions(db, { Origin: "https://app.example.org" }),
    Origin: "https://app.example.org",
    ConfirmPath: "/confirm",
    SignedInPath: "/account",
    SigninPath: "/signin",
  };
}

describe("New()", () => {
  const refused: { name: string; patch: Partial<Config>; want: string }[] = [
    { name: "an Origin that is not a URL", patch: { Origin: "app.example.org" }, want: "Origin must be an http or https URL" },
    { name: "an empty Origin", patch: { Origin: "" }, want: "Origin must be an http or https URL" },
    { name: "an ftp Origin", patch: { Origin: "ftp://app.example.org" }, want: "http or https" },
    { name: "a javascript: Origin", patch: { Origin: "javascript:alert(1)" }, want: "http or https" },
    { name: "a protocol-relative ConfirmPath", patch: { ConfirmPath: "//evil.example/confirm" }, want: "ConfirmPath" },
    { name: "a backslash SignedInPath", patch: { SignedInPath: "/\\evil.example" }, want: "SignedInPath" },
    { name: "an absolute SigninPath", patch: { SigninPath: "https://evil.example/signin" }, want: "SigninPath" },
    { name: "a relative ManagePath", patch: { ManagePath: "account" }, want: "ManagePath" },
    { name: "an empty StalePath", patch: { StalePath: "" }, want: "StalePath" },
    { name: "a path with a tab", patch: { StalePath: "/\t/evil.example" }, want: "StalePath" },
    { name: "a path with CR LF", patch: { ConfirmPath: "/x\r\nSet-Cookie: a=b" }, want: "ConfirmPath" },
    { name: "an RPID of another site", patch: { RPID: "evil.example" }, want: "RPID" },
    { name: "an RPID that is only a string suffix", patch: { RPID: "ple.org" }, want: "RPID" },
    { name: "an RPID below the host", patch: { RPID: "x.app.example.org" }, want: "RPID" },
    { name: "an empty RPID", patch: { RPID: "" }, want: "RPID" },
    { name: "a zero FreshFor", patch: { FreshFor: 0 }, want: "FreshFor" },
    { name: "a NaN FreshFor", patch: { FreshFor: Number.NaN }, want: "FreshFor" },
  ];
  for (const { name, patch, want } of refused) {
    it(`refuses ${name} with ERR_PASSKEY_INVALID_CONFIG`, () => {
      assert.throws(
        () => create({ ...base(), ...patch }),
        (e: unknown) =>
          isPasskeyError(e) &&
          e.code === "ERR_PASSKEY_INVALID_CONFIG" &&
          e.message.startsWith("passkey config: ") &&
          e.message.includes(want),
      );
    });
  }

  const accepted: { name: string; patch: Partial<Config> }[] = [
    { name: "the defaults (RPID = host)", patch: {} },
    { name: "an RPID equal to the host", patch: { RPID: "app.example.org" } },
    { name: "an RPID that is a parent domain", patch: { RPID: "example.org" } },
    { name: "http://localhost with a port", patch: { Origin: "http://localhost:8080", RPID: "localhost" } },
    { name: "paths with queries and encoded slashes", patch: { ManagePath: "/account?tab=keys", StalePath: "/step%2Fup" } },
  ];
  for (const { name, patch } of accepted) {
    it(`accepts ${name}`, () => {
      assert.doesNotThrow(() => create({ ...base(), ...patch }));
    });
  }
});
