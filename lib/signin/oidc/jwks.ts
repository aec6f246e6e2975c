/*
 * The provider's signing keys (RFC 7517 JWK Set at `jwks_uri`), cached and fetched again once for an
 * unknown key id (rotation, OIDC Core §10.1.1). That `kid` comes over the back channel, never from the
 * browser, so no one can make us refetch at will.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { ownField } from "../../internal/index.ts";
import { OIDCError } from "./errors.ts";
import { fetchJSON } from "./fetch-json.ts";
import { isKeyForAlgorithm, type JWSAlgorithm } from "./jwt.ts";

/** One imported verification key. */
export interface VerificationKey {
  kid: string | undefined;
  /** The JWK's `alg`, when it pins one. */
  alg: string | undefined;
  key: KeyObject;
}

const ED25519_FAMILY: ReadonlySet<string> = new Set(["EdDSA", "Ed25519"]);

function pick(jwk: object, name: string): string | undefined {
  const value = ownField(jwk, name);
  return typeof value === "string" ? value : undefined;
}

function publicMaterial(jwk: object): JsonWebKey | undefined {
  const [kty, crv, n, e, x, y] = ["kty", "crv", "n", "e", "x", "y"].map((name) => pick(jwk, name));
  if (kty === "RSA" && n !== undefined && e !== undefined) return { kty, n, e };
  if (kty === "EC" && crv === "P-256" && x !== undefined && y !== undefined) return { kty, crv, x, y };
  if (kty === "OKP" && crv === "Ed25519" && x !== undefined) return { kty, crv, x };
  return undefined;
}

/**
 * Imports one public signing JWK (RSA, P-256 or Ed25519, for signatures), else `undefined`. Only public
 * members are read, so a private JWK published by mistake is imported as its public half.
 */
export function importJWK(jwk: unknown): VerificationKey | undefined {
  if (typeof jwk !== "object" || jwk === null) return undefined;
  const use = pick(jwk, "use");
  // RFC 7517 §4.2: a key marked for encryption is not a signature key.
  if (use !== undefined && use !== "sig") return undefined;
  const ops = ownField(jwk, "key_ops");
  // RFC 7517 §4.3: when key_ops is present it must allow "verify".
  if (ops !== undefined && !(Array.isArray(ops) && ops.includes("verify"))) return undefined;
  const material = publicMaterial(jwk);
  if (material === undefined) return undefined;
  try {
    return { kid: pick(jwk, "kid"), alg: pick(jwk, "alg"), key: createPublicKey({ key: material, format: "jwk" }) };
  } catch {
    return undefined;
  }
}

/**
 * Imports every usable key of a JWK Set document; others are skipped.
 * Throws `OIDCError` `ERR_SIGNIN_OIDC_JWKS` when it is no JWK Set.
 */
export function parseJWKS(doc: unknown): VerificationKey[] {
  const keys = typeof doc === "object" && doc !== null ? ownField(doc, "keys") : undefined;
  if (!Array.isArray(keys)) throw new OIDCError("ERR_SIGNIN_OIDC_JWKS", "parse jwks: not a JWK Set");
  return keys.flatMap((jwk: unknown) => importJWK(jwk) ?? []);
}

function fits(key: VerificationKey, kid: string | undefined, alg: JWSAlgorithm): boolean {
  if (kid !== undefined && key.kid !== kid) return false;
  // RFC 7517 §4.4: a key that names its algorithm is used with that algorithm only.
  if (key.alg !== undefined && key.alg !== alg && !(ED25519_FAMILY.has(key.alg) && ED25519_FAMILY.has(alg))) {
    return false;
  }
  return isKeyForAlgorithm(key.key, alg);
}

/** The key set at one `jwks_uri`, fetched on first use and again once per unknown key id. */
export class KeySet {
  readonly #uri: URL;
  readonly #timeout: number;
  #keys: Promise<VerificationKey[]> | undefined;

  /** `timeout` is the deadline of one fetch, in ms. */
  constructor(uri: URL, timeout: number) {
    this.#uri = uri;
    this.#timeout = timeout;
  }

  /** The URI this set is fetched from. */
  get uri(): string {
    return this.#uri.href;
  }

  /**
   * Returns the keys that may verify a token with this `kid` and `alg`
   * (every key of the right type when `kid` is absent). Refetches the set
   * once when none fits. Throws `OIDCError` when the set cannot be fetched.
   */
  async candidates(kid: string | undefined, alg: JWSAlgorithm): Promise<KeyObject[]> {
    const cached = this.#keys;
    let found = (await this.#load()).filter((k) => fits(k, kid, alg));
    if (found.length === 0 && cached !== undefined) {
      if (this.#keys === cached) this.#keys = undefined;
      found = (await this.#load()).filter((k) => fits(k, kid, alg));
    }
    return found.map((k) => k.key);
  }

  #load(): Promise<VerificationKey[]> {
    if (this.#keys !== undefined) return this.#keys;
    const keys = this.#fetch();
    this.#keys = keys;
    keys.catch(() => {
      if (this.#keys === keys) this.#keys = undefined;
    });
    return keys;
  }

  async #fetch(): Promise<VerificationKey[]> {
    const res = await fetchJSON(this.#uri, { signal: AbortSignal.timeout(this.#timeout), followRedirects: true });
    if (res.status !== 200) throw new OIDCError("ERR_SIGNIN_OIDC_JWKS", `fetch jwks: status ${res.status}`);
    return parseJWKS(res.body);
  }
}
