/*
 * Keeps V8's young generation at its initial size for the demo's process
 * (main.ts calls this first). Under an allocation burst (10,000 event
 * streams opening) V8 grows it to 2 x 16 MB and keeps it: up to 3 KB of RSS
 * per held stream that no stream uses (BENCHMARKS.md (f): 11.8-12.7 KB per
 * stream under the defaults, 9.3-9.5 KB with this setting).
 *
 * Why not `--max-semi-space-size=2` in the unit's command line: on Node 20
 * a heap size flag there costs every cold start 20 ms (a bare server) to
 * 50 ms (the demo), and a `--import` preload 25 ms; a socket-activated
 * process pays it on its first visitor (BENCHMARKS.md (h)). The growth
 * factor, set here once the process runs, costs nothing measurable: V8 reads
 * it each time it would grow the young generation, so 1 means "never grow".
 * (Setting the maximum size at run time does nothing: V8 reads it once, when
 * it creates the heap.)
 */
import { setFlagsFromString } from "node:v8";

/** Tells V8 never to grow the young generation; call it once, at start. */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
}
