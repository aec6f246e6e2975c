import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SEG_END, SEG_LITERAL, SEG_MULTI, SEG_WILD, parsePattern } from "../../lib/router/pattern.ts";
import { isRouterError } from "../../lib/router/errors.ts";

const L = SEG_LITERAL;
const W = SEG_WILD;
const M = SEG_MULTI;
const E = SEG_END;

describe("parsePattern()", () => {
  const valid: { input: string; method: string; host: string; segs: [number, string][]; names: string[] }[] = [
    { input: "/", method: "", host: "", segs: [[M, ""]], names: [] },
    { input: "/a", method: "", host: "", segs: [[L, "a"]], names: [] },
    {
      input: "/a/",
      method: "",
      host: "",
      segs: [
        [L, "a"],
        [M, ""],
      ],
      names: [],
    },
    {
      input: "GET /jobs/{id}",
      method: "GET",
      host: "",
      segs: [
        [L, "jobs"],
        [W, "id"],
      ],
      names: ["id"],
    },
    { input: "POST \t /x", method: "POST", host: "", segs: [[L, "x"]], names: [] },
    {
      input: "/files/{rest...}",
      method: "",
      host: "",
      segs: [
        [L, "files"],
        [M, "rest"],
      ],
      names: ["rest"],
    },
    {
      input: "/a/{$}",
      method: "",
      host: "",
      segs: [
        [L, "a"],
        [E, ""],
      ],
      names: [],
    },
    { input: "/{$}", method: "", host: "", segs: [[E, ""]], names: [] },
    { input: "Example.COM/x", method: "", host: "example.com", segs: [[L, "x"]], names: [] },
    {
      input: "GET example.com/{a}/{b}",
      method: "GET",
      host: "example.com",
      segs: [
        [W, "a"],
        [W, "b"],
      ],
      names: ["a", "b"],
    },
    {
      input: "/a%2Fb/c%20d",
      method: "",
      host: "",
      segs: [
        [L, "a/b"],
        [L, "c d"],
      ],
      names: [],
    },
    {
      input: "/{_x1}/{élan}",
      method: "",
      host: "",
      segs: [
        [W, "_x1"],
        [W, "élan"],
      ],
      names: ["_x1", "élan"],
    },
    { input: "M-SEARCH /x", method: "M-SEARCH", host: "", segs: [[L, "x"]], names: [] },
  ];
  for (const row of valid) {
    it(`parses ${JSON.stringify(row.input)}`, () => {
      const p = parsePattern(row.input);
      assert.equal(p.str, row.input);
      assert.equal(p.method, row.method);
      assert.equal(p.host, row.host);
      assert.deepEqual(
        p.segments.map((s) => [s.kind, s.value]),
        row.segs,
      );
      assert.deepEqual(p.names, row.names);
    });
  }

  const invalid: { input: string; want: string }[] = [
    { input: "", want: "empty pattern" },
    { input: "GET", want: "missing /" },
    { input: "example.com", want: "missing /" },
    { input: "G(T /x", want: "invalid method" },
    { input: "{x}/a", want: "host contains '{'" },
    { input: "/a//b", want: "unclean path" },
    { input: "/a/./b", want: "unclean path" },
    { input: "/a/..", want: "unclean path" },
    { input: "/a/x{b}", want: "must start with '{'" },
    { input: "/a/{b}x", want: "must end with '}'" },
    { input: "/a/{b", want: "must end with '}'" },
    { input: "/{$}/x", want: "{$} not at end" },
    { input: "/{a...}/x", want: "not at end" },
    { input: "/{}", want: "empty wildcard name" },
    { input: "/{...}", want: "empty wildcard name" },
    { input: "/{1a}", want: "bad wildcard name" },
    { input: "/{a-b}", want: "bad wildcard name" },
    { input: "/{a}/{a}", want: "duplicate wildcard name" },
    { input: "GET /a b", want: "whitespace" },
    { input: "get /jobs", want: 'methods are upper case: write "GET /jobs"' },
    { input: "Post /signin", want: 'methods are upper case: write "POST /signin"' },
    { input: "GET /jobs/:id", want: 'wildcards are written {name}: write "GET /jobs/{id}"' },
    { input: "/users/:user/posts/:post", want: 'write "/users/{user}/posts/{post}"' },
  ];
  for (const row of invalid) {
    it(`rejects ${JSON.stringify(row.input)} (${row.want})`, () => {
      assert.throws(
        () => parsePattern(row.input),
        (e: unknown) => {
          assert.ok(isRouterError(e));
          assert.equal(e.code, "ERR_ROUTER_INVALID_PATTERN");
          assert.ok(e.message.startsWith("parsePattern: "), e.message);
          assert.ok(e.message.includes(row.want), e.message);
          return true;
        },
      );
    });
  }
});

describe("parsePattern() with a literal that is not a valid escape", () => {
  it("keeps the literal as written, as Go's ServeMux does", () => {
    const p = parsePattern("GET /a%zz/b");
    assert.deepEqual(
      p.segments.map((s) => s.value),
      ["a%zz", "b"],
    );
  });
});
