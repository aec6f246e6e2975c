/*
 * Whether an address has a claimed inbox at the provider, asked with
 * WebFinger (RFC 7033) as OpenID Connect Discovery 1.0 §2 does for issuer
 * discovery: GET <issuer origin>/.well-known/webfinger?resource=acct:<address>
 * &rel=http://openid.net/specs/connect/1.0/issuer. The address is claimed
 * when the JRD links the configured issuer. The caller reads every failure
 * as "not claimed": sign-in never waits on, or breaks because of, the provider.
 */
import { ownField } from "../../internal/index.ts";
import { normalizeIssuer } from "./discovery.ts";
import { fetchJSON } from "./fetch-json.ts";

/** The link relation naming an OpenID Connect issuer (OIDC Discovery §2). */
export const ISSUER_REL = "http://openid.net/specs/connect/1.0/issuer";

/** Returns the WebFinger query URL for `address` at the issuer's origin. */
export function webfingerURL(issuer: string, address: string): URL {
  const url = new URL("/.well-known/webfinger", new URL(issuer).origin);
  url.searchParams.set("resource", `acct:${address}`);
  url.searchParams.set("rel", ISSUER_REL);
  return url;
}

/**
 * Reports whether a JRD (RFC 7033 §4.4) links `issuer` with the issuer
 * relation. Malformed documents and links are ignored, never thrown on.
 */
export function hasIssuerLink(jrd: unknown, issuer: string): boolean {
  const links = typeof jrd === "object" && jrd !== null ? ownField(jrd, "links") : undefined;
  if (!Array.isArray(links)) return false;
  const want = normalizeIssuer(issuer);
  return links.some((link: unknown) => {
    if (typeof link !== "object" || link === null || ownField(link, "rel") !== ISSUER_REL) return false;
    const href = ownField(link, "href");
    return typeof href === "string" && normalizeIssuer(href) === want;
  });
}

/**
 * Asks the issuer's WebFinger endpoint whether `address` is claimed there.
 * A non-2xx status or a JRD without the issuer link is `false`; a network
 * failure, an abort of `signal` or a body that is not JSON throws
 * `OIDCError`, which `InboxProvider.isClaimed` logs and reads as `false`.
 */
export async function lookupWebFinger(issuer: string, address: string, signal: AbortSignal): Promise<boolean> {
  const res = await fetchJSON(webfingerURL(issuer, address), { signal, followRedirects: true });
  if (res.status < 200 || res.status > 299) return false;
  return hasIssuerLink(res.body, issuer);
}
