/*
 * Which addresses latch may fetch a client's metadata document from (CIMD §6.5, MCP 2025-11-25 authorization,
 * "Authorization Server Abuse Protection"): none in a special-use range (RFC 6890, the IANA registries), named so the
 * refusal says why. IPv6 is taken by allow-list: only global unicast (2000::/3, RFC 4291 §2.4) is public, so a range
 * not named here is refused too. An IPv4-mapped address is judged as the IPv4 address it carries: the kernel connects there.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** A named special-use range. */
interface Range {
  name: string;
  family: "ipv4" | "ipv6";
  list: BlockList;
}

// Each range as its name and CIDR: RFC 6890 §2.2.2 and the IANA IPv4 Special-Purpose Address Registry, then RFC 6890
// §2.2.3 and the IANA IPv6 Special-Purpose Address Registry (named first; anything outside global unicast after).
const RANGES: readonly Range[] = [
  ["unspecified", "0.0.0.0/8"],
  ["private", "10.0.0.0/8"],
  ["shared (CGNAT)", "100.64.0.0/10"],
  ["loopback", "127.0.0.0/8"],
  ["link-local", "169.254.0.0/16"],
  ["private", "172.16.0.0/12"],
  ["IETF protocol assignment", "192.0.0.0/24"],
  ["documentation", "192.0.2.0/24"],
  ["6to4 relay", "192.88.99.0/24"],
  ["private", "192.168.0.0/16"],
  ["benchmarking", "198.18.0.0/15"],
  ["documentation", "198.51.100.0/24"],
  ["documentation", "203.0.113.0/24"],
  ["multicast", "224.0.0.0/4"],
  ["reserved", "240.0.0.0/4"],
  ["unspecified", "::/128"],
  ["loopback", "::1/128"],
  ["unique-local", "fc00::/7"],
  ["link-local", "fe80::/10"],
  ["multicast", "ff00::/8"],
  ["IETF protocol assignment", "2001::/23"],
  ["documentation", "2001:db8::/32"],
  ["6to4", "2002::/16"],
  ["documentation", "3fff::/20"],
].map(([name = "", cidr = ""]) => {
  const [network = "", prefix] = cidr.split("/");
  const family = isIPv4(network) ? "ipv4" : "ipv6";
  const list = new BlockList();
  list.addSubnet(network, Number(prefix), family);
  return { name, family, list };
});

const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");

/**
 * Returns the name of the special-use range `address` (an IP address as `node:dns` reports it) falls in ("private",
 * "loopback", "link-local", "unique-local", "shared (CGNAT)", "multicast", "unspecified"...), or `undefined` when it is
 * a public unicast address. Not an IP address at all: "not an IP address".
 */
export function specialUseRange(address: string): string | undefined {
  const v4 = isIPv4(address) ? address : mappedIPv4(address);
  if (v4 !== undefined) return RANGES.find((r) => r.family === "ipv4" && r.list.check(v4, "ipv4"))?.name;
  if (!isIPv6(address)) return "not an IP address";
  const named = RANGES.find((r) => r.family === "ipv6" && r.list.check(address, "ipv6"));
  if (named !== undefined) return named.name;
  return GLOBAL_UNICAST.check(address, "ipv6") ? undefined : "not global unicast";
}

/** Reports whether `address` is a loopback address (127.0.0.0/8, ::1, or 127/8 mapped into IPv6). */
export function isLoopbackAddress(address: string): boolean {
  return specialUseRange(address) === "loopback";
}

// The IPv4 address an IPv4-mapped IPv6 address (::ffff:0:0/96, RFC 4291
// §2.5.5.2) carries, in either spelling; undefined for any other address.
function mappedIPv4(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  // The URL parser writes an IPv6 address in its one canonical form (RFC 5952).
  const canonical = new URL(`http://[${address.split("%")[0] ?? ""}]/`).hostname.slice(1, -1);
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (hex?.[1] === undefined || hex[2] === undefined) return undefined;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}
