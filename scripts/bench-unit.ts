/*
 * How the shipped unit (deploy/systemd/latch-demo.service) starts the demo,
 * read from its `ExecStart=`, so that (h) measures the cold start of the
 * deployment as shipped: its script under its node options. The unit
 * writes node's options as `--name=value` before the script; a command that
 * is not node is refused rather than measured as "shipped".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./bench-load.ts";

/** Where the unit expects the repository (WorkingDirectory=). */
const INSTALL_DIR = "/opt/latch-demo/";

/** The unit's node command: the options before the script, and the script as a path relative to the repository. */
export interface ShippedCommand {
  nodeFlags: string[];
  script: string;
}

/** Reads the demo unit's `ExecStart=`. */
export function shippedDemo(): ShippedCommand {
  const unit = readFileSync(join(ROOT, "deploy/systemd/latch-demo.service"), "utf8");
  const [command, ...args] = (/^ExecStart=(.*)$/m.exec(unit)?.[1] ?? "").trim().split(/\s+/);
  if (command === undefined || !command.endsWith("/node")) throw new Error("bench: latch-demo.service's ExecStart= does not run node");
  const at = args.findIndex((arg) => !arg.startsWith("--"));
  const script = args[at] ?? "";
  if (!script.startsWith(INSTALL_DIR)) throw new Error(`bench: latch-demo.service's script is not under ${INSTALL_DIR}: ${script}`);
  return { nodeFlags: args.slice(0, at), script: script.slice(INSTALL_DIR.length) };
}
