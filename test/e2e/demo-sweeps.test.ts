/*
 * The demo's sweeps end with the application (examples/demo/sweeps.ts): an
 * embedding that closes its database after `cleanup` must not have a
 * sweep fire on it ten minutes later (the scale bench did, and the timer's
 * throw ended its process). Timers are node:test's mock timers.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { Writable } from "node:stream";
import { mock, test } from "node:test";
import { Handler, OpenDB } from "../../lib/index.ts";
import { newLogger } from "../../lib/http/index.ts";
import { demoOptions } from "../../examples/demo/app.ts";
import { loadConfig } from "../../examples/demo/config.ts";
import { SWEEP_EVERY_MS } from "../../examples/demo/sweeps.ts";
import { tempFile } from "../_support/db.ts";

test("the demo's sweeps run every ten minutes and stop with cleanup, before the database closes", (t) => {
  mock.timers.enable({ apis: ["setInterval"] });
  t.after(() => mock.timers.reset());
  assert.equal(SWEEP_EVERY_MS, 10 * 60 * 1000);
  const path = tempFile(t);
  const db = OpenDB(path);
  const logger = newLogger({ stream: new Writable({ write: (_chunk, _encoding, done) => done() }) });
  const env = { STATE_DIRECTORY: dirname(path), INSTANCE_KEY: "demo-sweeps-instance-key-not-secret" };
  const { cleanup, ...options } = demoOptions(loadConfig(env, logger), logger);
  const [, close] = Handler({ ...options, DB: db });
  mock.timers.tick(SWEEP_EVERY_MS); // the sweeps run on the open database
  close();
  cleanup();
  db.close();
  // Before the fix, the approvals sweep ran on the closed database here and threw out of its timer.
  assert.doesNotThrow(() => mock.timers.tick(SWEEP_EVERY_MS * 3));
});
