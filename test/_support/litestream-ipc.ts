/*
 * A fake Litestream control socket: an HTTP server on a unix socket in a
 * temporary directory that records every request and answers what the test
 * says (Litestream's IPC is HTTP over the socket; lib/db/durable.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

/** One request the fake received. */
export interface IPCRequest {
  method: string;
  url: string;
  contentType: string | undefined;
  body: unknown;
}

/** A running fake control socket. */
export interface FakeLitestream {
  socket: string;
  requests: IPCRequest[];
  /** How the next requests are answered: a status and a JSON body, or "hang" (never answer). */
  answer: { status: number; body: unknown } | "hang";
}

/** Starts the fake; it closes when the test ends. */
export async function startFakeLitestream(t: TestContext): Promise<FakeLitestream> {
  const dir = mkdtempSync(join(tmpdir(), "latch-ls-"));
  const fake: FakeLitestream = {
    socket: join(dir, "litestream.sock"),
    requests: [],
    answer: { status: 200, body: { status: "synced", txid: 1, replicated_txid: 1 } },
  };
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as text
      }
      fake.requests.push({ method: req.method ?? "", url: req.url ?? "", contentType: req.headers["content-type"], body });
      if (fake.answer === "hang") return void hung.push(res);
      res.writeHead(fake.answer.status, { "Content-Type": "application/json" }).end(JSON.stringify(fake.answer.body) + "\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(fake.socket, resolve));
  t.after(async () => {
    for (const res of hung) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return fake;
}
