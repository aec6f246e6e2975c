/*
 * Redirect URIs: which a client may declare (https, loopback http, a private-use scheme: RFC 8252 §7), how a requested
 * one is matched (exactly, RFC 9700 §4.1.1; a loopback one with any port, RFC 8252 §7.3), and which host the person is
 * shown (README, "Redirect URIs").
 */

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "[::1]", "localhost"]);

// RFC 8252 §7.1: a private-use scheme holds a period (a domain name reversed).
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

// A loopback redirect URI split around its port: scheme and host, the port's digits, then path and query.
const LOOPBACK_URI = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::(\d{1,5}))?([/?].*)?$/;

// The digits of an explicit port in a URI with an authority (`scheme://host:port`), whatever their value.
const EXPLICIT_PORT = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/i;

// The ports a redirect URI may name: 1-65535 (RFC 6335 §6; port 0 is reserved, and no URL has a larger one).
const PORT_RANGE = { Min: 1, Max: 65535 } as const;

// Whether `digits` (a port as written) is within PORT_RANGE.
const portInRange = (digits: string): boolean => Number(digits) >= PORT_RANGE.Min && Number(digits) <= PORT_RANGE.Max;

/** Reports what is wrong with `uri` as a redirect URI a client declares, or `undefined` when it may be declared. */
export function redirectURIProblem(uri: string): string | undefined {
  // STYLE §10: no controls or spaces; a URL parser would drop some silently, and exact matching needs the bytes.
  if (/[\u0000-\u0020\u007f]/.test(uri)) return "holds a space or a control character";
  const port = EXPLICIT_PORT.exec(uri)?.[1];
  // RFC 6335 §6: ports are 1-65535; a redirect to another fails only after the grant would be made.
  if (port !== undefined && !portInRange(port)) return `has a port outside ${PORT_RANGE.Min}-${PORT_RANGE.Max}`;
  const url = URL.parse(uri);
  if (url === null) return "is not an absolute URI";
  // RFC 6749 §3.1.2: the redirection endpoint URI MUST NOT include a fragment.
  if (uri.includes("#")) return "has a fragment";
  if (url.username !== "" || url.password !== "") return "carries a user name or password";
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return url.hostname === "" ? "has no host" : undefined;
  if (scheme === "http") {
    // MCP 2025-11-25 authorization, "Communication Security": redirect URIs are localhost or https.
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : "uses http on a host that is not loopback (use https)";
  }
  // RFC 8252 §7.1 private-use scheme; RFC 8252 §8.4 keeps such URIs away from web schemes.
  return PRIVATE_USE_SCHEME.test(scheme)
    ? undefined
    : "uses a scheme that is neither https, loopback http nor a private-use scheme (com.example.app:)";
}

/**
 * Reports whether `uri` is one of `declared`: the same string, or, for a
 * loopback http URI, the same string but for the port (RFC 8252 §7.3).
 */
export function matchesRedirectURI(declared: readonly string[], uri: string): boolean {
  if (declared.includes(uri)) return true;
  const wanted = portless(uri);
  return wanted !== undefined && declared.some((d) => portless(d) === wanted);
}

// A loopback http URI without its port, or undefined for any other (one whose port is outside PORT_RANGE included).
function portless(uri: string): string | undefined {
  const m = LOOPBACK_URI.exec(uri);
  if (m === null || (m[2] !== undefined && !portInRange(m[2]))) return undefined;
  return `http://${m[1] ?? ""}${m[3] ?? ""}`;
}

/**
 * Returns the host the person is shown for a redirect URI: "localhost" for
 * a loopback one, the host name for https, the scheme for a private-use one.
 */
export function redirectHost(uri: string): string {
  const url = URL.parse(uri);
  if (url === null) return uri;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return "localhost";
  if (url.protocol === "https:") return url.hostname;
  return url.protocol.slice(0, -1);
}

/** Returns the hosts of `uris` (`redirectHost`), each once, joined by ", ". */
export function redirectHosts(uris: readonly string[]): string {
  return [...new Set(uris.map(redirectHost))].join(", ");
}
