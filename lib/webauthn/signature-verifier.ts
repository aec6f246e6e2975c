/*
 * Signature checks off the event loop when ceremonies pile up (README
 * "Signature checks off the event loop"). Every path runs the same
 * `verifySignature`, so the answer never depends on where it ran.
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

type Pending = { resolve: (ok: boolean) => void; key: COSEPublicKey; data: Uint8Array; signature: Uint8Array };

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
