import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_ADDRESS_LENGTH, normalizeAddress } from "../../lib/signin/address.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";

const BAD_ADDRESSES: { name: string; input: string }[] = [
  { name: "empty", input: "" },
  { name: "blank", input: "   " },
  { name: "no @", input: "ann.example.com" },
  { name: "no domain", input: "ann@" },
  { name: "no local part", input: "@example.com" },
  { name: "single-label domain", input: "ann@example" },
  { name: "two @", input: "ann@@example.com" },
  { name: "space in local part", input: "ann smith@example.com" },
  { name: "space in domain", input: "ann@exa mple.com" },
  { name: "CRLF header injection", input: "ann@example.com\r\nBcc: eve@evil.test" },
  { name: "LF inside", input: "ann\n@example.com" },
  { name: "CR inside", input: "ann@example.com\rx" },
  { name: "NUL", input: "ann\u0000@example.com" },
  { name: "angle address", input: "Ann <ann@example.com>" },
  { name: "comma list", input: "ann@example.com,eve@evil.test" },
  { name: "300 characters", input: `${"a".repeat(60)}@${"b".repeat(234)}.com` },
  { name: "local part over 64", input: `${"a".repeat(65)}@example.com` },
  { name: "label starting with a hyphen", input: "ann@-example.com" },
  { name: "empty label", input: "ann@example..com" },
  { name: "leading dot", input: ".ann@example.com" },
  { name: "numeric top-level label", input: "ann@example.123" },
  { name: "non-ASCII domain", input: "ann@exämple.com" },
];

describe("normalizeAddress()", () => {
  it("trims and lower-cases a usable address", () => {
    const table = [
      { input: " Ann@Example.COM ", want: "ann@example.com" },
      { input: "\tann.b+tag@mail.example.co.uk\n", want: "ann.b+tag@mail.example.co.uk" },
      { input: "root@localhost", want: "root@localhost" },
      { input: "ann@xn--exmple-cua.com", want: "ann@xn--exmple-cua.com" },
    ];
    for (const { input, want } of table) assert.equal(normalizeAddress(input), want, JSON.stringify(input));
  });

  it("refuses what is not an address", () => {
    for (const { name, input } of BAD_ADDRESSES) assert.equal(normalizeAddress(input), undefined, name);
  });

  it("accepts exactly MAX_ADDRESS_LENGTH (254) characters", () => {
    assert.equal(MAX_ADDRESS_LENGTH, 254);
    const domain = `${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com`;
    const fits = `${"a".repeat(254 - domain.length - 1)}@${domain}`;
    assert.equal(fits.length, 254);
    assert.equal(normalizeAddress(fits), fits);
    assert.equal(normalizeAddress(`a${fits}`), undefined);
  });
});

describe("Signin Begin()", () => {
  it("redirects to ?err=address for malformed addresses and sends nothing", async (t) => {
    const app = await startSigninApp(t);
    for (const { name, input } of BAD_ADDRESSES) {
      const res = await app.begin(input);
      assert.equal(res.status, 303, name);
      assert.equal(res.location, "/signin?err=address", name);
    }
    const missing = await app.request("POST", "/signin", { form: { mail: "ann@example.com" } });
    assert.equal(missing.location, "/signin?err=address");
    assert.equal(app.smtp?.messages.length, 0);
    assert.equal(count(app.db, "signin_links"), 0);
    assert.equal(count(app.db, "signin_rate_events"), 0, "a refused address is not counted");
  });

  it("does not reveal an Authorize refusal: ?sent=1 at Begin, ?err=address at Verify", async (t) => {
    const asked: string[] = [];
    const app = await startSigninApp(t, {
      config: {
        Authorize: async (address) => {
          asked.push(address);
          return address.endsWith("@example.com");
        },
      },
    });
    const refused = await app.begin(" Eve@Evil.TEST ");
    const admitted = await app.begin("ann@example.com");
    assert.equal(refused.status, admitted.status);
    assert.equal(refused.location, "/signin?sent=1");
    assert.equal(admitted.location, "/signin?sent=1");
    assert.deepEqual(asked, [], "Authorize is asked only for a verified address");
    assert.equal(app.smtp?.messages.length, 2);

    const denied = await app.request("GET", await app.linkFor("eve@evil.test"));
    assert.equal(denied.status, 303);
    assert.equal(denied.location, "/signin?err=address");
    assert.deepEqual(denied.setCookie, []);
    assert.equal(count(app.db, "sessions"), 0);
    assert.equal(count(app.db, "signin_links", "address = ?", "eve@evil.test"), 0, "the refused link is spent");

    const ok = await app.request("GET", await app.linkFor("ann@example.com"));
    assert.equal(ok.location, "/account");
    assert.deepEqual(asked, ["eve@evil.test", "ann@example.com"]);
    assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com"), 1);
  });

  it("answers 415 to a body that is not a urlencoded form", async (t) => {
    const app = await startSigninApp(t);
    const bodies = [
      { type: "application/json", body: JSON.stringify({ email: "ann@example.com" }) },
      { type: "text/plain", body: "email=ann@example.com" },
      {
        type: "multipart/form-data; boundary=x",
        body: '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\nann@example.com\r\n--x--\r\n',
      },
    ];
    for (const { type, body } of bodies) {
      const res = await app.request("POST", "/signin", { headers: { "Content-Type": type }, body });
      assert.equal(res.status, 415, type);
    }
    assert.equal((await app.request("POST", "/signin", { body: "email=ann@example.com" })).status, 415, "no Content-Type");
    assert.equal(app.smtp?.messages.length, 0);
    assert.equal(app.log.lines().filter((l) => l["level"] === "error").length, 0, "no 500 was logged");
  });

  it("answers 413 to an oversize form, declared or streamed", async (t) => {
    const app = await startSigninApp(t);
    const huge = `email=ann%40example.com&pad=${"x".repeat(70 * 1024)}`;
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const declared = await app.request("POST", "/signin", { headers: form, body: huge });
    assert.equal(declared.status, 413);
    const streamed = await app.request("POST", "/signin", { headers: { ...form, "Transfer-Encoding": "chunked" }, body: huge });
    assert.equal(streamed.status, 413);
    assert.equal(app.smtp?.messages.length, 0);
    assert.equal(count(app.db, "signin_links"), 0);
    assert.equal(app.log.lines().filter((l) => l["level"] === "error").length, 0, "no 500 was logged");
  });
});
