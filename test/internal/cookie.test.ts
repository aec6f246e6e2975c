import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { LatchCookie, cookieName, parseCookies, readCookie, serializeCookie, type CookieAttributes } from "../../lib/internal/cookie.ts";

describe("parseCookies()", () => {
  it("parses a Cookie header into a Map", () => {
    const table: { input: string | undefined; want: [string, string][] }[] = [
      { input: undefined, want: [] },
      { input: "", want: [] },
      { input: "a=1", want: [["a", "1"]] },
      {
        input: "a=1; b=2",
        want: [
          ["a", "1"],
          ["b", "2"],
        ],
      },
      {
        input: "a=1;b=2",
        want: [
          ["a", "1"],
          ["b", "2"],
        ],
      },
      {
        input: "  a = 1 ;  b=2  ",
        want: [
          ["a", "1"],
          ["b", "2"],
        ],
      },
      { input: "a=1; a=2", want: [["a", "1"]] },
      { input: 'a="quoted"', want: [["a", "quoted"]] },
      { input: 'a="', want: [["a", '"']] },
      { input: "a=b=c", want: [["a", "b=c"]] },
      { input: "a=", want: [["a", ""]] },
      { input: "noequals; b=2", want: [["b", "2"]] },
      { input: "=nameless; b=2", want: [["b", "2"]] },
      {
        input: "__proto__=x; constructor=y",
        want: [
          ["__proto__", "x"],
          ["constructor", "y"],
        ],
      },
    ];
    for (const { input, want } of table) {
      const got = parseCookies(input);
      assert.ok(got instanceof Map);
      assert.deepEqual([...got], want, JSON.stringify(input));
    }
  });
});

describe("serializeCookie()", () => {
  it("writes the attributes in a fixed order", () => {
    const table: { name: string; value: string; attrs?: CookieAttributes; want: string }[] = [
      { name: "a", value: "1", want: "a=1" },
      { name: "a", value: "", attrs: { maxAge: 0 }, want: "a=; Max-Age=0" },
      { name: "a", value: "1", attrs: { maxAge: -5 }, want: "a=1; Max-Age=0" },
      { name: "a", value: "1", attrs: { maxAge: 2.9 }, want: "a=1; Max-Age=2" },
      {
        name: "s",
        value: "tok_-en",
        attrs: { maxAge: 60, path: "/", httpOnly: true, secure: true, sameSite: "Lax" },
        want: "s=tok_-en; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Lax",
      },
      { name: "s", value: "v", attrs: { httpOnly: false, secure: false, sameSite: "Strict" }, want: "s=v; SameSite=Strict" },
      { name: "__Host-s", value: "v", attrs: { secure: true, path: "/" }, want: "__Host-s=v; Path=/; Secure" },
      { name: "__Secure-s", value: "v", attrs: { secure: true, path: "/app" }, want: "__Secure-s=v; Path=/app; Secure" },
    ];
    for (const { name, value, attrs, want } of table) assert.equal(serializeCookie(name, value, attrs), want);
  });

  it("refuses names, values and paths that would split or inject attributes", () => {
    const table: { name: string; value: string; attrs?: CookieAttributes; message: RegExp }[] = [
      { name: "a\r\nSet-Cookie: b", value: "1", message: /invalid name/ },
      { name: "a;b", value: "1", message: /invalid name/ },
      { name: "a b", value: "1", message: /invalid name/ },
      { name: "", value: "1", message: /invalid name/ },
      { name: "a=b", value: "1", message: /invalid name/ },
      { name: "a", value: "1\r\nSet-Cookie: evil=1", message: /invalid value/ },
      { name: "a", value: "1\n", message: /invalid value/ },
      { name: "a", value: "1; Domain=evil.test", message: /invalid value/ },
      { name: "a", value: "1 2", message: /invalid value/ },
      { name: "a", value: "1,2", message: /invalid value/ },
      { name: "a", value: '"1"', message: /invalid value/ },
      { name: "a", value: "1\\2", message: /invalid value/ },
      { name: "a", value: "é", message: /invalid value/ },
      { name: "a", value: "1", attrs: { path: "/; Domain=evil.test" }, message: /invalid path/ },
      { name: "a", value: "1", attrs: { path: "/\r\nX: y" }, message: /invalid path/ },
      { name: "__Host-s", value: "v", attrs: { path: "/" }, message: /__Host-/ },
      { name: "__Host-s", value: "v", attrs: { secure: true }, message: /__Host-/ },
      { name: "__Host-s", value: "v", attrs: { secure: true, path: "/app" }, message: /__Host-/ },
      { name: "__Secure-s", value: "v", attrs: { path: "/" }, message: /__Secure-/ },
    ];
    for (const { name, value, attrs, message } of table) {
      assert.throws(
        () => serializeCookie(name, value, attrs),
        (err: unknown) => err instanceof TypeError && message.test(err.message) && err.message.startsWith("serialize cookie: "),
        JSON.stringify({ name, value, attrs }),
      );
    }
  });

  it("round-trips through parseCookies()", () => {
    const value = "AZaz09-_.~!#$%&'()*+/:<=>?@[]^`{|}";
    const line = serializeCookie("k", value, { path: "/" });
    assert.equal(parseCookies(line.split("; ")[0]).get("k"), value);
  });
});

describe("cookieName()", () => {
  it("prefixes __Host- and sets secure on https origins only", () => {
    assert.deepEqual(cookieName("framework_session", "https://example.test"), { name: "__Host-framework_session", secure: true });
    assert.deepEqual(cookieName("framework_session", "http://example.test"), { name: "framework_session", secure: false });
    assert.deepEqual(cookieName("framework_session", "http://localhost:8080"), { name: "framework_session", secure: false });
  });
});

describe("readCookie()", () => {
  it("answers as parseCookies(header).get(name) over random headers (oracle)", () => {
    const parts = [
      "a=1",
      " b=2",
      "a=3",
      "framework_session=tok",
      ' q="quoted"',
      "noeq",
      " =empty",
      "c=",
      "framework_session=second",
      "  spaced = v ",
    ];
    for (let i = 0; i < 2000; i++) {
      const n = 1 + (i % 6);
      const picked = Array.from({ length: n }, (_, k) => parts[(i * 7 + k * 13) % parts.length] ?? "");
      const header = picked.join(";");
      for (const name of ["a", "b", "framework_session", "q", "c", "spaced", "missing"]) {
        assert.equal(readCookie(header, name), parseCookies(header).get(name), `${JSON.stringify(header)} ${name}`);
      }
    }
  });
});

describe("LatchCookie", () => {
  // The one definition of a latch cookie's attributes: session, sign-in binding, pending passkey, pending OIDC blob.
  const rows = [
    {
      origin: "https://app.example",
      name: "__Host-framework_x",
      set: "__Host-framework_x=v; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Lax",
      clear: "__Host-framework_x=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax",
    },
    {
      origin: "https://app.example:8443",
      name: "__Host-framework_x",
      set: "__Host-framework_x=v; Max-Age=60; Path=/; HttpOnly; Secure; SameSite=Lax",
      clear: "__Host-framework_x=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax",
    },
    {
      origin: "http://localhost:8080",
      name: "framework_x",
      set: "framework_x=v; Max-Age=60; Path=/; HttpOnly; SameSite=Lax",
      clear: "framework_x=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
    },
  ];
  for (const { origin, name, set, clear } of rows) {
    it(`on ${origin} is ${name}, set and cleared with the same attributes`, () => {
      const cookie = new LatchCookie("framework_x", origin);
      assert.equal(cookie.name, name);
      assert.equal(cookie.set("v", 60.9), set);
      assert.equal(cookie.clear(), clear);
    });
  }

  it("reads its own name only, the first occurrence winning", () => {
    const cookie = new LatchCookie("framework_x", "https://app.example");
    assert.equal(cookie.read("framework_x=plain; __Host-framework_x=a; __Host-framework_x=b"), "a");
    assert.equal(cookie.read("framework_x=plain"), undefined);
    assert.equal(cookie.read(undefined), undefined);
  });
});
