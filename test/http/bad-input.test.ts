import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { rawRequest, rawStatus, startHandler } from "../_support/http.ts";

// An application that answers 404 for everything but GET /, 405 for other methods there.
function app(req: IncomingMessage, res: ServerResponse): void {
  if (req.url !== "/") {
    res.statusCode = 404;
    res.end("not found");
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.statusCode = 405;
    res.setHeader("Allow", "GET, HEAD");
    res.end();
    return;
  }
  res.end("home");
}

const head = (line: string, extra = ""): string => `${line}\r\nHost: example.com\r\n${extra}Connection: close\r\n\r\n`;

describe("Handler() with bad input", () => {
  const requests: { name: string; text: string; want?: number | "closed" }[] = [
    { name: "invalid percent-encoding", text: head("GET /%zz HTTP/1.1") },
    { name: "invalid percent-encoding on a probe", text: head("GET /healthz?%zz=% HTTP/1.1"), want: 200 },
    { name: "a truncated percent-escape", text: head("GET /% HTTP/1.1") },
    { name: "encoded NUL and slash", text: head("GET /a%00b%2f..%2f HTTP/1.1") },
    { name: "dot segments and a double slash", text: head("GET //../etc/passwd HTTP/1.1") },
    { name: "absolute-form", text: head("GET http://evil.example/healthz HTTP/1.1") },
    { name: "asterisk-form", text: head("OPTIONS * HTTP/1.1") },
    // Node's server hands CONNECT to a "connect" listener; with none it closes the socket.
    { name: "authority-form", text: head("CONNECT example.com:443 HTTP/1.1"), want: "closed" },
    { name: "an unknown method", text: head("FOO / HTTP/1.1") },
    { name: "a lowercase method", text: head("get / HTTP/1.1") },
    { name: "a known method the app refuses", text: head("DELETE / HTTP/1.1"), want: 405 },
    { name: "a raw space in the target", text: head("GET /a b HTTP/1.1") },
    { name: "a control character in the target", text: head("GET /a\u0001b HTTP/1.1") },
    { name: "non-ASCII bytes in the target", text: head("GET /\u00e9\u00ff HTTP/1.1") },
    { name: "HTTP/0.9", text: "GET /\r\n\r\n" },
    { name: "an unsupported version", text: head("GET / HTTP/2.0") },
    { name: "a missing Host", text: "GET / HTTP/1.1\r\nConnection: close\r\n\r\n" },
    { name: "a header without a colon", text: head("GET / HTTP/1.1", "NoColonHere\r\n") },
    { name: "a header with a CR inside", text: head("GET / HTTP/1.1", "X-A: b\rc\r\n") },
    { name: "huge headers", text: head("GET / HTTP/1.1", `X-Big: ${"a".repeat(20 * 1024)}\r\n`), want: 431 },
    { name: "a negative Content-Length", text: head("POST / HTTP/1.1", "Content-Length: -1\r\n") },
    { name: "two Content-Lengths", text: head("POST / HTTP/1.1", "Content-Length: 1\r\nContent-Length: 2\r\n") },
    {
      name: "Content-Length with Transfer-Encoding",
      text: head("POST / HTTP/1.1", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n") + "0\r\n\r\n",
    },
    { name: "a malformed chunk", text: head("POST / HTTP/1.1", "Transfer-Encoding: chunked\r\n") + "zz\r\nhello\r\n0\r\n\r\n" },
    { name: "garbage", text: "\u0000\u0001\u0002 not http at all\r\n\r\n" },
  ];
  for (const { name, text, want } of requests) {
    test(`answers ${name} below 500`, async (t) => {
      const { port, log } = await startHandler(t, { Mux: app });
      const response = await rawRequest(port, text);
      const status = rawStatus(response);
      if (want === "closed") {
        assert.equal(response, "");
        return;
      }
      assert.ok(status !== undefined, `no HTTP response: ${JSON.stringify(response.slice(0, 80))}`);
      assert.ok(status < 500, `status ${status}`);
      if (want !== undefined) assert.equal(status, want);
      assert.deepEqual(
        log.lines().filter((l) => l["level"] === "error"),
        [],
      );
    });
  }
});
