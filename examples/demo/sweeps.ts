/*
 * The demo's periodic sweeps (lapsed links, sessions, approvals, OAuth
 * grants): every ten minutes until the application stops. They run on the
 * database, so they must end when it closes: `Serve` stops them with the
 * rest (`Options.Stop`) and an embedding's `cleanup` does too; a sweep
 * firing on a closed database throws out of a timer and ends the process.
 */

/** How often the sweeps run. */
export const SWEEP_EVERY_MS: number = 10 * 60 * 1000;

/** Runs `sweep` every SWEEP_EVERY_MS until `stopped` aborts; the timer never keeps the process alive. */
export function sweepUntil(stopped: AbortSignal, sweep: () => void): void {
  const timer = setInterval(sweep, SWEEP_EVERY_MS);
  timer.unref();
  stopped.addEventListener("abort", () => clearInterval(timer), { once: true });
}
