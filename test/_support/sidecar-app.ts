/*
 * Child process for the sidecar test: `node sidecar-app.js sidecar run`
 * runs `Run` with a pass that logs "pass" with its count and the database
 * file it was given. Logs JSON to stderr.
 */
import { NewLogger } from "../../lib/http/index.ts";
import { Run } from "../../lib/index.ts";

const logger = NewLogger();
let count = 0;
await Run({
  Mux: (_req, res) => {
    res.end("not used under sidecar run");
  },
  DBPath: "sidecar.db",
  Logger: logger,
  SidecarInterval: 1,
  Sidecar: (db) => {
    count++;
    logger.info("pass", { count, db: db?.name });
    if (count === 2) throw new Error("a failing pass is logged, not fatal");
  },
});
