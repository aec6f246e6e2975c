// The load generator: autocannon's programmatic API in its own process
// (scripts/bench-load.ts starts it pinned to the second core). Runs a
// warm-up, prints {"phase":"measure"} as the measured run starts, then one
// JSON line with the result and this process's own CPU use during it, so
// the report can show whether the server or the load generator saturated.
// A warm-up given several `paths` cycles through them on every connection;
// a duration of 0 runs the warm-up alone.
// Usage: node bench/cannon.mjs '{"url":..,"connections":..,"pipelining":..,"duration":..,"warmup":..,"paths":[..],"headers":{..}}'
import autocannon from "autocannon";

const opts = JSON.parse(process.argv[2] ?? "{}");
const base = { url: opts.url, connections: opts.connections, pipelining: opts.pipelining, headers: opts.headers ?? {} };
const requests = Array.isArray(opts.paths) ? opts.paths.map((path) => ({ method: "GET", path })) : undefined;

if (opts.warmup > 0) await autocannon({ ...base, duration: opts.warmup, ...(requests && { requests }) });
process.stdout.write(JSON.stringify({ phase: "measure" }) + "\n");
if (!(opts.duration > 0)) process.exit(0);
const cpu = process.cpuUsage();
const started = process.hrtime.bigint();
const r = await autocannon({ ...base, duration: opts.duration });
const used = process.cpuUsage(cpu);
const wall = Number(process.hrtime.bigint() - started) / 1e3;
process.stdout.write(
  JSON.stringify({
    phase: "done",
    rps: r.requests.average,
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    latencyMean: r.latency.average,
    errors: r.errors,
    timeouts: r.timeouts,
    s2xx: r["2xx"],
    s4xx: r["4xx"],
    other: r["1xx"] + r["3xx"] + r["5xx"],
    cpu: (used.user + used.system) / wall,
  }) + "\n",
);
