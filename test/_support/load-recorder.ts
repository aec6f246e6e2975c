/*
 * A module-load recorder for test/supply/runtime-set.test.ts, preloaded
 * into the demo's process with `--import`: it appends every file the
 * process resolves (import, require(), require() of an ES module and its
 * imports, native .node files) to the file named by LATCH_LOAD_LOG, one
 * path a line. It uses module.registerHooks (Node 22.15 and later), whose
 * hooks run in the thread that loads, for require() as for import; worker
 * threads inherit the --import, so the passkey signature worker is
 * recorded too.
 */
import { appendFileSync } from "node:fs";
import * as module from "node:module";
import { fileURLToPath } from "node:url";

type Resolved = { url: string };
type Hooks = { resolve(specifier: string, context: unknown, next: (specifier: string, context: unknown) => Resolved): Resolved };

/** module.registerHooks where this Node has it. */
export const registerHooks: ((hooks: Hooks) => void) | undefined = (module as { registerHooks?: (hooks: Hooks) => void }).registerHooks;

const log = process.env["LATCH_LOAD_LOG"];
if (log !== undefined && registerHooks !== undefined) {
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      if (resolved.url.startsWith("file:")) appendFileSync(log, `${fileURLToPath(resolved.url)}\n`);
      return resolved;
    },
  });
}
