/* Email addresses as people type them and servers deliver them; trimmed and lower-cased, the session subject. */

/** RFC 5321 §4.5.3.1.3: a path is at most 256 octets, so an address at most 254. */
export const MAX_ADDRESS_LENGTH: number = 254;

// Local part: dot-atom characters; domain: dot-separated labels of letters,
// digits and hyphens (IDNs arrive as punycode from the browser's email input),
// a top-level label of at least two letters, or the name "localhost".
const LOCAL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Returns the normalized address, or undefined when it is not a usable address. */
export function normalizeAddress(input: string): string | undefined {
  const address = input.trim().toLowerCase();
  if (address.length === 0 || address.length > MAX_ADDRESS_LENGTH) return undefined;
  const at = address.lastIndexOf("@");
  if (at <= 0 || at > 64) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (!LOCAL.test(local)) return undefined;
  const labels = domain.split(".");
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  if (labels.length === 1) return domain === "localhost" ? address : undefined;
  const tld = labels[labels.length - 1] ?? "";
  return /^([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld) ? address : undefined;
}
