import assert from "node:assert/strict";
import { request } from "node:http";
import { describe, it, type TestContext } from "node:test";
import { crossOriginProtection, isLatchError } from "../../lib/http/index.ts";
import { type CrossOriginOptions } from "../../lib/http/csrf.ts";
import { startServer } from "../_support/server.ts";

const ORIGIN = "https://app.example";

/** Starts a server whose only handler answers 200 "reached" behind the middleware. */
async function serve(t: TestContext, options: CrossOriginOptions): Promise<number> {
  const handler = crossOriginProtection(options)((_req, res) => {
    res.end("reached");
  });
  return (await startServer(t, handler)).port;
}

function send(port: number, method: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: "/thing", headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(method === "GET" || method === "HEAD" ? undefined : "x=1");
  });
}

interface Row {
  site?: string;
  origin?: string;
  want: number;
}

const UNSAFE_ROWS: Row[] = [
  { site: "same-origin", want: 200 },
  { site: "none", want: 200 },
  { site: "same-site", want: 403 },
  { site: "cross-site", want: 403 },
  { site: "same-origin", origin: ORIGIN, want: 200 },
  { site: "cross-site", origin: ORIGIN, want: 403 },
  { site: "same-site", origin: "https://sub.app.example", want: 403 },
  { site: "bogus", want: 403 },
  { origin: ORIGIN, want: 200 },
  { origin: "https://evil.example", want: 403 },
  { origin: "https://app.example:8443", want: 403 },
  { origin: "http://app.example", want: 403 },
  { origin: "https://sub.app.example", want: 403 },
  { origin: "https://app.example.evil.example", want: 403 },
  { origin: "null", want: 403 },
  { origin: `${ORIGIN}/`, want: 403 },
  { want: 200 },
];

function label(method: string, row: Row): string {
  return `${method} Sec-Fetch-Site=${row.site ?? "-"} Origin=${row.origin ?? "-"}`;
}

function headersOf(row: Row): Record<string, string> {
  return { ...(row.site !== undefined && { "Sec-Fetch-Site": row.site }), ...(row.origin !== undefined && { Origin: row.origin }) };
}

describe("CrossOriginProtection()", () => {
  it("decides unsafe methods by Sec-Fetch-Site, then Origin", async (t) => {
    const port = await serve(t, { Origin: ORIGIN });
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      for (const row of UNSAFE_ROWS) {
        const res = await send(port, method, headersOf(row));
        assert.equal(res.status, row.want, label(method, row));
        assert.equal(res.body, row.want === 200 ? "reached" : "403 forbidden: cross-origin request refused\n", label(method, row));
      }
    }
  });

  it("always passes safe methods", async (t) => {
    const port = await serve(t, { Origin: ORIGIN, Strict: true });
    for (const method of ["GET", "HEAD", "OPTIONS"]) {
      for (const row of [...UNSAFE_ROWS, { site: "cross-site", origin: "https://evil.example", want: 200 }]) {
        assert.equal((await send(port, method, headersOf(row))).status, 200, label(method, row));
      }
    }
  });

  it("refuses a request with neither header when Strict", async (t) => {
    const port = await serve(t, { Origin: ORIGIN, Strict: true });
    assert.equal((await send(port, "POST", {})).status, 403);
    assert.equal((await send(port, "POST", { Origin: ORIGIN })).status, 200);
    assert.equal((await send(port, "POST", { "Sec-Fetch-Site": "same-origin" })).status, 200);
    assert.equal((await send(port, "POST", { "Sec-Fetch-Site": "cross-site" })).status, 403);
  });

  it("compares against the serialized configured origin (default port, trailing slash)", async (t) => {
    const port = await serve(t, { Origin: "https://app.example:443/" });
    assert.equal((await send(port, "POST", { Origin: "https://app.example" })).status, 200);
    assert.equal((await send(port, "POST", { Origin: "https://app.example:443" })).status, 403);
    const dev = await serve(t, { Origin: "http://127.0.0.1:8080" });
    assert.equal((await send(dev, "POST", { Origin: "http://127.0.0.1:8080" })).status, 200);
    assert.equal((await send(dev, "POST", { Origin: "http://127.0.0.1:8081" })).status, 403);
    assert.equal((await send(dev, "POST", { Origin: "http://localhost:8080" })).status, 403);
  });

  it("throws on a configured origin that is not an http(s) URL", () => {
    // Each of these would serialize as the opaque origin "null", which a sandboxed frame sends.
    for (const origin of ["app.example", "", "localhost:8080", "file:///srv/app", "data:text/html,x", "javascript:void(0)"]) {
      assert.throws(
        () => crossOriginProtection({ Origin: origin }),
        (e: unknown) => isLatchError(e) && e.code === "ERR_HTTP_INVALID_OPTIONS",
        JSON.stringify(origin),
      );
    }
  });

  it("never accepts Origin: null", async (t) => {
    const port = await serve(t, { Origin: ORIGIN });
    assert.equal((await send(port, "POST", { Origin: "null" })).status, 403);
  });
});
