import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { connect, Socket } from "node:net";
import { describe, it } from "node:test";
import { requestSlot, SlottedRequest } from "../../lib/internal/index.ts";
import { startServer } from "../_support/server.ts";

const first = requestSlot<string>();
const second = requestSlot<number>();

// Both homes of a request's values: its own field (Serve's requests) and the WeakMap (any other request).
for (const [kind, make] of [
  ["a SlottedRequest", () => new SlottedRequest(new Socket())],
  ["a plain IncomingMessage", () => new IncomingMessage(new Socket())],
] as const) {
  describe(`requestSlot on ${kind}`, () => {
    it("reads undefined until set, then the value set, each slot its own", () => {
      const req = make();
      assert.equal(first.get(req), undefined);
      first.set(req, "match");
      assert.equal(first.get(req), "match");
      assert.equal(second.get(req), undefined);
      second.set(req, 7);
      assert.equal(first.get(req), "match");
      assert.equal(second.get(req), 7);
    });

    it("keeps one request's values from another's, and unbinds with undefined", () => {
      const a = make();
      const b = make();
      first.set(a, "a");
      assert.equal(first.get(b), undefined);
      first.set(b, "b");
      assert.equal(first.get(a), "a");
      first.set(a, undefined);
      assert.equal(first.get(a), undefined);
      assert.equal(first.get(b), "b");
    });
  });
}

describe("requestSlot on a server's requests", () => {
  it("gives each request of one keep-alive connection fresh values, while the first is still answering", async (t) => {
    const { port } = await startServer(t, async (req, res) => {
      const before = first.get(req);
      first.set(req, req.url ?? "");
      // The first request waits, so the second is read and bound on the same connection before it answers.
      if (req.url === "/slow") await new Promise((resolve) => setTimeout(resolve, 50));
      res.end(`${req instanceof SlottedRequest} ${String(before)} ${String(first.get(req))};`);
    });
    // Both requests in one write (pipelined); the second asks to close, so the connection ends after both answers.
    const text = await new Promise<string>((resolve, reject) => {
      let out = "";
      const socket = connect(port, "127.0.0.1", () =>
        socket.write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
      );
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => (out += chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(out));
    });
    const bodies = text.split("\r\n\r\n").slice(1).join("|");
    assert.match(bodies, /true undefined \/slow;.*\|.*true undefined \/fast;/s);
  });
});
