/*
 * Child process for the graceful-shutdown test: serves on 127.0.0.1:0. A
 * request logs "request began", then stays in flight until the shutdown
 * has begun (its RequestSignal fires) and ~500ms longer, so the drain is
 * exercised whatever the machine's speed; then it answers "finished" and
 * logs "request finished". Logs JSON to stderr.
 */
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { NewLogger, RequestSignal } from "../../lib/http/index.ts";
import { Serve } from "../../lib/index.ts";

const logger = NewLogger();
await Serve({
  Addr: "127.0.0.1:0",
  Logger: logger,
  Mux: async (req, res) => {
    const signal = RequestSignal(req);
    logger.info("request began");
    if (!signal.aborted) await once(signal, "abort");
    await sleep(500);
    res.end("finished");
    logger.info("request finished");
  },
});
