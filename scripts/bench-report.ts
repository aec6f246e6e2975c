/*
 * Plain-text tables and ratio lines for `npm run bench`. Numbers only:
 * the orchestrator (bench.ts) decides what is measured.
 */
import type { Measurement } from "./bench-load.ts";
import type { PasskeyBench } from "./bench-passkey.ts";

/** One server's measurement in one scenario. */
export interface Row {
  label: string;
  m: Measurement;
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
}

/** Formats a number of requests or operations per second with thousands separators. */
export function fmt(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** Formats a ratio as "0.93x". */
export function ratio(a: number, b: number): string {
  return b === 0 ? "n/a" : `${(a / b).toFixed(2)}x`;
}

function pct(v: number | undefined): string {
  return v === undefined ? "?" : `${Math.round(v * 100)}%`;
}

/**
 * Requests per second of server CPU: throughput divided by the share of a
 * core the server actually got, which other processes on the machine
 * cannot inflate or deflate much. 0 when the CPU use is unknown.
 */
export function perCPU(m: Measurement): number {
  return m.serverCPU === undefined || m.serverCPU === 0 ? 0 : m.rps / m.serverCPU;
}

/** Formats one scenario's rows as a table with ratio columns against `baseline`. */
export function table(title: string, rows: Row[], baseline: string): string {
  const base = rows.find((r) => r.label === baseline)?.m;
  const widths = [18, 9, 7, 7, 10, 10, 10, 8, 8, 5];
  const head = pad(
    ["server", "req/s", "p50 ms", "p99 ms", `x ${baseline.slice(0, 8)}`, "req/cpu-s", "x (cpu)", "srv cpu", "gen cpu", "bad"],
    widths,
  );
  const lines = rows.map((r) =>
    pad(
      [
        r.label,
        fmt(r.m.rps),
        String(r.m.p50),
        String(r.m.p99),
        ratio(r.m.rps, base?.rps ?? 0),
        fmt(perCPU(r.m)),
        base === undefined ? "n/a" : ratio(perCPU(r.m), perCPU(base)),
        pct(r.m.serverCPU),
        pct(r.m.loadCPU),
        String(r.m.bad),
      ],
      widths,
    ),
  );
  return [title, head, ...lines].join("\n");
}

/** Formats the passkey results. */
export function passkeyTable(results: PasskeyBench[]): string {
  const widths = [9, 14, 14, 14, 20];
  const head = pad(["alg", "latch full/s", "latch sig/s", "node:crypto/s", "ours / node:crypto"], widths);
  const lines = results.map((r) =>
    pad(
      [
        r.alg,
        fmt(r.fullPerSec),
        fmt(r.signaturePerSec),
        fmt(r.nodePerSec),
        `${ratio(r.fullPerSec, r.nodePerSec)} (sig ${ratio(r.signaturePerSec, r.nodePerSec)})`,
      ],
      widths,
    ),
  );
  return [
    "(e) passkey assertion verification, in-process (full = parse + verifyAuthentication; sig = verifySignature only)",
    head,
    ...lines,
  ].join("\n");
}

/** A target check line: "ok" or "MISS" with the numbers. */
export function target(what: string, value: number, threshold: number): string {
  return `${value >= threshold ? "ok  " : "MISS"}  ${what}: ${value.toFixed(2)}x (target >= ${threshold.toFixed(2)}x)`;
}
