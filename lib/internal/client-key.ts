// Sign-in's rows written before issue 37 keyed by a copy that agreed on every address but odd spellings; a key that changed only starts its window afresh.
/**
 * The client a remote address counts for, the one key of every per-client
 * limit (connections, OAuth registrations, sign-in): an IPv4 address as it is (a

 * whole IPv4 network may be one carrier's NAT), an IPv4-mapped IPv6 address
 * as its IPv4 address, any other IPv6 address as its /64, the smallest
 * network one subscriber is given (RFC 6177 §3), within which an attacker
 * picks addresses at will. Takes the well-formed address the kernel reports.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!address.includes(":")) return address;
  const [head = "", tail] = (address.split("%")[0] ?? "").split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  // An embedded IPv4 address at the end stands for two groups.
  const width = (groups: string[]): number => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = [...left, ...new Array<string>(Math.max(0, 8 - width(left) - width(right))).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}
