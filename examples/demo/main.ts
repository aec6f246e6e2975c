/*
 * The latch demo: `npm start` (or `node dist/examples/demo/main.js`; the
 * systemd unit runs the same code bundled into one file, dist/bundle/demo.js,
 * for its cold start). Environment: see config.ts and README.
 */
import { resolve } from "node:path";
import { newLogger } from "../../lib/http/index.ts";
import { Run } from "../../lib/index.ts";
import { demoOptions } from "./app.ts";
import { loadConfig } from "./config.ts";
import { keepYoungGenerationSmall } from "./young-generation.ts";

keepYoungGenerationSmall();

const logger = newLogger();
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
