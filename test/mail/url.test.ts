import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isLoopbackHost, parseSMTPURL } from "../../lib/mail/url.ts";
import { isAuthAllowed, isPlaintextAllowed } from "../../lib/mail/policy.ts";

describe("parseSMTPURL()", () => {
  const ok = [
    { input: "smtp://mail.example.com", want: { scheme: "smtp", host: "mail.example.com", port: 587, credentials: undefined } },
    { input: "smtps://Mail.Example.com", want: { scheme: "smtps", host: "mail.example.com", port: 465, credentials: undefined } },
    { input: "smtp://127.0.0.1:2525/", want: { scheme: "smtp", host: "127.0.0.1", port: 2525, credentials: undefined } },
    { input: "smtp://[::1]:25", want: { scheme: "smtp", host: "::1", port: 25, credentials: undefined } },
    {
      input: "smtps://app%40example.com:p%3Ass%2Fw%20rd@smtp.example.com",
      want: { scheme: "smtps", host: "smtp.example.com", port: 465, credentials: { username: "app@example.com", password: "p:ss/w rd" } },
    },
  ];
  for (const { input, want } of ok) it(`parses ${input}`, () => assert.deepEqual(parseSMTPURL(input), want));

  const bad = [
    { input: "not a url", msg: "not a URL" },
    { input: "http://user:hunter2@mail.example.com", msg: "scheme" },
    { input: "smtp://user:hunter2@mail.example.com/path", msg: "path" },
    { input: "smtp://user:hunter2@mail.example.com?x=1", msg: "query" },
    { input: "smtp://user@mail.example.com", msg: "both username and password" },
    { input: "smtp://:hunter2@mail.example.com", msg: "both username and password" },
    { input: "smtp://user:hunter2%ZZ@mail.example.com", msg: "percent-encoding" },
    { input: "smtp://user:hunter2%00@mail.example.com", msg: "NUL" },
    { input: "smtp://user:hunter2@mail_example.com", msg: "host" },
    { input: "smtp://user:hunter2@", msg: "not a URL" },
    { input: "smtp://user:hunter2@/", msg: "not a URL|host" },
    { input: "smtp://user:hunter2@mail.example.com:0", msg: "port" },
  ];
  for (const { input, msg } of bad) {
    it(`refuses ${input.replace("hunter2", "***")} without echoing the password`, () => {
      assert.throws(
        () => parseSMTPURL(input),
        (e: unknown) => {
          assert.ok(e instanceof Error && "code" in e);
          assert.equal(e.code, "ERR_MAIL_INVALID_URL");
          assert.match(e.message, new RegExp(msg));
          assert.doesNotMatch(e.message, /hunter2/);
          return true;
        },
      );
    });
  }
});

describe("isLoopbackHost()", () => {
  const rows = [
    { host: "localhost", want: true },
    { host: "LOCALHOST", want: true },
    { host: "127.0.0.1", want: true },
    { host: "127.255.0.9", want: true },
    { host: "::1", want: true },
    { host: "0:0:0:0:0:0:0:1", want: true },
    { host: "128.0.0.1", want: false },
    { host: "10.0.0.1", want: false },
    { host: "localhost.example.com", want: false },
    { host: "mail.example.com", want: false },
    { host: "::2", want: false },
  ];
  for (const { host, want } of rows) it(`reports ${want} for ${host}`, () => assert.equal(isLoopbackHost(host), want));
});

describe("isPlaintextAllowed()", () => {
  it("allows plaintext only on loopback or by explicit opt-in", () => {
    assert.equal(isPlaintextAllowed("127.0.0.1", false), true);
    assert.equal(isPlaintextAllowed("mail.example.com", false), false);
    assert.equal(isPlaintextAllowed("mail.example.com", true), true);
  });
});

describe("isAuthAllowed()", () => {
  it("sends credentials in the clear only to loopback", () => {
    assert.equal(isAuthAllowed("mail.example.com", true), true);
    assert.equal(isAuthAllowed("mail.example.com", false), false);
    assert.equal(isAuthAllowed("localhost", false), true);
  });
});
