import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLoopbackAddress, specialUseRange } from "../../lib/oauth/special-address.ts";

describe("specialUseRange()", () => {
  const rows: { address: string; want: string | undefined }[] = [
    { address: "93.184.215.14", want: undefined },
    { address: "8.8.8.8", want: undefined },
    { address: "2606:4700::6810:84e5", want: undefined },
    { address: "::ffff:8.8.8.8", want: undefined },
    { address: "0.0.0.0", want: "unspecified" },
    { address: "10.1.2.3", want: "private" },
    { address: "172.16.0.1", want: "private" },
    { address: "172.31.255.255", want: "private" },
    { address: "172.32.0.1", want: undefined },
    { address: "192.168.1.1", want: "private" },
    { address: "100.64.0.1", want: "shared (CGNAT)" },
    { address: "100.127.255.255", want: "shared (CGNAT)" },
    { address: "127.0.0.1", want: "loopback" },
    { address: "127.8.9.10", want: "loopback" },
    { address: "169.254.169.254", want: "link-local" },
    { address: "192.0.0.8", want: "IETF protocol assignment" },
    { address: "192.0.2.1", want: "documentation" },
    { address: "198.18.0.1", want: "benchmarking" },
    { address: "224.0.0.1", want: "multicast" },
    { address: "255.255.255.255", want: "reserved" },
    { address: "::", want: "unspecified" },
    { address: "::1", want: "loopback" },
    { address: "fd00::1", want: "unique-local" },
    { address: "fc12:3456::1", want: "unique-local" },
    { address: "fe80::1", want: "link-local" },
    { address: "fe80::1%eth0", want: "link-local" },
    { address: "ff02::1", want: "multicast" },
    { address: "2001:db8::1", want: "documentation" },
    { address: "2002:c000:0204::1", want: "6to4" },
    { address: "::ffff:127.0.0.1", want: "loopback" },
    { address: "::ffff:7f00:1", want: "loopback" },
    { address: "::ffff:10.0.0.1", want: "private" },
    { address: "::ffff:169.254.169.254", want: "link-local" },
    { address: "64:ff9b::a00:1", want: "not global unicast" },
    { address: "100::1", want: "not global unicast" },
    { address: "fec0::1", want: "not global unicast" },
    { address: "::127.0.0.1", want: "not global unicast" },
    { address: "localhost", want: "not an IP address" },
  ];
  for (const { address, want } of rows) {
    test(`${address} is ${want ?? "public"}`, () => {
      assert.equal(specialUseRange(address), want);
    });
  }

  test("isLoopbackAddress() holds for 127/8, ::1 and their IPv4-mapped forms only", () => {
    assert.deepEqual(["127.0.0.1", "127.255.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.1", "::", "8.8.8.8"].map(isLoopbackAddress), [
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
