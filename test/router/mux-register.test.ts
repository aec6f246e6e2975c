import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Mux } from "../../lib/router/index.ts";
import { isRouterError, type RouterError } from "../../lib/router/errors.ts";
import type { HandlerFunc } from "../../lib/http/index.ts";

const noop: HandlerFunc = () => undefined;
const FILE = "mux-register.test.js:";

function conflictOf(first: string, second: string): RouterError {
  const mux = new Mux();
  mux.Handle(first, noop);
  try {
    mux.Handle(second, noop);
  } catch (e) {
    if (isRouterError(e)) return e;
    throw e;
  }
  assert.fail(`${first} then ${second}: no conflict`);
}

describe("Mux.Handle()", () => {
  const conflicts: { a: string; b: string; why: string }[] = [
    { a: "/a/{x}", b: "/a/{y}", why: "same requests" },
    { a: "GET /a", b: "GET /a", why: "same requests" },
    { a: "/a/", b: "/a/{rest...}", why: "same requests" },
    { a: "GET /a/{x}", b: "/a/b", why: "neither is more specific" },
    { a: "/a/{x}/c", b: "/a/b/{y}", why: "neither is more specific" },
    { a: "GET /", b: "/index.html", why: "neither is more specific" },
    { a: "HEAD /a/{x}", b: "GET /a/b", why: "neither is more specific" },
  ];
  for (const row of conflicts) {
    it(`refuses ${row.a} with ${row.b}, in both orders, naming both and where`, () => {
      for (const [first, second] of [
        [row.a, row.b],
        [row.b, row.a],
      ] as const) {
        const e = conflictOf(first, second);
        assert.equal(e.code, "ERR_ROUTER_CONFLICT");
        assert.ok(e.message.startsWith("Handle: "), e.message);
        assert.ok(e.message.includes(JSON.stringify(first)), e.message);
        assert.ok(e.message.includes(JSON.stringify(second)), e.message);
        assert.ok(e.message.includes(row.why), e.message);
        // Both registration sites are named, as file:line in this test file.
        const sites = [...e.message.matchAll(/registered at ([^)]*)\)/g)].map((m) => m[1] ?? "");
        assert.equal(sites.length, 2, e.message);
        for (const site of sites) assert.match(site, new RegExp(`${FILE}\\d+$`), e.message);
        assert.notEqual(sites[0], sites[1], "the two calls are on different lines");
      }
    });
  }

  it("names the caller's line, not the router's, when registering through a group", () => {
    const mux = new Mux();
    const g = mux.With((next) => next);
    g.Handle("/g/{x}", noop);
    assert.throws(
      () => mux.Handle("/g/{y}", noop),
      (e: unknown) => {
        assert.ok(isRouterError(e));
        assert.equal((e.message.match(new RegExp(FILE, "g")) ?? []).length, 2, e.message);
        assert.ok(!e.message.includes("lib/router"), e.message);
        return true;
      },
    );
  });

  it("accepts overlapping patterns when one is more specific", () => {
    const mux = new Mux();
    for (const p of ["/", "/a/{x}", "/a/b", "GET /a/b", "HEAD /a/b", "/a/{x}/", "/{$}", "a.test/a/{x}", "POST /a/b"]) {
      mux.Handle(p, noop);
    }
  });

  it("throws ERR_ROUTER_INVALID_PATTERN for a malformed pattern", () => {
    assert.throws(() => new Mux().Handle("/{a}/{a}", noop), { code: "ERR_ROUTER_INVALID_PATTERN" });
  });

  it("throws ERR_ROUTER_INVALID_HANDLER when the handler is not a function", () => {
    const handler: unknown = "not a function";
    const mux = new Mux();
    assert.throws(
      () => Reflect.apply(Mux.prototype.Handle, mux, ["/x", handler]),
      (e: unknown) => isRouterError(e) && e.code === "ERR_ROUTER_INVALID_HANDLER" && e.message.includes("not a function"),
    );
  });

  it("leaves the Mux unchanged after a refused registration", () => {
    const mux = new Mux();
    mux.Handle("/a/{x}", noop);
    assert.throws(() => mux.Handle("/a/{y}", noop));
    mux.Handle("/b", noop);
  });
});
