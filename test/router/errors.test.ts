import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ROUTER_ERROR_CODES, RouterError, isRouterError } from "../../lib/router/errors.ts";
import { HTTPError } from "../../lib/http/index.ts";

describe("ROUTER_ERROR_CODES", () => {
  it("pins the number of codes", () => {
    assert.equal(Object.keys(ROUTER_ERROR_CODES).length, 4);
  });
  it("maps each key to itself with the ERR_ROUTER_ prefix", () => {
    for (const [key, value] of Object.entries(ROUTER_ERROR_CODES)) {
      assert.equal(key, value);
      assert.ok(key.startsWith("ERR_ROUTER_"), key);
    }
  });
});

describe("isRouterError()", () => {
  it("recognises router errors by code, not by class", () => {
    const e = new RouterError("ERR_ROUTER_CONFLICT", "Handle: x");
    assert.equal(e.name, "RouterError");
    assert.ok(isRouterError(e));
    assert.ok(isRouterError(Object.assign(new Error("copy"), { code: "ERR_ROUTER_NEXT_TWICE" })));
  });
  it("refuses other errors and values", () => {
    assert.equal(isRouterError(new HTTPError("ERR_HTTP_MALFORMED_BODY", "x")), false);
    assert.equal(isRouterError(new Error("plain")), false);
    assert.equal(isRouterError({ code: "ERR_ROUTER_CONFLICT" }), false);
    assert.equal(isRouterError(undefined), false);
  });
});
