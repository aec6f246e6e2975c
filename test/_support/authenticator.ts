/*
 * A software WebAuthn authenticator on node:crypto, for HTTP-level tests of
 * the passkey routes. It answers begin options (the JSON the server sends)
 * with credentials in the JSON shape of PublicKeyCredential.toJSON():
 *
 *   registration: clientDataJSON {type, challenge, origin, crossOrigin} and
 *     an attestationObject {fmt "none", attStmt {}, authData}, authData =
 *     rpIdHash | flags (UP, UV, AT, optional BE/BS) | counter | aaguid |
 *     credIdLen | credId | COSE_Key (cbor-x Map with integer keys);
 *   assertion: authenticatorData | SHA-256(clientDataJSON) signed with the
 *     credential's key (DER for ES256, raw for Ed25519), with a counter and
 *     userHandle the test controls.
 *
 * Nothing here checks anything: tests bend the output to probe the server.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { Encoder } from "cbor-x";

/** Key types the authenticator can make. */
export type SoftAlgorithm = "ES256" | "Ed25519";

/** Options of `newAuthenticator`. */
export interface AuthenticatorOptions {
  /** The page origin put in clientDataJSON. */
  origin: string;
  /** The RP ID hashed into authenticator data. @default the origin's hostname */
  rpID?: string;
  /** @default "ES256" */
  algorithm?: SoftAlgorithm;
  /** Set the BE flag (and BS with it). @default false */
  backedUp?: boolean;
}

/** Per-assertion overrides. */
export interface AssertOptions {
  /** Counter to put in authenticator data. @default the previous one plus one */
  counter?: number;
  /** userHandle (base64url) to return; null omits it. @default the handle given at registration */
  userHandle?: string | null;
  /** Replaces the challenge taken from the options. */
  challenge?: string;
  /** Replaces the origin in clientDataJSON. */
  origin?: string;
}

/** One credential held by the authenticator. */
export interface SoftCredential {
  /** Credential id, base64url. */
  id: string;
  algorithm: SoftAlgorithm;
  privateKey: KeyObject;
  /** The user.id the credential was created for, base64url. */
  userHandle: string;
  /** The last counter used. */
  counter: number;
}

/** A registration or assertion response in PublicKeyCredential.toJSON() shape. */
export interface CredentialJSON {
  id: string;
  rawId: string;
  type: "public-key";
  authenticatorAttachment: "platform";
  clientExtensionResults: Record<string, never>;
  response: Record<string, string | string[]>;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

// cbor-x tags Maps (tag 259) unless maps are not decoded as objects; CTAP2 canonical CBOR has no tags.
const cbor = new Encoder({ mapsAsObjects: false });
const encode = (value: unknown): Buffer => cbor.encode(value);

const b64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url");

function field(obj: unknown, name: string): unknown {
  return typeof obj === "object" && obj !== null && name in obj ? Reflect.get(obj, name) : undefined;
}

function stringField(obj: unknown, name: string): string {
  const value = field(obj, name);
  if (typeof value !== "string") throw new Error(`soft authenticator: options have no string ${name}`);
  return value;
}

function coseKey(algorithm: SoftAlgorithm, publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: "jwk" });
  const x = Buffer.from(jwk.x ?? "", "base64url");
  // RFC 9053 §7.1 (EC2: kty 2, crv 1 = P-256) and §7.2 (OKP: kty 1, crv 6 = Ed25519).
  if (algorithm === "ES256") {
    const y = Buffer.from(jwk.y ?? "", "base64url");
    return encode(
      new Map<number, number | Buffer>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, x],
        [-3, y],
      ]),
    );
  }
  return encode(
    new Map<number, number | Buffer>([
      [1, 1],
      [3, -8],
      [-1, 6],
      [-2, x],
    ]),
  );
}

function counterBytes(counter: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(counter);
  return out;
}

/** A software authenticator; see the file header. */
export class SoftAuthenticator {
  readonly origin: string;
  readonly rpID: string;
  readonly algorithm: SoftAlgorithm;
  readonly #flags: number;
  /** Credentials made so far, by id. */
  readonly credentials: Map<string, SoftCredential> = new Map();

  constructor(options: AuthenticatorOptions) {
    this.origin = options.origin;
    this.rpID = options.rpID ?? new URL(options.origin).hostname;
    this.algorithm = options.algorithm ?? "ES256";
    this.#flags = FLAG_UP | FLAG_UV | (options.backedUp === true ? FLAG_BE | FLAG_BS : 0);
  }

  #rpIdHash(): Buffer {
    return createHash("sha256").update(this.rpID).digest();
  }

  #clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Answers creation options JSON (from a register begin route) with a new credential. */
  register(options: unknown): CredentialJSON {
    const challenge = stringField(options, "challenge");
    const userHandle = stringField(field(options, "user"), "id");
    const { publicKey, privateKey } =
      this.algorithm === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519");
    const credentialID = randomBytes(16);
    const id = b64url(credentialID);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialID.length);
    const authData = Buffer.concat([
      this.#rpIdHash(),
      Buffer.of(this.#flags | FLAG_AT),
      counterBytes(0),
      Buffer.alloc(16),
      idLength,
      credentialID,
      coseKey(this.algorithm, publicKey),
    ]);
    const attestationObject = encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    this.credentials.set(id, { id, algorithm: this.algorithm, privateKey, userHandle, counter: 0 });
    return {
      id,
      rawId: id,
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(this.#clientData("webauthn.create", challenge, this.origin)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** Answers request options JSON with an assertion by credential `id` (default: the first one made). */
  assert(options: unknown, id?: string, overrides: AssertOptions = {}): CredentialJSON {
    const credential = id === undefined ? this.credentials.values().next().value : this.credentials.get(id);
    if (credential === undefined) throw new Error("soft authenticator: no such credential");
    credential.counter = overrides.counter ?? credential.counter + 1;
    const challenge = overrides.challenge ?? stringField(options, "challenge");
    const clientDataJSON = this.#clientData("webauthn.get", challenge, overrides.origin ?? this.origin);
    const authenticatorData = Buffer.concat([this.#rpIdHash(), Buffer.of(this.#flags), counterBytes(credential.counter)]);
    const signed = Buffer.concat([authenticatorData, createHash("sha256").update(clientDataJSON).digest()]);
    // WebAuthn L3 §6.3.3 step 11: ES256 signs DER-encoded; Ed25519 takes the message whole.
    const signature = sign(credential.algorithm === "ES256" ? "sha256" : null, signed, credential.privateKey);
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: "public-key",
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(userHandle !== null && { userHandle }),
      },
    };
  }
}

/** Creates a software authenticator for `options.origin`. */
export function newAuthenticator(options: AuthenticatorOptions): SoftAuthenticator {
  return new SoftAuthenticator(options);
}
