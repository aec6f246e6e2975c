/*
 * The pending blob: what the callback needs to finish a sign-in it did not
 * see start, sealed with a key derived from `InstanceKey` (SPEC.md §2.6)
 * and carried in a short-lived cookie. State, nonce and code verifier are
 * one-time values bound to this browser by the cookie; the address is the
 * one the user typed, which the ID token's verified email must equal.
 */
import { cryptoRandom, type RandomReader } from "../../http/index.ts";
import { NewToken } from "../../session/index.ts";
import { createCodeVerifier } from "./pkce.ts";

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

/** Creates a pending blob for `address` with fresh state, nonce and code verifier (32 random bytes each). */
export function createPending(address: string, random: RandomReader = cryptoRandom): PendingBlob {
  return { state: NewToken(random), nonce: NewToken(random), verifier: createCodeVerifier(random), address };
}

/** Narrows an opened blob's data to a `PendingBlob`; `undefined` when any field is missing or empty. */
export function parsePending(data: unknown): PendingBlob | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  if (!("state" in data) || !("nonce" in data) || !("verifier" in data) || !("address" in data)) return undefined;
  const { state, nonce, verifier, address } = data;
  if (typeof state !== "string" || typeof nonce !== "string" || typeof verifier !== "string") return undefined;
  if (typeof address !== "string" || state === "" || nonce === "" || verifier === "" || address === "") return undefined;
  return { state, nonce, verifier, address };
}
