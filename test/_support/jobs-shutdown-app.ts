/*
 * Child process for the runtime-owns-shutdown test: serves on 127.0.0.1:0
 * with a jobs Registry listed in `Options.Stop`; `POST /start` starts a job
 * that waits a full `MAX_RUNTIME` on its signal and logs "job aborted" with
 * the reason when the signal fires. Logs JSON to stderr.
 */
import { once } from "node:events";
import { newLogger } from "../../lib/http/index.ts";
import { Serve } from "../../lib/index.ts";
import { Registry } from "../../lib/jobs/index.ts";

const logger = newLogger();
const jobs = new Registry(logger);
await Serve({
  Addr: "127.0.0.1:0",
  Logger: logger,
  Stop: [jobs],
  Mux: (_req, res) => {
    const job = jobs.Start("owner", "long", async (signal) => {
      logger.info("job running");
      await once(signal, "abort");
      logger.info("job aborted", { reason: String((signal.reason as Error).message) });
    });
    res.end(job.ID);
  },
});
