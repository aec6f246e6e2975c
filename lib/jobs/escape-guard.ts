/*
 * Attribution of escaped errors. A job function runs inside an
 * AsyncLocalStorage scope, so every timer, immediate, nextTick, promise or
 * event-emitter callback it schedules carries that scope. When such a
 * callback throws (`uncaughtException`) or leaves a rejection unhandled
 * (`unhandledRejection`), the process listener finds the scope and fails
 * that job instead of letting the process die (SPEC.md §3.1: "The process
 * keeps running").
 *
 * Only a job that is still running absorbs an error. Anything the job
 * created (a socket, a lazily built pool) keeps its scope after the job has
 * finished; an error escaping there has no job left to fail, and the state
 * it leaves behind is unknown, so it is treated exactly like an error
 * outside any job.
 *
 * Errors outside any running job keep Node's default behaviour: when no other
 * listener exists, ours steps aside and re-raises, so an uncaught exception
 * still prints its stack and exits with code 1, and an unhandled rejection
 * is raised as an uncaught exception (Node's default `--unhandled-rejections=throw`
 * mode; other modes set on the command line are not reproduced while a
 * registry is running). When the application has listeners of its own they
 * see every error, including job errors, and decide.
 *
 * One pair of listeners serves every registry in the process; it is
 * installed when the first registry starts a job and removed when the last
 * such registry shuts down. Known gap: an exception thrown from a
 * `queueMicrotask` callback loses its async scope in Node 20 and is treated
 * as unrelated to any job.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What a job's async scope carries: how to fail that job. */
export interface JobScope {
  /**
   * Fails the job with an error that escaped one of its callbacks; returns
   * whether the job was still running (and so took the error). `false`
   * leaves the error to Node's default behaviour.
   */
  fail(error: unknown): boolean;
}

const scopes = new AsyncLocalStorage<JobScope>();
let holders = 0;
let installed = false;

/** Runs `fn` inside `scope`; callbacks it schedules inherit the scope. */
export function runInScope<T>(scope: JobScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/**
 * Installs the process listeners (once per process) and returns a release
 * function; the listeners are removed when every holder has released.
 * Releasing twice is harmless.
 */
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

// Throws `error` on a later tick, outside any job scope, so it cannot be
// attributed to a (finished) job a second time.
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
