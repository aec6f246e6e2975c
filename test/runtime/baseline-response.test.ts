/*
 * The baseline security headers held by the response until the head is
 * written (lib/runtime/baseline-response.ts): every response the
 * application can make leaves the server byte for byte as when the
 * baseline is set up front, one `setHeader` each (node:http's own
 * `ServerResponse`), and the application reads the same headers before and
 * after the write. Each route below writes what it read into its body, so
 * equal bytes mean equal reads too.
 */
import assert from "node:assert/strict";
import { ServerResponse, type IncomingMessage } from "node:http";
import { describe, test, type TestContext } from "node:test";
import { Handler } from "../../lib/index.ts";
import { HTTPError, type HandlerFunc } from "../../lib/http/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { captureLog, rawRequest } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";

// What a handler read, written into its body.
function reads(res: ServerResponse): string {
  return JSON.stringify({
    csp: res.getHeader("content-security-policy"),
    frame: res.getHeader("X-Frame-Options"),
    has: res.hasHeader("Referrer-Policy"),
    names: res.getHeaderNames(),
    headers: res.getHeaders(),
  });
}

const afterEnd = new Map<string, unknown>();

const routes: Record<string, HandlerFunc> = {
  "GET /plain": (_req, res) => {
    res.end("hello");
  },
  "GET /json": (_req, res) => {
    res.statusCode = 201;
    res.setHeader("Content-Type", "application/json");
    res.end(reads(res));
  },
  // SPEC §4.4: the application's own Set/Del of a baseline header wins.
  "GET /override": (_req, res) => {
    res.setHeader("x-frame-options", "SAMEORIGIN");
    res.removeHeader("Cross-Origin-Opener-Policy");
    res.setHeader("Content-Type", "text/plain");
    res.setHeader("content-type", "text/plain; charset=utf-8");
    res.end(reads(res));
  },
  "GET /remove-then-set": (_req, res) => {
    res.removeHeader("X-XSS-Protection");
    res.setHeader("X-XSS-Protection", "1");
    res.end(reads(res));
  },
  // As lib/oauth's consent page: the baseline CSP, read before the write and extended.
  "GET /extend-csp": (_req, res) => {
    const csp = res.getHeader("Content-Security-Policy");
    res.setHeader("Content-Security-Policy", `${String(csp)}; form-action 'self' https://client.example`);
    res.end(reads(res));
  },
  "GET /cookies": (_req, res) => {
    res.setHeader("Set-Cookie", "a=1; Path=/");
    const prev = res.getHeader("Set-Cookie");
    res.setHeader("Set-Cookie", [String(prev), "b=2; Path=/"]);
    res.setHeader("X-Count", 5);
    res.end(JSON.stringify({ count: typeof res.getHeader("x-count"), reads: reads(res) }));
  },
  "GET /append": (_req, res) => {
    res.appendHeader("Vary", "Cookie");
    res.appendHeader("Vary", "Accept-Language");
    res.appendHeader("X-Frame-Options", "SAMEORIGIN");
    res.end(reads(res));
  },
  "GET /redirect": (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.writeHead(303, { Location: "/done", "X-Frame-Options": "SAMEORIGIN" }).end();
  },
  "GET /redirect-list": (_req, res) => {
    res.writeHead(303, "See Elsewhere", ["Location", "/done", "Referrer-Policy", "same-origin"]).end();
  },
  "GET /reason": (_req, res) => {
    res.writeHead(202, "Taken");
    res.end("later");
  },
  "GET /chunked": (_req, res) => {
    res.setHeader("Content-Type", "text/plain");
    res.writeHead(200);
    res.write("one ");
    res.end("two");
  },
  "GET /flush": (_req, res) => {
    res.flushHeaders();
    res.end("flushed");
  },
  "GET /no-content": (_req, res) => {
    res.statusCode = 204;
    res.end();
  },
  "GET /no-date": (_req, res) => {
    res.removeHeader("Date");
    res.end("undated");
  },
  "GET /close": (_req, res) => {
    res.setHeader("Connection", "close");
    res.end("closing");
  },
  "GET /client-error": () => {
    throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "the form is broken", { status: 400 });
  },
  "GET /panic": (_req, res) => {
    res.setHeader("Content-Type", "application/json");
    res.setHeader("Set-Cookie", "gone=1");
    throw new Error("exploded");
  },
  "GET /after-end": (req, res) => {
    res.setHeader("Content-Type", "text/plain");
    res.end("ended");
    afterEnd.set(String(req.headers["x-server"]), { reads: reads(res), sent: res.headersSent });
  },
};

function mux(): Mux {
  const m = new Mux();
  for (const [pattern, handler] of Object.entries(routes)) m.Handle(pattern, handler);
  return m;
}

interface Pair {
  /** Serves with the baseline set up front, one setHeader each (node:http's ServerResponse). */
  upFront: number;
  /** Serves as Serve's server does: the response holds the baseline until the write. */
  held: number;
}

async function servePair(t: TestContext): Promise<Pair> {
  const [handler, cleanup] = Handler({ Mux: mux(), Logger: captureLog().logger, Origin: "https://app.example" });
  t.after(cleanup);
  const upFront = await startServer(t, handler, { response: ServerResponse });
  const held = await startServer(t, handler);
  return { upFront: upFront.port, held: held.port };
}

// Everything the server wrote, the Date header's value and an error's reference blanked (they differ from one answer to the next).
async function wire(port: number, method: string, path: string, server: string): Promise<string> {
  const text = await rawRequest(
    port,
    `${method} ${path} HTTP/1.1\r\nHost: app.example\r\nX-Server: ${server}\r\nConnection: close\r\n\r\n`,
  );
  return text.replace(/^Date: .*$/m, "Date: -").replace(/^Reference: .*$/m, "Reference: -");
}

describe("BaselineResponse", () => {
  test("every response leaves the server byte for byte as with the baseline set up front", async (t) => {
    const { upFront, held } = await servePair(t);
    for (const pattern of Object.keys(routes)) {
      const [method = "", path = ""] = pattern.split(" ");
      for (const m of method === "GET" ? ["GET", "HEAD"] : [method]) {
        const before = await wire(upFront, m, path, "up-front");
        const after = await wire(held, m, path, "held");
        assert.match(before, /^HTTP\/1\.1 \d{3} /, `${m} ${path}`);
        assert.equal(after, before, `${m} ${path}`);
      }
    }
  });

  test("sends every baseline header, in order, before the application's own", async (t) => {
    const { held } = await servePair(t);
    const text = await wire(held, "GET", "/json", "held");
    const names = text
      .split("\r\n\r\n")[0]
      ?.split("\r\n")
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(":")));
    assert.deepEqual(names, [
      ...securityHeaderList({ Origin: "https://app.example" }).map(([name]) => name),
      "Content-Type",
      "Date",
      "Connection",
      "Content-Length",
    ]);
  });

  test("lets the application read the baseline before the write (getHeader sees a default)", async (t) => {
    const { held } = await servePair(t);
    const text = await wire(held, "GET", "/json", "held");
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>;
    const baseline = new Map(securityHeaderList({ Origin: "https://app.example" }));
    assert.equal(body["csp"], baseline.get("Content-Security-Policy"));
    assert.equal(body["frame"], "DENY");
    assert.equal(body["has"], true);
    assert.deepEqual(body["names"], [...[...baseline.keys()].map((n) => n.toLowerCase()), "content-type"]);
  });

  test("lets the application's setHeader and removeHeader of a baseline header win (SPEC §4.4)", async (t) => {
    const { held } = await servePair(t);
    const text = await wire(held, "GET", "/override", "held");
    assert.match(text, /\r\nx-frame-options: SAMEORIGIN\r\n/);
    assert.doesNotMatch(text, /X-Frame-Options: DENY/i);
    assert.doesNotMatch(text, /Cross-Origin-Opener-Policy/i);
    assert.match(text, /\r\nX-Content-Type-Options: nosniff\r\n/);
    const again = await wire(held, "GET", "/remove-then-set", "held");
    assert.match(again, /\r\nX-XSS-Protection: 1\r\n/);
  });

  test("reads the headers as sent after the response ended", async (t) => {
    const { upFront, held } = await servePair(t);
    await wire(upFront, "GET", "/after-end", "up-front");
    await wire(held, "GET", "/after-end", "held");
    assert.deepEqual(afterEnd.get("held"), afterEnd.get("up-front"));
    assert.match(String((afterEnd.get("held") as { reads: string }).reads), /"frame":"DENY"/);
  });

  test("refuses a header change once the head is written, as node:http does", async (t) => {
    const errors: string[] = [];
    const late = (_req: IncomingMessage, res: ServerResponse): void => {
      res.end("done");
      for (const change of [() => res.setHeader("X-Late", "1"), () => res.removeHeader("X-Frame-Options")]) {
        try {
          change();
        } catch (err) {
          errors.push((err as NodeJS.ErrnoException).code ?? "");
        }
      }
    };
    const [handler, cleanup] = Handler({ Mux: late, Logger: captureLog().logger });
    t.after(cleanup);
    const { port } = await startServer(t, handler);
    await wire(port, "GET", "/", "held");
    assert.deepEqual(errors, ["ERR_HTTP_HEADERS_SENT", "ERR_HTTP_HEADERS_SENT"]);
  });

  test("refuses an invalid header at the call, as node:http does", async (t) => {
    const errors: string[] = [];
    const bad = (_req: IncomingMessage, res: ServerResponse): void => {
      for (const change of [() => res.setHeader("Bad Name", "1"), () => res.setHeader("X-Bad", "a\r\nInjected: 1")]) {
        try {
          change();
        } catch (err) {
          errors.push((err as NodeJS.ErrnoException).code ?? "");
        }
      }
      res.end("checked");
    };
    const [handler, cleanup] = Handler({ Mux: bad, Logger: captureLog().logger });
    t.after(cleanup);
    const { port } = await startServer(t, handler);
    const text = await wire(port, "GET", "/", "held");
    assert.doesNotMatch(text, /Injected/);
    assert.deepEqual(errors, ["ERR_INVALID_HTTP_TOKEN", "ERR_INVALID_CHAR"]);
  });
});
