/*
 * The pending blob: what the callback needs to finish a sign-in it did not see start, sealed with a key
 * derived from `InstanceKey` (SPEC.md §2.6) and carried in the `framework_oidc` cookie (`LatchCookie`:
 * `__Host-` on https, HttpOnly, SameSite=Lax so it rides on the provider's redirect back). State, nonce
 * and code verifier are one-time values bound to this browser by the cookie; the address is the one the
 * user typed, which the ID token's verified email must equal.
 */
import { cryptoRandom, type RandomReader } from "../../http/index.ts";
import { ownField } from "../../internal/index.ts";
import { NewToken } from "../../session/index.ts";

/** The pending cookie's name before any prefix (docs/design.md §4: the framework's own name on the wire). */
export const OIDC_PENDING_COOKIE: string = "framework_oidc";

/** Lifetime of the pending blob and its cookie, in ms: 10 minutes to finish at the provider. */
export const PENDING_BLOB_TTL: number = 10 * 60 * 1000;

/** HKDF label deriving the pending blob's MAC key from `InstanceKey`; changing it voids blobs in flight. */
export const PENDING_SEAL_LABEL = "latch/signin/oidc pending-blob v1";

/** The contents of a pending blob. */
export interface PendingBlob {
  /** Sent as `state` (RFC 6749 §10.12, CSRF). */
  state: string;
  /** Sent as `nonce` and required in the ID token (OIDC Core §3.1.2.1). */
  nonce: string;
  /** The PKCE code verifier (RFC 7636 §4.1). */
  verifier: string;
  /** The address sign-in started with. */
  address: string;
}

/** Returns a new PKCE code verifier (RFC 7636 §4.1, S256 only): 32 random bytes as base64url, 43 unreserved characters. */
export function createCodeVerifier(random: RandomReader = cryptoRandom): string {
  return NewToken(random);
}

/** Creates a pending blob for `address` with fresh state, nonce and code verifier (32 random bytes each). */
export function createPending(address: string, random: RandomReader = cryptoRandom): PendingBlob {
  return { state: NewToken(random), nonce: NewToken(random), verifier: createCodeVerifier(random), address };
}

/** Narrows an opened blob's data to a `PendingBlob`; `undefined` when any field is missing or empty. */
export function parsePending(data: unknown): PendingBlob | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const [state, nonce, verifier, address] = ["state", "nonce", "verifier", "address"].map((name) => ownField(data, name));
  if (typeof state !== "string" || typeof nonce !== "string" || typeof verifier !== "string" || typeof address !== "string")
    return undefined;
  return state === "" || nonce === "" || verifier === "" || address === "" ? undefined : { state, nonce, verifier, address };
}
