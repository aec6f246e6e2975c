/*
 * The platform activation contract (SPEC §4.4 `Run`, `Resolve`): `app
 * [--socket PATH | --addr HOST:PORT]` serves, `app sidecar run` runs
 * Options.Sidecar in a loop; the platform's arguments win over the
 * application's defaults, and a relative `DBPath` lives in `$STATE_DIRECTORY`
 * when it is set (else in the working directory, as given).
 */
import { basename, isAbsolute, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { bootDatabase } from "./database.ts";
import { HTTPError, newLogger, NewRef } from "../http/index.ts";
import type { Options } from "./options.ts";
import { Serve } from "./serve.ts";

/** Milliseconds between two sidecar passes. */
export const DEFAULT_SIDECAR_INTERVAL: number = 60_000;

/** The usage `--help` prints (`{app}` is the script's name). */
export const USAGE: string = `usage: {app} [--socket PATH | --addr HOST:PORT]   serve HTTP (default: the systemd socket, else :8080)
       {app} sidecar run                          run the sidecar pass in a loop until SIGTERM
       {app} --help                               print this help

environment: STATE_DIRECTORY (where a relative database path lives),
             LISTEN_FDS/LISTEN_PID (systemd socket activation)
`;

/** What the activation argv asks for. */
export interface Activation {
  mode: "serve" | "sidecar" | "help";
  socket: string | undefined;
  addr: string | undefined;
}

function argError(reason: string): HTTPError {
  return new HTTPError("ERR_HTTP_INVALID_OPTIONS", `argv: ${reason}`);
}

/** Parses the activation argv (without the node binary and script). */
export function parseActivation(argv: readonly string[]): Activation {
  if (argv[0] === "sidecar") {
    if (argv[1] !== "run" || argv.length !== 2) throw argError("expected exactly `sidecar run`");
    return { mode: "sidecar", socket: undefined, addr: undefined };
  }
  if (argv.includes("--help") || argv.includes("-h")) return { mode: "help", socket: undefined, addr: undefined };
  const out: Activation = { mode: "serve", socket: undefined, addr: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag !== "--socket" && flag !== "--addr") throw argError(`unknown argument ${JSON.stringify(flag)} (see --help)`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") throw argError(`${flag} needs a value`);
    if (flag === "--socket") out.socket = value;
    else out.addr = value;
  }
  if (out.socket !== undefined && out.addr !== undefined) throw argError("give at most one of --socket and --addr");
  return out;
}

/**
 * The application's state directory: the first entry of `$STATE_DIRECTORY`
 * (systemd's StateDirectory= sets a colon-separated list), or undefined
 * when it is unset or empty. A relative `DBPath` lives there (`Resolve`);
 * an application keeping other files beside its database reads it here.
 */
export function StateDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const first = (env["STATE_DIRECTORY"] ?? "").split(":")[0] ?? "";
  return first === "" ? undefined : first;
}

/**
 * Applies the activation argv and `$STATE_DIRECTORY` to `opts` without
 * serving. Use it with `Serve` when the application opens its own database
 * from the resolved `DBPath` (then blanks `DBPath` and passes `DB`).
 */
export function Resolve(opts: Options, argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Options {
  const activation = parseActivation(argv);
  const resolved: Options = { ...opts };
  if (activation.socket !== undefined) {
    resolved.Socket = activation.socket;
    delete resolved.Addr;
  }
  if (activation.addr !== undefined) {
    resolved.Addr = activation.addr;
    delete resolved.Socket;
  }
  const state = StateDirectory(env);
  if (resolved.DBPath && resolved.DBPath !== ":memory:" && !isAbsolute(resolved.DBPath) && state !== undefined) {
    resolved.DBPath = join(state, resolved.DBPath);
  }
  return resolved;
}

/**
 * Resolves the platform's activation argv, then serves (or, under
 * `sidecar run`, runs the sidecar loop). The framework owns the database.
 * `--help` prints `USAGE` on stdout and returns; a bad argument prints the
 * reason and the usage on stderr and returns with exit code 2 (a person
 * at a terminal needs the usage, not a stack trace).
 */
export async function Run(opts: Options): Promise<void> {
  const app = basename(process.argv[1] ?? "app");
  let activation: Activation;
  try {
    activation = parseActivation(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE.replaceAll("{app}", app)}`);
    process.exitCode = 2;
    return;
  }
  if (activation.mode === "help") {
    process.stdout.write(USAGE.replaceAll("{app}", app));
    return;
  }
  const resolved = Resolve(opts);
  if (activation.mode === "serve") return Serve(resolved);
  return runSidecar(resolved);
}

async function runSidecar(opts: Options): Promise<void> {
  const logger = opts.Logger ?? newLogger();
  const pass = opts.Sidecar;
  if (pass === undefined) throw argError("sidecar run, but Options.Sidecar is not set");
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  const { db, close } = bootDatabase(opts);
  try {
    logger.info("sidecar started");
    while (!stop.signal.aborted) {
      try {
        await pass(db, stop.signal);
      } catch (err) {
        logger.error("sidecar pass failed", { ref: NewRef(), error: err });
      }
      await sleep(opts.SidecarInterval ?? DEFAULT_SIDECAR_INTERVAL, undefined, { signal: stop.signal }).catch(() => {});
    }
    logger.info("sidecar stopped");
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    close();
  }
}
