import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { DEFAULT_CSP } from "../../lib/index.ts";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

const hello = (_req: IncomingMessage, res: ServerResponse): void => {
  res.end("hello");
};

describe("SecurityHeaders()", () => {
  test("sets every header of securityHeaderList with its value", async (t) => {
    const { port } = await startHandler(t, { Mux: hello });
    const reply = await fetchHTTP(port, "/");
    const list = securityHeaderList();
    assert.equal(list.length, 11);
    for (const [name, value] of list) assert.equal(reply.headers[name.toLowerCase()], value, name);
  });

  test("pins the baseline values", () => {
    const map = new Map(securityHeaderList());
    assert.equal(map.get("Content-Security-Policy"), DEFAULT_CSP);
    assert.match(DEFAULT_CSP, /frame-ancestors 'none'/);
    assert.match(DEFAULT_CSP, /object-src 'none'/);
    assert.equal(map.get("X-Frame-Options"), "DENY");
    assert.equal(map.get("X-Content-Type-Options"), "nosniff");
    assert.equal(map.get("Referrer-Policy"), "no-referrer");
    assert.equal(map.has("Strict-Transport-Security"), false);
  });

  const origins: { origin: string | undefined; hsts: boolean }[] = [
    { origin: undefined, hsts: false },
    { origin: "http://example.com", hsts: false },
    { origin: "https://example.com", hsts: true },
  ];
  for (const { origin, hsts } of origins) {
    test(`${hsts ? "sends" : "omits"} HSTS with Origin ${origin ?? "unset"}`, async (t) => {
      const { port } = await startHandler(t, { Mux: hello, ...(origin !== undefined && { Origin: origin }) });
      const reply = await fetchHTTP(port, "/");
      if (hsts) {
        assert.equal(reply.headers["strict-transport-security"], "max-age=31536000; includeSubDomains");
        assert.equal(reply.headers["content-security-policy"], `${DEFAULT_CSP}; upgrade-insecure-requests`);
      } else {
        assert.equal(reply.headers["strict-transport-security"], undefined);
        assert.equal(reply.headers["content-security-policy"], DEFAULT_CSP);
      }
    });
  }

  test("replaces the CSP with Options.CSP", async (t) => {
    const csp = "default-src 'none'; img-src https://cdn.example";
    const { port } = await startHandler(t, { Mux: hello, CSP: csp, Origin: "https://example.com" });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.headers["content-security-policy"], csp);
  });

  test("lets the application override and remove headers", async (t) => {
    const { port } = await startHandler(t, {
      Mux: (_req, res) => {
        res.setHeader("X-Frame-Options", "SAMEORIGIN");
        res.removeHeader("Cross-Origin-Opener-Policy");
        res.end("framed");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.headers["x-frame-options"], "SAMEORIGIN");
    assert.equal(reply.headers["cross-origin-opener-policy"], undefined);
    assert.equal(reply.headers["x-content-type-options"], "nosniff");
  });
});

describe("Handler() middleware order", () => {
  test("recovers a panic in Wrap outermost, keeping the security headers set before it", async (t) => {
    const { port, log } = await startHandler(t, {
      Mux: hello,
      Wrap: () => () => {
        throw new Error("wrap exploded");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    assert.ok(reply.body.startsWith("Something went wrong."));
    for (const [name, value] of securityHeaderList()) assert.equal(reply.headers[name.toLowerCase()], value, name);
    assert.equal(log.lines().filter((l) => l["level"] === "error").length, 1);
  });

  test("puts the chrome before Wrap and the security headers before the chrome", async (t) => {
    const order: string[] = [];
    const { port } = await startHandler(t, {
      Mux: (_req, res) => {
        order.push("app");
        res.end();
      },
      Wrap: (next) => (req, res) => {
        order.push(`wrap ${req.url}`);
        return next(req, res);
      },
    });
    const health = await fetchHTTP(port, "/healthz");
    assert.equal(health.status, 200);
    assert.equal(health.headers["x-frame-options"], "DENY");
    await fetchHTTP(port, "/page");
    assert.deepEqual(order, ["wrap /page", "app"]);
  });

  test("gives a 500 from a chrome probe the security headers too", async (t) => {
    const { port } = await startHandler(t, {
      Mux: hello,
      NextDue: () => {
        throw new Error("scheduler broken");
      },
    });
    const reply = await fetchHTTP(port, "/api/next-due");
    assert.equal(reply.status, 500);
    assert.equal(reply.headers["content-security-policy"], DEFAULT_CSP);
  });
});
