/*
 * Client metadata (RFC 7591 §2), read from a registration request (§3.1) or a metadata document (CIMD §4.1, the same
 * fields); latch registers public clients only, which prove themselves with PKCE (README, Registration). Other fields
 * are ignored (RFC 7591 §2). A refusal names the field and the reason, never the client's own text (RFC 6749 §5.2
 * allows only printable ASCII without `"` and `\`; STYLE §6).
 */
import { ownField } from "../internal/index.ts";
import { OAuthError } from "./errors.ts";
import { redirectURIProblem } from "./redirect-uri.ts";

/** The longest `client_name` accepted, in characters (it is shown on the consent page). */
export const MAX_CLIENT_NAME_LENGTH: number = 100;

/**
 * The invisible formatting characters refused in `client_name`: General_Category Cf (the bidi controls of UAX #9 §2
 * among them) but ZWNJ and ZWJ, which scripts and emoji need and which reorder nothing (UAX #31 §2.3; README, Registration).
 */
export const INVISIBLE_FORMAT: RegExp = /(?![\u200c\u200d])\p{Cf}/u;

/** The grant types a client may register (OAuth 2.1: the code flow and refreshing its tokens). */
export const GRANT_TYPES: readonly string[] = ["authorization_code", "refresh_token"];

/** Client metadata as latch keeps it. */
export interface ClientFields {
  readonly redirectURIs: readonly string[];
  /** `client_name`, when the client gave one. */
  readonly clientName: string | undefined;
  readonly grantTypes: readonly string[];
}

/** The outcome of `parseClientFields`: the fields, or the RFC 7591 §3.2.2 error code and what is wrong. */
export type ClientFieldsResult =
  { ok: true; fields: ClientFields } | { ok: false; code: "invalid_redirect_uri" | "invalid_client_metadata"; reason: string };

/** Reads and checks the client metadata fields of `doc` (a parsed JSON value). */
export function parseClientFields(doc: unknown): ClientFieldsResult {
  const metadata = (reason: string): ClientFieldsResult => ({ ok: false, code: "invalid_client_metadata", reason });
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return metadata("the metadata must be a JSON object");
  const uris = ownField(doc, "redirect_uris");
  if (!Array.isArray(uris) || uris.length === 0) {
    return { ok: false, code: "invalid_redirect_uri", reason: "redirect_uris must be a non-empty array of URIs" };
  }
  const redirectURIs: string[] = [];
  for (const [i, uri] of uris.entries()) {
    if (typeof uri !== "string") return { ok: false, code: "invalid_redirect_uri", reason: "redirect_uris must hold strings" };
    const problem = redirectURIProblem(uri);
    // RFC 7591 §3.2.2 invalid_redirect_uri; CIMD §4.5 and RFC 9700 §4.1.1: redirect URIs are registered exactly.
    if (problem !== undefined) return { ok: false, code: "invalid_redirect_uri", reason: `redirect_uris[${i}] ${problem}` };
    redirectURIs.push(uri);
  }
  const method = ownField(doc, "token_endpoint_auth_method") ?? "none";
  // CIMD §4.1: no method based on a shared secret; latch registers public clients only (OAuth 2.1 §2.1).
  if (method !== "none") {
    return metadata(
      `token_endpoint_auth_method must be 'none': latch registers public clients, which prove themselves with PKCE, not a secret`,
    );
  }
  // CIMD §4.1: client_secret and client_secret_expires_at MUST NOT be used.
  if (Object.hasOwn(doc, "client_secret") || Object.hasOwn(doc, "client_secret_expires_at"))
    return metadata("a client secret has no place in public client metadata");
  const grantTypes = stringList(doc, "grant_types", ["authorization_code"]);
  if (grantTypes === undefined || !grantTypes.every((g) => GRANT_TYPES.includes(g)) || !grantTypes.includes("authorization_code")) {
    return metadata(`grant_types must hold 'authorization_code' and may hold 'refresh_token', nothing else`);
  }
  const responseTypes = stringList(doc, "response_types", ["code"]);
  // RFC 7591 §2.1: the authorization_code grant goes with the "code" response type, and latch has no other.
  if (responseTypes === undefined || !responseTypes.every((r) => r === "code")) return metadata(`response_types must be ['code']`);
  const name = ownField(doc, "client_name");
  if (name !== undefined) {
    if (typeof name !== "string" || name.trim() === "") return metadata("client_name must be a non-empty string");
    if ([...name].length > MAX_CLIENT_NAME_LENGTH) return metadata(`client_name must be at most ${MAX_CLIENT_NAME_LENGTH} characters`);
    // STYLE §10: text that reaches HTML and logs holds no control characters.
    if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name)) return metadata("client_name holds a control character");
    // UAX #9 §2, UTS #39 §3.1, OWASP ASVS 5.0 §2.2.1: the name is shown beside the host the person checks; nothing in it may reorder or hide text.
    if (INVISIBLE_FORMAT.test(name))
      return metadata("client_name holds an invisible formatting character (a bidi control, a zero-width or other format character)");
  }
  return { ok: true, fields: { redirectURIs, clientName: name, grantTypes: [...new Set(grantTypes)] } };
}

// A non-empty array of strings under `key`, `fallback` when absent, undefined when malformed.
function stringList(doc: object, key: string, fallback: string[]): string[] | undefined {
  const value = ownField(doc, key) ?? fallback;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const list: string[] = [];
  for (const item of value) {
    if (typeof item !== "string") return undefined;
    list.push(item);
  }
  return list;
}

/**
 * Reads a registration request's body (RFC 7591 §3.1) into client fields. Throws `OAuthError` `invalid_redirect_uri` or
 * `invalid_client_metadata` (400, RFC 7591 §3.2.2) naming the field and the reason.
 */
export function parseRegistration(body: unknown): ClientFields {
  const result = parseClientFields(body);
  if (!result.ok) throw new OAuthError(result.code, `register: ${result.reason}`);
  return result.fields;
}
