/*
 * The demo's periodic sweeps (lapsed links, sessions, approvals, OAuth
 * grants): every ten minutes until the application stops; the waiting-call
 * notices every minute. They run on the
 * database, so they must end when it closes: `Serve` stops them with the
 * rest (`Options.Stop`) and an embedding's `cleanup` does too; a sweep
 * firing on a closed database throws out of a timer and ends the process.
 */
import type { Logger } from "../../lib/http/index.ts";

/** How often the sweeps run. */
export const SWEEP_EVERY_MS: number = 10 * 60 * 1000;

/**
 * Runs `sweep` every `every` ms (SWEEP_EVERY_MS unless a sweep needs less) until `stopped` aborts, logging a failure;
 * the timer never keeps the process alive. Each component's `Sweep` deletes in bounded steps and leaves the event loop
 * to requests between them.
 */
export function sweepUntil(stopped: AbortSignal, logger: Logger, sweep: () => Promise<unknown>, every: number = SWEEP_EVERY_MS): void {
  const timer = setInterval(() => sweep().catch((error: unknown) => logger.error("sweep failed", { error })), every);
  timer.unref();
  stopped.addEventListener("abort", () => clearInterval(timer), { once: true });
}
