/*
 * Parses the SMTP server URL once, at construction, so configuration
 * mistakes fail at startup. Error messages never echo the URL: it may carry
 * the password.
 */
import { BlockList, isIP } from "node:net";
import { isHostname } from "./address.ts";
import { MailError } from "./errors.ts";

/** Where and how to reach an SMTP server. */
export interface SMTPEndpoint {
  /** "smtp" (STARTTLS upgrade) or "smtps" (implicit TLS, RFC 8314 §3.3). */
  scheme: "smtp" | "smtps";
  /** Host name or IP address, lower-cased, IPv6 without brackets. */
  host: string;
  /** TCP port. */
  port: number;
  /** Percent-decoded credentials, when the URL carries them. */
  credentials: { username: string; password: string } | undefined;
}

/** Default port of `smtp://` (message submission, RFC 6409 §3.1). */
export const DEFAULT_SMTP_PORT = 587;
/** Default port of `smtps://` (submission over implicit TLS, RFC 8314 §7.3). */
export const DEFAULT_SMTPS_PORT = 465;

function invalid(reason: string): MailError {
  return new MailError("ERR_MAIL_INVALID_URL", `mail: invalid SMTP URL: ${reason}`);
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch (e) {
    throw new MailError("ERR_MAIL_INVALID_URL", `mail: invalid SMTP URL: bad percent-encoding in ${what}`, { cause: e });
  }
}

/**
 * Parses `smtp://[user:pass@]host[:port]` or `smtps://...`. Throws
 * `ERR_MAIL_INVALID_URL` for another scheme, a missing or malformed host, a
 * path, query or fragment, half credentials or a NUL in them.
 */
export function parseSMTPURL(text: string): SMTPEndpoint {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid("not a URL");
  }
  const scheme = url.protocol === "smtp:" ? "smtp" : url.protocol === "smtps:" ? "smtps" : undefined;
  if (scheme === undefined) throw invalid("scheme must be smtp or smtps");
  if ((url.pathname !== "" && url.pathname !== "/") || url.search !== "" || url.hash !== "") {
    throw invalid("path, query and fragment are not allowed");
  }
  let host = url.hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (!(isHostname(host) || isIP(host) !== 0)) throw invalid("host must be a hostname or an IP address");
  const port = url.port === "" ? (scheme === "smtp" ? DEFAULT_SMTP_PORT : DEFAULT_SMTPS_PORT) : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid("port out of range");
  let credentials: SMTPEndpoint["credentials"];
  if (url.username !== "" || url.password !== "") {
    const username = decode(url.username, "username");
    const password = decode(url.password, "password");
    if (username === "" || password === "") throw invalid("both username and password are required");
    // RFC 4616 §2: NUL separates the PLAIN fields, so it cannot occur in them.
    if (username.includes("\0") || password.includes("\0")) throw invalid("credentials contain NUL");
    credentials = { username, password };
  }
  return { scheme, host, port, credentials };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Reports whether `host` is a loopback host: "localhost", 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  const family = isIP(h);
  return h === "localhost" || (family !== 0 && LOOPBACK.check(h, family === 4 ? "ipv4" : "ipv6"));
}
