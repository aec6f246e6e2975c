// The per-owner cap on finished jobs: recording one more hands back the owner's earliest finished ones for the registry to forget at once.
import { countProblem } from "../internal/index.ts";
import { JobsError } from "./errors.ts";

/** Finished items of each owner, in the order they finished, at most `max` per owner. */
export class FinishedCap<T> {
  readonly #max: number;
  readonly #byOwner = new Map<string, Set<T>>();

  /** Throws `JobsError` (`ERR_JOBS_INVALID_CONFIG`) unless `max` is a positive integer. */
  constructor(max: number) {
    const why = countProblem(max);
    if (why !== undefined) throw new JobsError("ERR_JOBS_INVALID_CONFIG", `new registry: maxFinished ${why}`);
    this.#max = max;
  }

  /** Records `item` as `owner`'s latest finished one; returns those now past the cap, earliest first. */
  add(owner: string, item: T): T[] {
    let kept = this.#byOwner.get(owner);
    if (kept === undefined) this.#byOwner.set(owner, (kept = new Set()));
    kept.add(item);
    const evicted: T[] = [];
    for (const oldest of kept) {
      if (kept.size - evicted.length <= this.#max) break;
      evicted.push(oldest);
    }
    for (const gone of evicted) kept.delete(gone);
    return evicted;
  }

  /** Drops `item` (forgotten at the end of its retention, or evicted). */
  delete(owner: string, item: T): void {
    const kept = this.#byOwner.get(owner);
    if (kept?.delete(item) === true && kept.size === 0) this.#byOwner.delete(owner);
  }

  /** Drops everything (registry shutdown). */
  clear(): void {
    this.#byOwner.clear();
  }
}
