/*
 * Child process for the graceful-shutdown test: serves on 127.0.0.1:0; a
 * request logs "request began", waits DELAY_MS (part of the scenario: it
 * keeps the request in flight while the parent sends SIGTERM), then
 * answers "finished". Logs JSON to stderr.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { NewLogger, Serve } from "../../lib/http/index.ts";

const logger = NewLogger();
await Serve({
  Addr: "127.0.0.1:0",
  Logger: logger,
  Mux: async (_req, res) => {
    logger.info("request began");
    await sleep(Number(process.env["DELAY_MS"] ?? "500"));
    res.end("finished");
  },
});
