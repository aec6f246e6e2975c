import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { matchesRedirectURI, redirectHosts, redirectURIProblem } from "../../lib/oauth/redirect-uri.ts";
import { INVISIBLE_FORMAT, MAX_CLIENT_NAME_LENGTH, parseClientFields, parseRegistration } from "../../lib/oauth/registration.ts";

describe("redirectURIProblem()", () => {
  const accepted = [
    "https://app.example.com/callback",
    "https://app.example.com:8443/cb?x=1",
    "http://127.0.0.1:3000/callback",
    "http://127.0.0.1/callback",
    "http://[::1]:8080/cb",
    "http://localhost:6274/oauth/callback",
    "com.example.app:/oauth2redirect",
    "com.example.app:///cb",
    "http://127.0.0.1:1/callback",
    "http://localhost:65535/callback",
    "https://app.example.com:65535/cb",
  ];
  for (const uri of accepted) test(`accepts ${uri}`, () => assert.equal(redirectURIProblem(uri), undefined));

  const refused: { uri: string; want: RegExp }[] = [
    { uri: "http://app.example.com/callback", want: /http on a host that is not loopback/ },
    { uri: "http://10.0.0.1/callback", want: /http on a host that is not loopback/ },
    { uri: "https://app.example.com/cb#frag", want: /fragment/ },
    { uri: "https://user:pw@app.example.com/cb", want: /user name or password/ },
    { uri: "/callback", want: /not an absolute URI/ },
    { uri: "javascript:alert(1)", want: /neither https, loopback http nor a private-use scheme/ },
    { uri: "data:text/html,hi", want: /neither https/ },
    { uri: "file:///etc/passwd", want: /neither https/ },
    { uri: "myapp:/cb", want: /neither https/ },
    { uri: "https://app.example.com/cb\n", want: /control character/ },
    { uri: "https://app.example.com/a b", want: /space/ },
    // RFC 6335 §6: a port is 1-65535.
    { uri: "http://127.0.0.1:0/callback", want: /port outside 1-65535/ },
    { uri: "http://localhost:65536/callback", want: /port outside 1-65535/ },
    { uri: "http://[::1]:99999/callback", want: /port outside 1-65535/ },
    { uri: "https://app.example.com:0/cb", want: /port outside 1-65535/ },
    { uri: "https://app.example.com:123456/cb", want: /port outside 1-65535/ },
  ];
  for (const { uri, want } of refused) test(`refuses ${JSON.stringify(uri)}`, () => assert.match(redirectURIProblem(uri) ?? "", want));
});

describe("matchesRedirectURI()", () => {
  const declared = ["https://app.example.com/cb", "http://127.0.0.1:3000/callback", "http://localhost/cb?x=1", "com.example.app:/cb"];
  const rows: { uri: string; want: boolean }[] = [
    { uri: "https://app.example.com/cb", want: true },
    { uri: "https://app.example.com/cb/", want: false },
    { uri: "https://app.example.com/CB", want: false },
    { uri: "https://app.example.com:443/cb", want: false },
    { uri: "https://app.example.com/cb?x=1", want: false },
    { uri: "https://evil.example/cb", want: false },
    // RFC 8252 §7.3: a loopback redirect URI matches with any port.
    { uri: "http://127.0.0.1:51234/callback", want: true },
    { uri: "http://127.0.0.1/callback", want: true },
    { uri: "http://127.0.0.1:51234/other", want: false },
    { uri: "http://[::1]:51234/callback", want: false },
    { uri: "http://localhost:9999/cb?x=1", want: true },
    { uri: "http://localhost:9999/cb", want: false },
    { uri: "https://127.0.0.1:3000/callback", want: false },
    { uri: "com.example.app:/cb", want: true },
    { uri: "com.example.app:/cb2", want: false },
    // A loopback port is any of 1-65535, never beyond (RFC 6335 §6).
    { uri: "http://127.0.0.1:1/callback", want: true },
    { uri: "http://127.0.0.1:65535/callback", want: true },
    { uri: "http://127.0.0.1:0/callback", want: false },
    { uri: "http://127.0.0.1:65536/callback", want: false },
    { uri: "http://127.0.0.1:99999/callback", want: false },
  ];
  for (const { uri, want } of rows)
    test(`${uri} ${want ? "matches" : "does not match"}`, () => assert.equal(matchesRedirectURI(declared, uri), want));
});

describe("redirectHosts()", () => {
  test("shows localhost for loopback, the host for https, the scheme for a private-use URI, each once", () => {
    assert.equal(redirectHosts(["http://127.0.0.1:1/cb", "http://[::1]/cb", "http://localhost/cb"]), "localhost");
    assert.equal(redirectHosts(["https://app.example.com/a", "https://app.example.com/b"]), "app.example.com");
    assert.equal(redirectHosts(["com.example.app:/cb", "https://app.example.com/b"]), "com.example.app, app.example.com");
  });
});

describe("parseRegistration()", () => {
  test("reads the fields, taking token_endpoint_auth_method none and the code grant by default", () => {
    const fields = parseRegistration({ redirect_uris: ["http://127.0.0.1:3000/cb"], client_name: "Claude", scope: "ignored" });
    assert.deepEqual(fields, { redirectURIs: ["http://127.0.0.1:3000/cb"], clientName: "Claude", grantTypes: ["authorization_code"] });
    assert.deepEqual(
      parseRegistration({
        redirect_uris: ["https://a.example/cb"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }).grantTypes,
      ["authorization_code", "refresh_token"],
    );
  });

  test(`accepts a client_name of ${MAX_CLIENT_NAME_LENGTH} characters and refuses one more`, () => {
    assert.equal(MAX_CLIENT_NAME_LENGTH, 100);
    const base = { redirect_uris: ["https://a.example/cb"] };
    assert.equal(parseRegistration({ ...base, client_name: "é".repeat(100) }).clientName, "é".repeat(100));
    assert.throws(() => parseRegistration({ ...base, client_name: "é".repeat(101) }), /at most 100 characters/);
  });

  const refused: { name: string; body: unknown; code: string; message: RegExp }[] = [
    { name: "a body that is not an object", body: ["x"], code: "invalid_client_metadata", message: /JSON object/ },
    {
      name: "no redirect_uris",
      body: { client_name: "x" },
      code: "invalid_redirect_uri",
      message: /redirect_uris must be a non-empty array/,
    },
    { name: "empty redirect_uris", body: { redirect_uris: [] }, code: "invalid_redirect_uri", message: /non-empty/ },
    { name: "a redirect URI that is not a string", body: { redirect_uris: [1] }, code: "invalid_redirect_uri", message: /hold strings/ },
    {
      name: "an http redirect URI off loopback",
      body: { redirect_uris: ["http://app.example.com/cb"] },
      code: "invalid_redirect_uri",
      message: /redirect_uris\[0\] uses http on a host that is not loopback/,
    },
    {
      name: "a confidential client",
      body: { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" },
      code: "invalid_client_metadata",
      message: /token_endpoint_auth_method must be 'none'/,
    },
    {
      name: "private_key_jwt",
      body: { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "private_key_jwt" },
      code: "invalid_client_metadata",
      message: /token_endpoint_auth_method must be 'none'/,
    },
    {
      name: "the implicit grant",
      body: { redirect_uris: ["https://a.example/cb"], grant_types: ["implicit"] },
      code: "invalid_client_metadata",
      message: /grant_types must hold 'authorization_code'/,
    },
    {
      name: "client_credentials beside the code grant",
      body: { redirect_uris: ["https://a.example/cb"], grant_types: ["authorization_code", "client_credentials"] },
      code: "invalid_client_metadata",
      message: /grant_types/,
    },
    {
      name: "refresh_token alone",
      body: { redirect_uris: ["https://a.example/cb"], grant_types: ["refresh_token"] },
      code: "invalid_client_metadata",
      message: /grant_types/,
    },
    {
      name: "the token response type",
      body: { redirect_uris: ["https://a.example/cb"], response_types: ["token"] },
      code: "invalid_client_metadata",
      message: /response_types must be \['code'\]/,
    },
    {
      name: "a client secret",
      body: { redirect_uris: ["https://a.example/cb"], client_secret: "s" },
      code: "invalid_client_metadata",
      message: /client secret/,
    },
    {
      name: "an empty client_name",
      body: { redirect_uris: ["https://a.example/cb"], client_name: " " },
      code: "invalid_client_metadata",
      message: /client_name/,
    },
    {
      name: "a client_name with a line break",
      body: { redirect_uris: ["https://a.example/cb"], client_name: "a\nb" },
      code: "invalid_client_metadata",
      message: /control character/,
    },
  ];
  for (const row of refused) {
    test(`refuses ${row.name} with ${row.code}`, () => {
      assert.throws(
        () => parseRegistration(row.body),
        (e: unknown) => {
          assert.ok(e instanceof OAuthError);
          assert.equal(e.code, row.code);
          assert.equal(e.status, 400);
          assert.match(e.message, row.message);
          // RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E.
          assert.match(e.message, /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
          return true;
        },
      );
    });
  }
});

describe("client_name: no bidi control or other invisible formatting character (UAX #9 §2, UTS #39 §3.1)", () => {
  const base = { redirect_uris: ["https://a.example/cb"] };
  // UAX #9 §2's controls, then the other invisible format characters INVISIBLE_FORMAT names.
  const refused = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069].concat([
    0x200b, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x00ad, 0xe0001, 0xe0041,
  ]);
  for (const cp of refused) {
    const hex = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
    test(`refuses ${hex} with invalid_client_metadata naming client_name, for a registration and a document alike`, () => {
      const name = `Claude Desktop${String.fromCodePoint(cp)}`;
      assert.throws(
        () => parseRegistration({ ...base, client_name: name }),
        (e: unknown) => {
          assert.ok(e instanceof OAuthError);
          assert.equal(e.code, "invalid_client_metadata");
          assert.equal(
            e.message,
            "register: client_name holds an invisible formatting character (a bidi control, a zero-width or other format character)",
          );
          return true;
        },
      );
      const doc = parseClientFields({ ...base, client_name: name });
      assert.equal(
        doc.ok ? "accepted" : doc.reason,
        "client_name holds an invisible formatting character (a bidi control, a zero-width or other format character)",
      );
    });
  }

  test("accepts ZWNJ and ZWJ (Persian, Indic scripts, emoji sequences) and right-to-left letters", () => {
    for (const name of ["می\u200cخواهم", "क्\u200dष", "Agent \u{1F469}\u200d\u{1F4BB}", "مساعد", "עוזר Desktop"]) {
      assert.equal(INVISIBLE_FORMAT.test(name), false, name);
      assert.equal(parseRegistration({ ...base, client_name: name }).clientName, name);
    }
  });
});
