/*
 * (n) A CSV import of 10⁵ rows (issue 43, 6; lib/manifest README "Import"): over HTTP in one process, `mountResource`'s
 * own routes: the file (written to disk first, a row at a time) is uploaded as multipart/form-data from disk, previewed
 * (every row read and checked), confirmed, and imported by its job through `MountedResource.For`, IMPORT_BATCH rows per
 * transaction. Each size runs in a child process of its own (a fresh heap), printing rows per second for the upload
 * with its preview and for the job, and the peak memory: the process's RSS high-water (`resourceUsage().maxRSS`) above
 * what it held before the upload, and the live V8 heap's high-water (collected, then sampled, every 100 ms). The parent runs 10⁴ and 10⁵ rows
 * and prints the ratio of the peaks: about 1 when memory is flat in the file's size. Not a test (no threshold):
 *
 *   node dist/scripts/bench-import.js [--json]            both sizes (`npm run bench` runs it as (n))
 *   node dist/scripts/bench-import.js --rows 100000       one size, JSON (what the parent spawns)
 */
import { spawn } from "node:child_process";
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, request, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { AgentTokens, Schema as AgentSchema, ToolRegistry, verifyBearer } from "../lib/agent/index.ts";
import { applySchema, OpenDB } from "../lib/db/index.ts";
import { EventStore, Schema as EventsSchema } from "../lib/events/index.ts";
import { discardLogger } from "../lib/http/index.ts";
import { Registry, Status } from "../lib/jobs/index.ts";
import { Kind, mountResource, Resource, ScopeKind, StoreKind } from "../lib/manifest/index.ts";
import { IMPORT_BATCH } from "../lib/manifest/import-rows.ts";
import { Mux } from "../lib/router/index.ts";

/** One size's measurement. */
export interface ImportRun {
  rows: number;
  bytes: number;
  /** Rows per second of the upload with its preview, and of the job. */
  previewRowsPerSecond: number;
  importRowsPerSecond: number;
  /** MB of RSS high-water above the process before the upload; MB of the live heap's sampled high-water. */
  peakRSSGrowthMB: number;
  peakHeapMB: number;
}

/** Both sizes and the ratios of their peaks. */
export interface ImportBench {
  runs: ImportRun[];
  rssRatio: number;
  heapRatio: number;
}

const BOUNDARY = "----latch-bench-import";
const MB = 1024 * 1024;

/** Measures an import of `rows` rows in this process. */
async function measureOne(rows: number): Promise<ImportRun> {
  const dir = mkdtempSync(join(tmpdir(), "latch-bench-import-"));
  const db = OpenDB(join(dir, "bench.db"));
  applySchema(db, [...EventsSchema, ...AgentSchema]);
  const tokens = new AgentTokens(db);
  const person = "ada@example.com";
  const { Token } = tokens.mint({ Subject: person, Name: "bench", Access: "read" });
  const jobs = new Registry(discardLogger);
  const mux = new Mux();
  const origin = "http://bench.test";
  mountResource(
    new Resource({
      Name: "ledger",
      Route: "/ledger",
      Store: StoreKind.Exclusive,
      Scope: ScopeKind.UserScoped,
      List: { Columns: [{ Field: "label" }] },
      Form: {
        Fields: [
          { Name: "label", Label: "ledger.label", Kind: Kind.Text, Required: true },
          { Name: "amount", Label: "ledger.amount", Kind: Kind.Money, Currency: "EUR" },
          { Name: "spent_on", Label: "ledger.spent_on", Kind: Kind.Date },
          {
            Name: "category",
            Label: "ledger.category",
            Kind: Kind.Choice,
            Choices: [
              { Value: "travel", Label: "t" },
              { Value: "meals", Label: "m" },
            ],
          },
        ],
      },
    }),
    {
      db,
      mux,
      tools: new ToolRegistry(),
      events: new EventStore(db),
      origin,
      requireSession: (next) => async (req, res) => {
        await verifyBearer(req, tokens);
        await next(req, res);
      },
      ctxFrom: () => ({ Render: (_req: IncomingMessage, res, _view, data) => void res.end(String((data as { Body: unknown }).Body)) }),
      imports: { directory: join(dir, "imports"), jobs },
    },
  );
  // The file, written a row at a time: never whole in this process either.
  const file = join(dir, "ledger.csv");
  const out = createWriteStream(file);
  out.write("\uFEFFid,label,amount,spent_on,category,created_at,updated_at\r\n");
  for (let i = 0; i < rows; i++) {
    const line = `,"Row ${i}, =not a formula",${(i % 997) + 0.25},2026-0${(i % 9) + 1}-1${i % 10},${i % 2 === 0 ? "travel" : "meals"},,\r\n`;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  const bytes = statSync(file).size;
  const server = createServer((req, res) => void mux.ServeHTTP(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const send = (path: string, type: string, length: number, body: (r: ReturnType<typeof request>) => void): Promise<IncomingMessage> =>
    new Promise((resolve, reject) => {
      const headers = { Authorization: `Bearer ${Token}`, Origin: origin, "Content-Type": type, "Content-Length": String(length) };
      const req = request({ host: "127.0.0.1", port, path, method: "POST", headers }, (res) => resolve(res.resume()));
      req.on("error", reject);
      body(req);
    });

  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let heap = 0;
  // The live heap: collected first (--expose-gc), so what is counted is what the import holds, not garbage not yet collected.
  const sampler = setInterval(() => {
    globalThis.gc?.();
    heap = Math.max(heap, process.memoryUsage().heapUsed);
  }, 100);
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="ledger.csv"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const started = process.hrtime.bigint();
  const uploaded = await send("/ledger/import", `multipart/form-data; boundary=${BOUNDARY}`, head.length + bytes + tail.length, (req) => {
    req.write(head);
    const source = createReadStream(file);
    source.pipe(req, { end: false });
    source.on("end", () => req.end(tail));
  });
  const previewed = process.hrtime.bigint();
  const upload = /upload=([\w-]+)/.exec(uploaded.headers.location ?? "")?.[1];
  if (uploaded.statusCode !== 303 || upload === undefined) throw new Error(`upload: ${uploaded.statusCode}`);
  const form = `upload=${upload}`;
  const confirmed = await send("/ledger/import/confirm", "application/x-www-form-urlencoded", form.length, (req) => req.end(form));
  const job = (confirmed.headers.location ?? "").split("/").pop() ?? "";
  while (jobs.Get(job, person)?.Status === Status.Running) await new Promise((turn) => setTimeout(turn, 5));
  const finished = process.hrtime.bigint();
  clearInterval(sampler);
  const done = jobs.Get(job, person);
  const imported = db.prepare("SELECT count(*) FROM ledger").pluck().get();
  if (done?.Status !== Status.Done || imported !== rows) throw new Error(`import: ${done?.Status} ${done?.Err}, ${String(imported)} rows`);
  const result: ImportRun = {
    rows,
    bytes,
    previewRowsPerSecond: rows / (Number(previewed - started) / 1e9),
    importRowsPerSecond: rows / (Number(finished - previewed) / 1e9),
    peakRSSGrowthMB: (process.resourceUsage().maxRSS * 1024 - before) / MB,
    peakHeapMB: heap / MB,
  };
  server.close();
  jobs.Shutdown();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

/** Runs 10⁴ and 10⁵ rows, each in its own process. */
export async function benchImport(sizes: readonly number[] = [10_000, 100_000]): Promise<ImportBench> {
  const runs: ImportRun[] = [];
  for (const rows of sizes) {
    const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--rows", String(rows)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    if (code !== 0) throw new Error(`bench-import --rows ${rows} exited ${code}`);
    runs.push(JSON.parse(out) as ImportRun);
  }
  const [small, large] = [runs[0]!, runs[runs.length - 1]!];
  return { runs, rssRatio: large.peakRSSGrowthMB / small.peakRSSGrowthMB, heapRatio: large.peakHeapMB / small.peakHeapMB };
}

/** The table `npm run bench` prints. */
export function importTable(r: ImportBench): string {
  const lines = r.runs.map(
    (run) =>
      `  ${String(run.rows).padStart(7)} rows  ${(run.bytes / MB).toFixed(1).padStart(5)} MB  preview ${Math.round(run.previewRowsPerSecond).toLocaleString("en")} rows/s  import ${Math.round(run.importRowsPerSecond).toLocaleString("en")} rows/s  peak RSS +${run.peakRSSGrowthMB.toFixed(1)} MB  peak live heap ${run.peakHeapMB.toFixed(1)} MB`,
  );
  return [
    `(n) CSV import (upload, preview, job; ${IMPORT_BATCH} rows a transaction)`,
    ...lines,
    `  peak ratio, largest / smallest file: RSS ${r.rssRatio.toFixed(2)}x, live heap ${r.heapRatio.toFixed(2)}x`,
  ].join("\n");
}

/** The summary lines `npm run bench` prints. */
export function importSummary(r: ImportBench): string[] {
  const large = r.runs[r.runs.length - 1]!;
  return [
    `(n) import of ${large.rows.toLocaleString("en")} rows: ${Math.round(large.importRowsPerSecond).toLocaleString("en")} rows/s, peak RSS ${r.rssRatio.toFixed(2)}x the 10x smaller file's`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf("--rows");
  if (at >= 0) process.stdout.write(`${JSON.stringify(await measureOne(Number(process.argv[at + 1])))}\n`);
  else {
    const result = await benchImport();
    process.stdout.write(`${process.argv.includes("--json") ? JSON.stringify(result) : importTable(result)}\n`);
  }
}
