/*
 * Running one job function: at once (no queued state, SPEC.md §3.1), inside
 * its own escape scope; its result is observed on a later microtask, so
 * `Start` always hands back a `Running` snapshot. Every outcome reaches
 * exactly one hook; once the job has finished, an escaped error goes to
 * Node and a late rejection of its own promise to `late`.
 */
import { runInScope } from "./escape-guard.ts";
import { cleanText, errorText, MAX_PROGRESS_LENGTH } from "./job.ts";

/**
 * A job function. It should stop when `signal` aborts (timeout, shutdown);
 * `progress` replaces the job's progress text (cut to `MAX_PROGRESS_LENGTH`,
 * control characters removed). A thrown error or rejected promise fails the
 * job with the error's message as `Err`.
 */
export type JobFunc = (signal: AbortSignal, progress: (text: string) => void) => unknown;

/** Where a launched job reports. */
export interface LaunchHooks {
  /** New progress text, already cleaned. */
  progress(text: string): void;
  /** The function finished without error. */
  done(): void;
  /** The function threw, rejected, or a callback of its escaped an error; returns whether the job was running and is now failed. */
  fail(text: string, error: unknown): boolean;
  /** The function's own promise rejected after the job had already finished (timeout, shutdown). */
  late(error: unknown): void;
}

/** Calls `fn` now, inside a job scope, and routes every outcome to `hooks`. */
export function launchJob(fn: JobFunc, signal: AbortSignal, hooks: LaunchHooks): void {
  const progress = (text: string): void => {
    if (typeof text === "string") hooks.progress(cleanText(text, MAX_PROGRESS_LENGTH));
  };

  const fail = (error: unknown): boolean => hooks.fail(errorText(error), error);
  let result: unknown;
  try {
    result = runInScope({ fail }, () => fn(signal, progress));
  } catch (error) {
    result = Promise.reject(error);
  }
  Promise.resolve(result).then(
    () => hooks.done(),
    (error: unknown) => {
      if (!fail(error)) hooks.late(error);
    },
  );
}
