/*
 * Reading one cookie from a Cookie header, pure. Only what the locale
 * cookie needs: find the first pair with the given name and unquote it.
 */

/** Returns the value of the first cookie named `name` in a Cookie header, or `undefined`. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  // RFC 6265 §5.4: the Cookie header is name=value pairs separated by "; ".
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    // RFC 6265 §4.1.1: a cookie-value may be wrapped in DQUOTEs.
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value;
  }
  return undefined;
}
