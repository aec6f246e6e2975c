/*
 * The latch demo: `npm start` (or `node dist/examples/demo/main.js`, the
 * same file a systemd unit runs). Environment: see config.ts and README.
 */
import { resolve } from "node:path";
import { NewLogger } from "../../lib/http/index.ts";
import { Run } from "../../lib/index.ts";
import { demoOptions } from "./app.ts";
import { loadConfig } from "./config.ts";

const logger = NewLogger();
const config = loadConfig(process.env, logger);
const { cleanup, ...options } = demoOptions(config, logger);
// Links, cookies and the WebAuthn relying party all use ORIGIN, not the
// listen address: say which, so `--addr` without ORIGIN is no surprise.
logger.info("demo origin", { origin: config.origin });
try {
  await Run({
    ...options,
    DBPath: resolve(config.stateDir, "demo.db"),
    ...(config.addr !== undefined && { Addr: config.addr }),
  });
} catch (err) {
  logger.error("demo: could not start", { error: err });
  process.exitCode = 1;
} finally {
  cleanup();
}
