import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { clientKey } from "../../lib/internal/index.ts";

describe("clientKey()", () => {
  test("an IPv4 address is its own client; an IPv4-mapped IPv6 address is that IPv4 client", () => {
    assert.equal(clientKey("203.0.113.7"), "203.0.113.7");
    assert.equal(clientKey("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(clientKey("::FFFF:127.0.0.1"), "127.0.0.1");
    assert.notEqual(clientKey("203.0.113.7"), clientKey("203.0.113.8"));
  });

  test("IPv6 addresses are grouped by their /64", () => {
    assert.equal(clientKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:db8:1:2::1"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:0db8:0001:0002:0:0:0:ffff"), "2001:db8:1:2::/64");
    assert.equal(clientKey("2001:db8::1"), "2001:db8:0:0::/64");
    assert.equal(clientKey("2001:db8:0:0:1::"), "2001:db8:0:0::/64");
    assert.equal(clientKey("::1"), "0:0:0:0::/64");
    assert.equal(clientKey("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(clientKey("64:ff9b::198.51.100.1"), "64:ff9b:0:0::/64");
    assert.equal(clientKey("2001:db8:1:2:3:4:198.51.100.1"), "2001:db8:1:2::/64");
    assert.notEqual(clientKey("2001:db8:1:2::1"), clientKey("2001:db8:1:3::1"));
  });

  // Sign-in's per-client limit keys by clientKey too (it had its own copy, clientBucket, until issue 37): its rows.
  const rows: { ip: string; want: string }[] = [
    { ip: "203.0.113.7", want: "203.0.113.7" },
    { ip: "::ffff:203.0.113.7", want: "203.0.113.7" },
    { ip: "2001:db8:1:2:3:4:5:6", want: "2001:db8:1:2::/64" },
    { ip: "2001:db8:1:2::7", want: "2001:db8:1:2::/64" },
    { ip: "2001:0DB8:0001:0002:ffff::", want: "2001:db8:1:2::/64" },
    { ip: "2001:db8::", want: "2001:db8:0:0::/64" },
    { ip: "fe80::1%eth0", want: "fe80:0:0:0::/64" },
  ];
  for (const { ip, want } of rows) test(`puts ${ip} in ${want}`, () => assert.equal(clientKey(ip), want));
});
