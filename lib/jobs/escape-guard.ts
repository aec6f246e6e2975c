/*
 * Attribution of escaped errors: a job function runs inside an
 * AsyncLocalStorage scope, which every callback it schedules carries, so
 * an `uncaughtException` or `unhandledRejection` there fails that job
 * instead of killing the process (SPEC.md §3.1: "The process keeps
 * running"). Only a running job absorbs one: what a finished job left (a
 * socket, a pool) is in an unknown state, so its errors go as any error
 * outside a job. There Node's default holds: with no other listener ours
 * steps aside and re-raises (an unhandled rejection as an uncaught
 * exception, Node's `throw` mode); an application's own listeners see
 * every error and decide. One pair of listeners serves the process while
 * any registry runs jobs. Known gap: a `queueMicrotask` callback's throw
 * loses its scope in Node 20.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What a job's async scope carries: how to fail that job. */
export interface JobScope {
  /** Fails the job with an error that escaped one of its callbacks; false (it had finished) leaves the error to Node. */
  fail(error: unknown): boolean;
}

const scopes = new AsyncLocalStorage<JobScope>();
let holders = 0;
let installed = false;

/** Runs `fn` inside `scope`; callbacks it schedules inherit the scope. */
export function runInScope<T>(scope: JobScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** Installs the process listeners (once per process); returns the release (twice is harmless), which removes them after the last holder's. */
export function acquireEscapeGuard(): () => void {
  holders++;
  if (!installed) install();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holders--;
    if (holders === 0) uninstall();
  };
}

function install(): void {
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onRejection);
  installed = true;
}

function uninstall(): void {
  process.off("uncaughtException", onUncaught);
  process.off("unhandledRejection", onRejection);
  installed = false;
}

function othersListen(event: "uncaughtException" | "unhandledRejection"): boolean {
  return process.listenerCount(event) > (installed ? 1 : 0);
}

function onUncaught(error: unknown): void {
  if (scopes.getStore()?.fail(error) === true) return;
  if (othersListen("uncaughtException")) return;
  // Not a running job's and nobody else's: step aside and raise it again,
  // so Node prints it and exits exactly as it would without this listener.
  uninstall();
  raise(error);
}

function onRejection(reason: unknown): void {
  if (scopes.getStore()?.fail(reason) === true) return;
  if (othersListen("unhandledRejection")) return;
  // Node's default "throw" mode raises the rejection as an uncaught exception.
  raise(reason instanceof Error ? reason : new UnhandledRejection(reason));
}

// Throws `error` on a later tick, outside any job scope, so no (finished) job is blamed a second time.

function raise(error: unknown): void {
  scopes.exit(() =>
    process.nextTick(() => {
      throw error;
    }),
  );
}

class UnhandledRejection extends Error {
  override name: string = "UnhandledRejection";
  readonly code: string = "ERR_UNHANDLED_REJECTION";
  constructor(reason: unknown) {
    super(`unhandled rejection: a promise was rejected with a non-error value (${describe(reason)})`);
  }
}

function describe(value: unknown): string {
  try {
    return String(value);
  } catch {
    return typeof value;
  }
}
