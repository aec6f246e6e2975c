/* When may the client speak in the clear? RFC 8314 §3 asks for TLS on submission: only on loopback, or by explicit opt-in. */
import { isLoopbackHost } from "./url.ts";

/** Reports whether a session to `host` may continue unencrypted when the server offers no STARTTLS. */
export function isPlaintextAllowed(host: string, allowPlaintext: boolean): boolean {
  return allowPlaintext || isLoopbackHost(host);
}

/** Reports whether credentials may go to `host`: never in plaintext off loopback, `allowPlaintext` or not (RFC 4954 §4). */
export function isAuthAllowed(host: string, secure: boolean): boolean {
  return secure || isLoopbackHost(host);
}
