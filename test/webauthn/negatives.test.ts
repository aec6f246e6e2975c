/*
 * Negative cases derived from the W3C none-es256 vectors: each edit must be
 * refused with a typed PasskeyError at the named step, never an uncaught
 * exception of another kind.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  isPasskeyError,
  parseAuthenticationResponse,
  parseRegistrationResponse,
  verifyAuthentication,
  verifyRegistration,
} from "../../lib/webauthn/index.ts";
import { authenticationJSON, loadVectorFile, registrationJSON, text } from "../_support/passkey-vectors.ts";

const file = loadVectorFile("w3c-webauthn-l3.json");
const reg = file.vectors.find((v) => v.name === "w3c/none-es256/registration");
const auth = file.vectors.find((v) => v.name === "w3c/none-es256/authentication");
assert.ok(reg !== undefined && auth !== undefined);

const b64 = (s: string): Buffer => Buffer.from(s, "base64url");
const enc = (b: Uint8Array): string => Buffer.from(b).toString("base64url");
const ORIGIN = "https://example.org";

function regJSON(edit: (r: { clientDataJSON: string; attestationObject: string }) => void): unknown {
  const json = registrationJSON(reg!);
  assert.ok(typeof json === "object" && json !== null && "response" in json);
  const r = json.response;
  assert.ok(typeof r === "object" && r !== null);
  const response = { clientDataJSON: text(reg!.input, "clientDataJSON"), attestationObject: text(reg!.input, "attestationObject") };
  edit(response);
  Object.assign(r, response);
  return json;
}

function register(json: unknown, overrides: { challenge?: Uint8Array; rpID?: string } = {}): unknown {
  return verifyRegistration(parseRegistrationResponse(json), {
    challenge: overrides.challenge ?? b64(reg!.expected.challenge),
    origin: ORIGIN,
    rpID: overrides.rpID ?? "example.org",
    requireUserVerification: false,
  });
}

function authenticate(edit: (r: { clientDataJSON: string; authenticatorData: string; signature: string }) => void): unknown {
  const json = authenticationJSON(auth!);
  assert.ok(typeof json === "object" && json !== null && "response" in json);
  const r = json.response;
  assert.ok(typeof r === "object" && r !== null);
  const response = {
    clientDataJSON: text(auth!.input, "clientDataJSON"),
    authenticatorData: text(auth!.input, "authenticatorData"),
    signature: text(auth!.input, "signature"),
  };
  edit(response);
  Object.assign(r, response);
  const parsed = parseAuthenticationResponse(json);
  return verifyAuthentication(parsed, {
    challenge: b64(auth!.expected.challenge),
    origin: ORIGIN,
    rpID: "example.org",
    requireUserVerification: false,
    credential: {
      id: parsed.id,
      subject: "a@x",
      publicKey: b64(text(auth!.input, "credentialPublicKey")),
      signCount: 0,
      backupEligible: true,
    },
    expectedSubject: "a@x",
  });
}

function editBytes(s: string, f: (b: Buffer) => Buffer): string {
  return enc(f(Buffer.from(b64(s))));
}

function clientData(s: string, patch: Record<string, unknown>): string {
  return enc(Buffer.from(JSON.stringify({ ...JSON.parse(b64(s).toString("utf8")), ...patch })));
}

function fails(run: () => unknown, code: string, step: string): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(isPasskeyError(e), `not a PasskeyError: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(e.step.startsWith(step), `step ${e.step} does not start with ${step}`);
    return true;
  });
}

/** A CBOR array nested `depth` deep: 0x81 0x81 ... 0x00. */
function nested(depth: number): Buffer {
  return Buffer.concat([Buffer.alloc(depth, 0x81), Buffer.of(0)]);
}

describe("verifyAuthentication() derived negatives", () => {
  it("accepts the untouched vector", () => {
    assert.ok(authenticate(() => {}) !== undefined);
  });
  const rows: {
    name: string;
    edit: (r: { clientDataJSON: string; authenticatorData: string; signature: string }) => void;
    code: string;
    step: string;
  }[] = [
    {
      name: "flipped signature byte",
      edit: (r) => {
        r.signature = editBytes(r.signature, (b) => {
          b[10] = (b[10] ?? 0) ^ 1;
          return b;
        });
      },
      code: "ERR_PASSKEY_SIGNATURE",
      step: "7.2 step 21",
    },
    {
      name: "changed challenge",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { challenge: "AAAA" });
      },
      code: "ERR_PASSKEY_CHALLENGE",
      step: "7.2 step 11",
    },
    {
      name: "changed origin",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { origin: "https://example.org.evil" });
      },
      code: "ERR_PASSKEY_ORIGIN",
      step: "7.2 step 12",
    },
    {
      name: "crossOrigin true",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { crossOrigin: true });
      },
      code: "ERR_PASSKEY_CROSS_ORIGIN",
      step: "7.2 step 13",
    },
    {
      name: "changed type",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { type: "webauthn.create" });
      },
      code: "ERR_PASSKEY_TYPE",
      step: "7.2 step 10",
    },
    {
      name: "changed rpIdHash",
      edit: (r) => {
        r.authenticatorData = editBytes(r.authenticatorData, (b) => {
          b[0] = (b[0] ?? 0) ^ 1;
          return b;
        });
      },
      code: "ERR_PASSKEY_RP_ID_HASH",
      step: "7.2 step 15",
    },
    {
      name: "UP cleared",
      edit: (r) => {
        r.authenticatorData = editBytes(r.authenticatorData, (b) => {
          b[32] = (b[32] ?? 0) & ~0x01;
          return b;
        });
      },
      code: "ERR_PASSKEY_USER_PRESENCE",
      step: "7.2 step 16",
    },
    {
      name: "BS without BE",
      edit: (r) => {
        r.authenticatorData = editBytes(r.authenticatorData, (b) => {
          b[32] = ((b[32] ?? 0) & ~0x08) | 0x10;
          return b;
        });
      },
      code: "ERR_PASSKEY_BACKUP_FLAGS",
      step: "7.2 step 18",
    },
    {
      name: "trailing byte in authData",
      edit: (r) => {
        r.authenticatorData = editBytes(r.authenticatorData, (b) => Buffer.concat([b, Buffer.of(0)]));
      },
      code: "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA",
      step: "6.1",
    },
    {
      name: "authData truncated",
      edit: (r) => {
        r.authenticatorData = editBytes(r.authenticatorData, (b) => b.subarray(0, 36));
      },
      code: "ERR_PASSKEY_MALFORMED_AUTHENTICATOR_DATA",
      step: "6.1",
    },
    {
      name: "signature not base64url",
      edit: (r) => {
        r.signature = "@@@@";
      },
      code: "ERR_PASSKEY_MALFORMED_CREDENTIAL",
      step: "7.2 step 3",
    },
    {
      name: "clientDataJSON not JSON",
      edit: (r) => {
        r.clientDataJSON = enc(Buffer.from("{"));
      },
      code: "ERR_PASSKEY_MALFORMED_CLIENT_DATA",
      step: "7.2 step 9",
    },
    {
      name: "clientDataJSON not UTF-8",
      edit: (r) => {
        r.clientDataJSON = enc(Buffer.of(0xff, 0xfe, 0xfd));
      },
      code: "ERR_PASSKEY_MALFORMED_CLIENT_DATA",
      step: "7.2 step 8",
    },
    {
      name: "clientData challenge a number",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { challenge: 7 });
      },
      code: "ERR_PASSKEY_MALFORMED_CLIENT_DATA",
      step: "7.2 step 9",
    },
    {
      name: "clientDataJSON deeply nested",
      edit: (r) => {
        r.clientDataJSON = enc(Buffer.from("[".repeat(60000)));
      },
      code: "ERR_PASSKEY_MALFORMED_CLIENT_DATA",
      step: "7.2 step 9",
    },
    {
      name: "clientDataJSON over the size limit",
      edit: (r) => {
        r.clientDataJSON = "A".repeat(90000);
      },
      code: "ERR_PASSKEY_MALFORMED_CREDENTIAL",
      step: "7.2 step 3",
    },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} with ${row.code}`, () => fails(() => authenticate(row.edit), row.code, row.step));
  }

  it("refuses counter regression, wrong owner, missing user handle, other id, BE change, short challenge", () => {
    const parsed = parseAuthenticationResponse(authenticationJSON(auth!));
    const base = {
      challenge: b64(auth!.expected.challenge),
      origin: ORIGIN,
      rpID: "example.org",
      requireUserVerification: false,
      credential: {
        id: parsed.id,
        subject: "a@x",
        publicKey: b64(text(auth!.input, "credentialPublicKey")),
        signCount: 5,
        backupEligible: true,
      },
    };
    fails(() => verifyAuthentication(parsed, { ...base, expectedSubject: "a@x" }), "ERR_PASSKEY_SIGN_COUNT", "7.2 step 22");
    fails(() => verifyAuthentication(parsed, { ...base, expectedSubject: "b@x" }), "ERR_PASSKEY_CREDENTIAL_OWNER", "7.2 step 6");
    fails(() => verifyAuthentication(parsed, base), "ERR_PASSKEY_USER_HANDLE", "7.2 step 6");
    fails(
      () => verifyAuthentication(parsed, { ...base, credential: { ...base.credential, id: "AAAA" } }),
      "ERR_PASSKEY_CREDENTIAL_ID",
      "7.2 step 5",
    );
    fails(
      () =>
        verifyAuthentication(parsed, {
          ...base,
          expectedSubject: "a@x",
          credential: { ...base.credential, signCount: 0, backupEligible: false },
        }),
      "ERR_PASSKEY_BACKUP_FLAGS",
      "7.2 step 19",
    );
    fails(() => verifyAuthentication(parsed, { ...base, challenge: new Uint8Array(8) }), "ERR_PASSKEY_INVALID_OPTIONS", "13.4.3");
  });
});

describe("verifyRegistration() derived negatives", () => {
  it("accepts the untouched vector, storing the COSE key bytes exactly", () => {
    const cred = register(regJSON(() => {}));
    assert.ok(typeof cred === "object" && cred !== null && "publicKey" in cred && cred.publicKey instanceof Uint8Array);
    assert.ok(b64(text(reg!.input, "attestationObject")).includes(Buffer.from(cred.publicKey)));
  });
  it("refuses a wrong challenge and a wrong RP ID at their steps", () => {
    fails(
      () =>
        register(
          regJSON(() => {}),
          { challenge: new Uint8Array(32) },
        ),
      "ERR_PASSKEY_CHALLENGE",
      "7.1 step 8",
    );
    fails(
      () =>
        register(
          regJSON(() => {}),
          { rpID: "example.com" },
        ),
      "ERR_PASSKEY_RP_ID_HASH",
      "7.1 step 14",
    );
  });
  it("refuses a credential id already taken", () => {
    const response = parseRegistrationResponse(regJSON(() => {}));
    const expect = { challenge: b64(reg!.expected.challenge), origin: ORIGIN, rpID: "example.org", requireUserVerification: false };
    fails(
      () => verifyRegistration(response, { ...expect, isCredentialIDTaken: (id) => id === response.id }),
      "ERR_PASSKEY_CREDENTIAL_TAKEN",
      "7.1 step 26",
    );
  });
  const att = (f: (b: Buffer) => Buffer) => (r: { attestationObject: string }) => {
    r.attestationObject = editBytes(r.attestationObject, f);
  };
  const malformed: {
    name: string;
    edit: (r: { clientDataJSON: string; attestationObject: string }) => void;
    code: string;
    step: string;
  }[] = [
    {
      name: "truncated CBOR",
      edit: att((b) => b.subarray(0, b.length - 5)),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    {
      name: "trailing bytes after the CBOR",
      edit: att((b) => Buffer.concat([b, Buffer.of(0)])),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    { name: "deeply nested CBOR", edit: att(() => nested(10000)), code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT", step: "7.1 step 13" },
    {
      name: "huge declared byte-string length",
      edit: att(() => Buffer.of(0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    {
      name: "huge declared map size",
      edit: att(() => Buffer.of(0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    {
      name: "indefinite-length map",
      edit: att(() => Buffer.of(0xbf, 0xff)),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    { name: "a CBOR tag", edit: att(() => Buffer.of(0xc1, 0x00)), code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT", step: "7.1 step 13" },
    {
      name: "an array where a map belongs",
      edit: att(() => Buffer.of(0x80)),
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    {
      name: "empty attestationObject",
      edit: (r) => {
        r.attestationObject = "";
      },
      code: "ERR_PASSKEY_MALFORMED_ATTESTATION_OBJECT",
      step: "7.1 step 13",
    },
    {
      name: "bad base64url",
      edit: (r) => {
        r.attestationObject = "a";
      },
      code: "ERR_PASSKEY_MALFORMED_CREDENTIAL",
      step: "7.1 step 3",
    },
    {
      name: "clientData type webauthn.get",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { type: "webauthn.get" });
      },
      code: "ERR_PASSKEY_TYPE",
      step: "7.1 step 7",
    },
    {
      name: "changed origin",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { origin: "http://example.org" });
      },
      code: "ERR_PASSKEY_ORIGIN",
      step: "7.1 step 9",
    },
    {
      name: "topOrigin without cross-origin permission",
      edit: (r) => {
        r.clientDataJSON = clientData(r.clientDataJSON, { topOrigin: "https://a.example" });
      },
      code: "ERR_PASSKEY_CROSS_ORIGIN",
      step: "7.1 step 11",
    },
  ];
  for (const row of malformed) {
    it(`refuses ${row.name} with ${row.code}`, () => fails(() => register(regJSON(row.edit)), row.code, row.step));
  }
  it("refuses shapes that are not a credential", () => {
    for (const input of [null, 7, "x", [], {}, { type: "public-key" }, { type: "public-key", id: "AAAA", rawId: "AAAB", response: {} }]) {
      fails(() => parseRegistrationResponse(input), "ERR_PASSKEY_MALFORMED_CREDENTIAL", "7.1 step 3");
    }
  });
});
