import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { DB } from "../../lib/db/index.ts";
import { requestSignal } from "../../lib/http/index.ts";
import { SlottedRequest } from "../../lib/internal/index.ts";
import { BaselineResponse } from "../../lib/runtime/baseline-response.ts";
import { DEFAULT_SHUTDOWN_GRACE } from "../../lib/runtime/serve.ts";
import { Serve } from "../../lib/index.ts";
import { captureLog, fetchHTTP, spawnChild, supportScript, type LogLine } from "../_support/http.ts";

function portFrom(line: LogLine): number {
  const m = /:(\d+)$/.exec(String(line["addr"]));
  assert.ok(m?.[1] !== undefined, `no port in ${JSON.stringify(line)}`);
  return Number(m[1]);
}

// A grace long enough that a test relying on it would time out instead of passing.
const NO_GRACE_NEEDED = 3_600_000;

describe("Serve() shutdown", () => {
  test("drains an in-flight request on SIGTERM, refuses new connections, and exits 0", async (t) => {
    const child = spawnChild(t, supportScript("slow-server.js"), []);
    const port = portFrom(await child.waitForLog("listening"));
    const inFlight = fetchHTTP(port, "/slow");
    await child.waitForLog("request began");
    child.process.kill("SIGTERM");
    const shutting = await child.waitForLog("shutting down");
    assert.equal(shutting["reason"], "SIGTERM");
    const late = await fetchHTTP(port, "/late");
    assert.equal(late.status, undefined, "a connection after SIGTERM was served");
    assert.ok(late.error?.code === "ECONNREFUSED" || late.error?.code === "ECONNRESET", String(late.error?.code));
    const reply = await inFlight;
    assert.equal(reply.status, 200);
    assert.equal(reply.body, "finished");
    assert.equal(reply.complete, true);
    assert.equal(await child.exited, 0);
    const msgs = child.lines().map((l) => l["msg"]);
    assert.deepEqual(msgs.slice(msgs.indexOf("request began")), ["request began", "shutting down", "request finished", "stopped"]);
    assert.equal(child.lines().filter((l) => l["msg"] === "request began").length, 1, "the late request must never reach the handler");
  });

  test("stops the job registries in Options.Stop on SIGTERM: a running job's signal aborts and the process exits 0", async (t) => {
    const child = spawnChild(t, supportScript("jobs-shutdown-app.js"), []);
    const port = portFrom(await child.waitForLog("listening"));
    const started = await fetchHTTP(port, "/start", { method: "POST" });
    assert.equal(started.status, 200);
    await child.waitForLog("job running");
    child.process.kill("SIGTERM");
    const aborted = await child.waitForLog("job aborted");
    assert.equal(aborted["reason"], "run job: stopped by shutdown");
    assert.equal(await child.exited, 0);
    const msgs = child.lines().map((l) => l["msg"]);
    assert.ok(msgs.indexOf("shutting down") < msgs.indexOf("job aborted"), msgs.join(", "));
    assert.ok(msgs.includes("stopped"), msgs.join(", "));
  });

  test("stops when Options.Signal aborts, then closes the database it opened", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "latch-serve-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const log = captureLog();
    const stop = new AbortController();
    let db: DB | undefined;
    const served = Serve({
      Addr: "127.0.0.1:0",
      DBPath: join(dir, "app.db"),
      Logger: log.logger,
      Signal: stop.signal,
      ShutdownGrace: NO_GRACE_NEEDED,
      Router: (handle) => {
        db = handle;
        return (req, res) => {
          // Serve's own classes (SERVE_CLASSES): requests that hold their values, responses that hold the baseline.
          res.end(`${String(handle?.open)} ${req instanceof SlottedRequest} ${res instanceof BaselineResponse}`);
        };
      },
    });
    const port = portFrom(await log.waitFor((l) => l["msg"] === "listening"));
    // A keep-alive connection left idle must not hold the shutdown up.
    const agent = new Agent({ keepAlive: true });
    t.after(() => agent.destroy());
    const reply = await fetchHTTP(port, "/", { agent });
    assert.equal(reply.body, "true true true");
    assert.equal((await fetchHTTP(port, "/healthz")).status, 200);
    assert.equal(db?.open, true);
    stop.abort();
    await served;
    assert.equal(db?.open, false);
    const msgs = log.lines().map((l) => l["msg"]);
    assert.deepEqual(msgs, ["listening", "shutting down", "stopped"]);
    assert.equal(log.lines()[1]?.["reason"], "signal");
  });

  test("resolves at once when Options.Signal is already aborted", async () => {
    const log = captureLog();
    await Serve({ Addr: "127.0.0.1:0", Mux: () => {}, Logger: log.logger, Signal: AbortSignal.abort() });
    assert.deepEqual(
      log.lines().map((l) => l["msg"]),
      ["listening", "shutting down", "stopped"],
    );
  });

  test("aborts requestSignal on shutdown so a long-lived response ends", async () => {
    const log = captureLog();
    const stop = new AbortController();
    const served = Serve({
      Addr: "127.0.0.1:0",
      Logger: log.logger,
      Signal: stop.signal,
      ShutdownGrace: NO_GRACE_NEEDED,
      Mux: async (req, res) => {
        const signal = requestSignal(req);
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        res.write(": ping\n\n");
        log.logger.info("stream open");
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        res.end("event: bye\ndata: shutdown\n\n");
      },
    });
    const port = portFrom(await log.waitFor((l) => l["msg"] === "listening"));
    const streaming = fetchHTTP(port, "/events");
    await log.waitFor((l) => l["msg"] === "stream open");
    stop.abort();
    const reply = await streaming;
    await served;
    assert.equal(reply.status, 200);
    assert.equal(reply.complete, true);
    assert.equal(reply.body, ": ping\n\nevent: bye\ndata: shutdown\n\n");
  });

  test("rejects a boot error before listening", async () => {
    await assert.rejects(Serve({ Addr: "127.0.0.1:0", Logger: captureLog().logger }), { code: "ERR_HTTP_INVALID_OPTIONS" });
  });

  test("DEFAULT_SHUTDOWN_GRACE is 10 seconds", () => assert.equal(DEFAULT_SHUTDOWN_GRACE, 10_000));
});
