/*
 * Signature checks off the event loop when ceremonies pile up. One
 * @noble/curves ECDSA or EdDSA check costs 2-3 ms of CPU; a burst of sign-ins
 * verified on the event loop stalls every other request for that long each.
 *
 * `SignatureVerifier.verify` runs the check on the event loop while the
 * load is low: up to `inThreadPerSecond` checks in the current second, which
 * bounds the stall to about 30 ms a second by default and keeps a lone
 * sign-in free of a thread hop. Beyond that, checks go to a small pool of
 * worker threads running the same `verifySignature` (signature-worker.ts),
 * started on first need. RSA keys (node:crypto, already fast) and any
 * failure to start or reach a worker fall back to the event loop, so the
 * answer never depends on the path: the same function decides it.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { COSEPublicKey } from "./cose.ts";
import { verifySignature } from "./signature.ts";

/** Signature checks per second run on the event loop before the rest go to workers. */
export const IN_THREAD_PER_SECOND = 10;

/** Worker threads at most (fewer on a machine with fewer cores: one core stays the event loop's). */
export const MAX_VERIFY_WORKERS = 2;

/** Options of `SignatureVerifier`. */
export interface SignatureVerifierOptions {
  /** Checks per second on the event loop; 0 sends every EC and EdDSA check to the workers. @default 10 (IN_THREAD_PER_SECOND) */
  inThreadPerSecond?: number;
  /** Worker threads; 0 keeps every check on the event loop. @default min(2 (MAX_VERIFY_WORKERS), cores - 1), at least 1 */
  workers?: number;
}

interface Pending {
  resolve: (ok: boolean) => void;
  key: COSEPublicKey;
  data: Uint8Array;
  signature: Uint8Array;
}

/** Verifies signatures on the event loop under low load, on worker threads above it. */
export class SignatureVerifier {
  readonly #inThreadPerSecond: number;
  readonly #size: number;
  readonly #workers: Worker[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #second = 0;
  #inThisSecond = 0;
  #broken = false;

  constructor(options: SignatureVerifierOptions = {}) {
    this.#inThreadPerSecond = options.inThreadPerSecond ?? IN_THREAD_PER_SECOND;
    this.#size = options.workers ?? Math.max(1, Math.min(MAX_VERIFY_WORKERS, availableParallelism() - 1));
  }

  /** Resolves whether `signature` is valid over `data` by `key`; the answer `verifySignature` gives. Never rejects. */
  verify(key: COSEPublicKey, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
    if (key.kty === "RSA" || this.#size === 0 || this.#broken || this.#underBudget()) {
      return Promise.resolve(verifySignature(key, data, signature));
    }
    const id = this.#next++;
    const worker = this.#worker(id);
    if (worker === undefined) return Promise.resolve(verifySignature(key, data, signature));
    return new Promise((resolve) => {
      this.#pending.set(id, { resolve, key, data, signature });
      worker.postMessage({ id, key, data, signature });
    });
  }

  /** Worker threads running now (0 until the first check beyond the in-thread budget). */
  get threads(): number {
    return this.#workers.length;
  }

  /** Stops the workers; checks still waiting are answered on the event loop. */
  async close(): Promise<void> {
    this.#broken = true;
    const workers = this.#workers.splice(0);
    await Promise.all(workers.map((w) => w.terminate()));
    this.#drainInThread();
  }

  #underBudget(): boolean {
    const second = Math.floor(performance.now() / 1000);
    if (second !== this.#second) {
      this.#second = second;
      this.#inThisSecond = 0;
    }
    return this.#inThisSecond++ < this.#inThreadPerSecond;
  }

  #worker(id: number): Worker | undefined {
    const index = id % this.#size;
    const known = this.#workers[index];
    if (known !== undefined) return known;
    try {
      const worker = new Worker(new URL("./signature-worker.js", import.meta.url));
      // The pool never keeps the process alive: an idle process may exit.
      worker.unref();
      worker.on("message", (m: { id: number; ok: boolean }) => {
        const job = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        job?.resolve(m.ok === true);
      });
      worker.on("error", () => this.#fail());
      worker.on("exit", () => this.#fail());
      this.#workers[index] = worker;
      return worker;
    } catch {
      this.#broken = true;
      return undefined;
    }
  }

  // A worker that fails or exits takes the pool down: from now on every check runs on the event loop.
  #fail(): void {
    if (this.#broken && this.#pending.size === 0) return;
    this.#broken = true;
    for (const w of this.#workers.splice(0)) void w.terminate();
    this.#drainInThread();
  }

  #drainInThread(): void {
    for (const [id, job] of this.#pending) {
      this.#pending.delete(id);
      job.resolve(verifySignature(job.key, job.data, job.signature));
    }
  }
}
