/*
 * Whether an address has a claimed inbox at the provider: WebFinger (RFC 7033) as OIDC Discovery 1.0 §2
 * asks it, claimed when the JRD links the configured issuer; the caller reads any failure as "not claimed".
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

/** Asks the issuer's WebFinger whether `address` is claimed: a non-2xx or no issuer link is `false`; a failure throws `OIDCError`. */
export async function lookupWebFinger(issuer: string, address: string, signal: AbortSignal): Promise<boolean> {
  const res = await fetchJSON(webfingerURL(issuer, address), { signal, followRedirects: true });
  if (res.status < 200 || res.status > 299) return false;
  return hasIssuerLink(res.body, issuer);
}
