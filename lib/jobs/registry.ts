/*
 * The in-memory job registry (SPEC.md §2.8, §3.1): a restart forgets every
 * job. An entry's `job` is a frozen snapshot replaced on every change;
 * `#running` counts an owner's `Running` entries, so a job leaves the count
 * the moment it leaves `Running` (by timeout too, even when its function
 * runs on). Running jobs are never evicted (`maxRunning` caps them).
 */
import { cryptoRandom, systemClock, type Clock, type Logger, type RandomReader } from "../http/index.ts";
import { countProblem, durationProblem } from "../internal/index.ts";
import { acquireEscapeGuard } from "./escape-guard.ts";
import { ErrOwnerBusy, JobsError } from "./errors.ts";
import { FinishedCap } from "./finished-cap.ts";
import { Status, type Job } from "./job.ts";
import { launchJob, type JobFunc } from "./launch.ts";
import { checkLocation } from "./location.ts";

/** Running jobs allowed per owner (SPEC.md §8). */
export const MAX_RUNNING_PER_OWNER = 4;

/** Longest a job may run before it fails and its signal aborts: 15 minutes (SPEC.md §8), in ms. */
export const MAX_RUNTIME: number = 15 * 60 * 1000;

/** How long a finished job stays readable before it is forgotten: 1 hour, in ms. */
export const DEFAULT_RETENTION: number = 60 * 60 * 1000;

/** Finished jobs kept per owner: past this, the one that finished first is forgotten at once, so failing jobs cannot pile up an hour of records. */
export const MAX_FINISHED_PER_OWNER = 20;

/** Options of `Start`. */
export interface StartOptions {
  /** Local path (starting with one `/`) where the owner lands on success; empty keeps them on the status page. @default "" */
  Location?: string;
}

/** Options of `Registry`. */
export interface RegistryOptions {
  /** Source of `StartedAt` and `FinishedAt`. @default systemClock */
  clock?: Clock;
  /** Source of job ids. @default cryptoRandom */
  random?: RandomReader;
  /** Running jobs allowed per owner. @default MAX_RUNNING_PER_OWNER */
  maxRunning?: number;
  /** Maximum run time in ms, enforced with `setTimeout`. @default MAX_RUNTIME */
  maxRuntime?: number;
  /** How long a finished job stays readable, in ms, enforced with `setTimeout`. @default 3600000 (1 hour) */
  retention?: number;
  /** Finished jobs kept per owner; the earliest finished is forgotten first. @default 20 */
  maxFinished?: number;
}

/** Called with the new snapshot when a job changes, and with `undefined` when it is forgotten. */
export type JobListener = (job: Job | undefined) => void;

interface Entry {
  job: Job;
  readonly controller: AbortController;
  readonly listeners: Set<JobListener>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Holds the jobs of this process. Construct one per application, with a
 * logger (SPEC.md §2.8: the registry is unusable without one).
 *
 * @example
 * const jobs = new Registry(logger);
 * const job = jobs.Start(subject, "export", async (signal, progress) => {
 *   progress("1/2");
 *   await exportAll(signal);
 * }, { Location: "/exports" });
 * res.writeHead(303, { Location: `/jobs/${job.ID}` }).end();
 */
export class Registry {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #maxRunning: number;
  readonly #maxRuntime: number;
  readonly #retention: number;
  readonly #entries = new Map<string, Entry>();
  readonly #running = new Map<string, number>();
  readonly #finished: FinishedCap<Entry>;
  #release: (() => void) | undefined;
  #shut = false;

  /** Throws `JobsError` (`ERR_JOBS_INVALID_CONFIG`) when `logger` is missing or an option is out of range (counts: whole numbers from 1; durations: above 0 and at most `MAX_TIMER_MS`). */
  constructor(logger: Logger, options: RegistryOptions = {}) {
    if (typeof logger !== "object" || logger === null || typeof logger.error !== "function") {
      throw new JobsError("ERR_JOBS_INVALID_CONFIG", "new registry: a logger is required");
    }
    this.#logger = logger;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? cryptoRandom;
    this.#maxRunning = checked("maxRunning", options.maxRunning ?? MAX_RUNNING_PER_OWNER, countProblem);
    this.#maxRuntime = checked("maxRuntime", options.maxRuntime ?? MAX_RUNTIME, durationProblem);
    this.#retention = checked("retention", options.retention ?? DEFAULT_RETENTION, durationProblem);
    this.#finished = new FinishedCap(options.maxFinished ?? MAX_FINISHED_PER_OWNER);
  }

  /**
   * Starts `fn` at once and returns the `Running` snapshot. `fn` receives a
   * signal that aborts on timeout, on shutdown and once the job has finished,
   * and a progress callback. Throws `ErrOwnerBusy` when `owner` already has
   * `maxRunning` running jobs, `JobsError` for a bad argument or after `Shutdown`.
   */
  Start(owner: string, name: string, fn: JobFunc, options: StartOptions = {}): Job {
    if (this.#shut) throw new JobsError("ERR_JOBS_SHUT_DOWN", "start job: the registry is shut down");
    if (typeof owner !== "string" || owner === "") throw invalid("start job: owner must be a non-empty string");
    if (typeof name !== "string") throw invalid("start job: name must be a string");
    if (typeof fn !== "function") throw invalid("start job: fn must be a function");
    const location = checkLocation(options.Location ?? "");
    // SPEC.md §3.1: at most 4 running jobs per owner; the fifth is refused.
    const count = this.#running.get(owner) ?? 0;
    if (count >= this.#maxRunning) throw new ErrOwnerBusy(owner, this.#maxRunning);

    const entry: Entry = {
      job: Object.freeze({
        ID: this.#newID(),
        Owner: owner,
        Name: name,
        Status: Status.Running,
        Progress: "",
        Err: "",
        Location: location,
        StartedAt: this.#clock.now(),
        FinishedAt: undefined,
      }),
      controller: new AbortController(),
      listeners: new Set(),
      timer: undefined,
    };
    this.#entries.set(entry.job.ID, entry);
    this.#running.set(owner, count + 1);
    this.#release ??= acquireEscapeGuard();
    // SPEC.md §3.1: after 15 minutes the job fails and its signal aborts at that moment.
    entry.timer = setTimeout(() => this.#timeout(entry), this.#maxRuntime).unref();
    launchJob(fn, entry.controller.signal, {
      progress: (text) => this.#update(entry, { Progress: text }),
      done: () => this.#finish(entry, Status.Done, ""),
      fail: (text, error) => this.#fail(entry, text, error),
      late: (error) => this.#logger.warn("job error after it finished", { job: entry.job.ID, name: entry.job.Name, error }),
    });
    return entry.job;
  }

  /** Returns the job when it exists and belongs to `owner`; a wrong owner and an unknown id look the same (SPEC.md §4.3). */
  Get(id: string, owner: string): Job | undefined {
    return this.#lookup(id, owner)?.job;
  }

  /**
   * Calls `listener` on every change of the job and once with `undefined`
   * when it is forgotten. Returns the unsubscribe function, or `undefined`
   * when the job is unknown or not `owner`'s.
   */
  Subscribe(id: string, owner: string, listener: JobListener): (() => void) | undefined {
    const entry = this.#lookup(id, owner);
    if (entry === undefined) return undefined;
    entry.listeners.add(listener);
    return () => void entry.listeners.delete(listener);
  }

  /**
   * Stops the registry: running jobs fail and their signals abort, every job
   * is forgotten (subscribers receive `undefined`), `Start` throws from now on
   * and the process listeners for escaped errors are released. Idempotent.
   */
  Shutdown(): void {
    if (this.#shut) return;
    this.#shut = true;
    const reason = new JobsError("ERR_JOBS_SHUT_DOWN", "run job: stopped by shutdown");
    for (const entry of this.#entries.values()) {
      clearTimeout(entry.timer);
      if (entry.job.Status === Status.Running) {
        entry.job = finished(entry.job, Status.Failed, reason.message, this.#clock.now());
        entry.controller.abort(reason);
      }
      this.#notify(entry, undefined);
    }
    this.#entries.clear();
    this.#running.clear();
    this.#finished.clear();
    this.#release?.();
  }

  #lookup(id: string, owner: string): Entry | undefined {
    if (typeof id !== "string" || typeof owner !== "string") return undefined;
    const entry = this.#entries.get(id);
    return entry !== undefined && entry.job.Owner === owner ? entry : undefined;
  }

  #newID(): string {
    for (;;) {
      const id = Buffer.from(this.#random.read(16)).toString("base64url");
      if (!this.#entries.has(id)) return id;
    }
  }

  #update(entry: Entry, change: { Progress: string }): void {
    if (entry.job.Status !== Status.Running || this.#entries.get(entry.job.ID) !== entry) return;
    if (entry.job.Progress === change.Progress) return;
    entry.job = Object.freeze({ ...entry.job, ...change });
    this.#notify(entry, entry.job);
  }

  #timeout(entry: Entry): void {
    const minutes = Math.round(this.#maxRuntime / 60000);
    const reason = new JobsError("ERR_JOBS_TIMEOUT", `run job: exceeded the maximum run time (${minutes} min)`);
    if (this.#finish(entry, Status.Failed, reason.message, reason))
      this.#logger.warn("job timed out", { job: entry.job.ID, name: entry.job.Name });
  }

  // Fails a running job; reports whether it was running. An error escaping a finished job is not absorbed: the escape guard lets Node handle it.
  #fail(entry: Entry, text: string, error: unknown): boolean {
    const failed = this.#finish(entry, Status.Failed, text, undefined);
    if (failed) this.#logger.warn("job failed", { job: entry.job.ID, name: entry.job.Name, error });
    return failed;
  }

  // Moves a running job to its final state; reports whether it did.
  #finish(entry: Entry, status: Status, err: string, abortReason?: unknown): boolean {
    if (entry.job.Status !== Status.Running || this.#entries.get(entry.job.ID) !== entry) return false;
    clearTimeout(entry.timer);
    const owner = entry.job.Owner;
    const left = (this.#running.get(owner) ?? 1) - 1;
    if (left > 0) this.#running.set(owner, left);
    else this.#running.delete(owner);
    entry.job = finished(entry.job, status, err, this.#clock.now());
    entry.controller.abort(abortReason ?? new JobsError("ERR_JOBS_SHUT_DOWN", "run job: the job has finished"));
    entry.timer = setTimeout(() => this.#forget(entry), this.#retention).unref();
    this.#notify(entry, entry.job);
    for (const evicted of this.#finished.add(owner, entry)) this.#forget(evicted);
    return true;
  }

  #forget(entry: Entry): void {
    if (this.#entries.get(entry.job.ID) !== entry) return;
    clearTimeout(entry.timer);
    this.#entries.delete(entry.job.ID);
    this.#finished.delete(entry.job.Owner, entry);
    this.#notify(entry, undefined);
  }

  #notify(entry: Entry, job: Job | undefined): void {
    for (const listener of [...entry.listeners]) {
      try {
        listener(job);
      } catch (error) {
        this.#logger.error("job listener threw", { job: entry.job.ID, error });
      }
    }
    if (job === undefined) entry.listeners.clear();
  }
}

function finished(job: Job, status: Status, err: string, at: Date): Job {
  return Object.freeze({ ...job, Status: status, Err: err, FinishedAt: at });
}

function checked(name: string, value: number, problem: (value: unknown) => string | undefined): number {
  const why = problem(value);
  if (why !== undefined) throw new JobsError("ERR_JOBS_INVALID_CONFIG", `new registry: ${name} ${why}`);
  return value;
}

function invalid(message: string): JobsError {
  return new JobsError("ERR_JOBS_INVALID_ARGUMENT", message);
}
