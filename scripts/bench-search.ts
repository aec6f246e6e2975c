/*
 * (l) Search and export of a resource's list (issue 25 items 4 and 5):
 * three people with 10,000 records each (seeded in one transaction, each
 * statement prepared once), every record a title and two lines of notes in
 * one of four scripts (Latin, Cyrillic, Arabic, CJK). Two measurements:
 *
 *   search  a first page of one person's list, RUNS times per case, wall
 *           time median and p99: words of three characters or more (the
 *           trigram index), a two-character word (LIKE on the person's
 *           rows, along the list's order: a common one stops at a page, one
 *           in no record reads all 10,000), two words, a word with a filter and another sort.
 *           Target: median under 20 ms for 10,000 records per person.
 *           Also the median CPU time a search takes (process.cpuUsage):
 *           on a loaded machine, wall time is mostly waiting for a core.
 *   csv     `GET <Route>.csv` of the person's 10,000 records over HTTP
 *           (writeCSV, as mounted), read by a client in the same process:
 *           the bytes, and the peak growth of the process's RSS over its
 *           size before (sampled every 5 ms), to show the rows are not all
 *           held in memory.
 *
 * Not a test (no threshold fails a build). `npm run bench` runs it as (l),
 * in its own process; alone:
 *
 *   node dist/scripts/bench-search.js [runs]          # a table
 *   node dist/scripts/bench-search.js [runs] --json   # JSON
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { applySchema, OpenDB } from "../lib/db/index.ts";
import * as events from "../lib/events/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, resourceSchema } from "../lib/manifest/index.ts";
import { writeCSV } from "../lib/manifest/csv.ts";
import { LIST_PAGE_SIZE } from "../lib/manifest/list.ts";
import { References } from "../lib/manifest/references.ts";
import { exclusiveStore } from "../lib/manifest/store.ts";
import { RecordTable, type ListQuery } from "../lib/manifest/table.ts";

const PEOPLE = 3;
const PER_PERSON = 10_000;
/** The median a search of 10,000 records per person stays under (issue 25). */
export const SEARCH_TARGET_MS = 20;

/** One search case: its times over the runs. */
export interface SearchCase {
  name: string;
  medianMs: number;
  p99Ms: number;
  /** The median CPU time of the process (user + system): on a loaded machine, what the search itself costs. */
  cpuMedianMs: number;
  found: number;
}

/** What (l) measures. */
export interface SearchBench {
  people: number;
  perPerson: number;
  runs: number;
  seedMs: number;
  cases: SearchCase[];
  csv: { rows: number; bytes: number; rssBeforeMB: number; peakGrowthMB: number };
}

const notes = new Resource({
  Name: "notes",
  Route: "/notes",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }], Filters: [{ Field: "amount" }] },
  Form: {
    Fields: [
      { Name: "title", Label: "notes.title", Kind: Kind.Text },
      { Name: "body", Label: "notes.body", Kind: Kind.Textarea },
      { Name: "amount", Label: "notes.amount", Kind: Kind.Money },
    ],
  },
});

const words = [
  ["harbour", "invoice", "lisbon", "meeting", "travel", "budget", "quarterly"],
  ["москва", "отчёт", "поездка", "встреча", "бюджет", "счёт"],
  ["القاهرة", "تقرير", "رحلة", "اجتماع", "ميزانية"],
  ["東京", "会議", "出張", "報告書", "予算", "北京"],
];

const CASES: [string, Partial<ListQuery>][] = [
  ["no search", {}],
  ['"harbour" (Latin, trigram)', { search: ["harbour"] }],
  ['"поездка" (Cyrillic, trigram)', { search: ["поездка"] }],
  ['"تقرير" (Arabic, trigram)', { search: ["تقرير"] }],
  ['"報告書" (CJK, trigram)', { search: ["報告書"] }],
  ['"東京" (CJK, two characters: LIKE)', { search: ["東京"] }],
  ['"zq" (two characters, in no record)', { search: ["zq"] }],
  ['"harbour1" (rare word)', { search: ["harbour1"] }],
  ['"lisbon budget" (two words)', { search: ["lisbon", "budget"] }],
  [
    '"harbour", amount ≥ 150.00, sorted by title',
    { search: ["harbour"], filters: [{ field: "amount", min: 15_000, max: undefined }], sort: "title", desc: false },
  ],
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Seeds the records, times the searches, then streams one person's CSV over HTTP. */
export async function benchSearch(runs: number): Promise<SearchBench> {
  const db = OpenDB(":memory:");
  applySchema(db, [...events.Schema, ...resourceSchema(notes)]);
  const table = new RecordTable(db, notes);
  let seed = 1;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor(seed / 65_536) % n; // the high bits: the low ones of this generator cycle
  };
  const phrase = (): string => {
    const script = words[next(words.length)] ?? [];
    return Array.from({ length: 6 }, () => `${script[next(script.length)] ?? ""}${next(1000)}`).join(" ");
  };
  const seedStart = performance.now();
  db.transaction(() => {
    for (let p = 0; p < PEOPLE; p++) {
      for (let i = 0; i < PER_PERSON; i++) {
        const values = { title: phrase(), body: `${phrase()}\n${phrase()}`, amount: next(30_000) };
        table.insert(`person-${p}`, { id: `${p}-${String(i).padStart(5, "0")}`, created_at: i, updated_at: i, values });
      }
    }
  })();
  const seedMs = performance.now() - seedStart;

  const cases = CASES.map(([name, query]): SearchCase => {
    const full: ListQuery = { filters: [], search: [], sort: "created_at", desc: true, after: undefined, limit: LIST_PAGE_SIZE, ...query };
    const times: number[] = [];
    const cpu: number[] = [];
    let found = 0;
    for (let run = 0; run < runs; run++) {
      const start = performance.now();
      const used = process.cpuUsage();
      found = table.list("person-1", full).records.length;
      const spent = process.cpuUsage(used);
      times.push(performance.now() - start);
      cpu.push((spent.user + spent.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    return { name, medianMs: percentile(times, 50), p99Ms: percentile(times, 99), cpuMedianMs: percentile(cpu, 50), found };
  });

  const eventStore = new events.EventStore(db);
  const store = exclusiveStore(db, notes, eventStore);
  const refs = new References(db, notes, eventStore);
  const query: ListQuery = { filters: [], search: [], sort: "created_at", desc: false, after: undefined, limit: LIST_PAGE_SIZE };
  const server = http.createServer((_req, res) => void writeCSV(res, notes, store, "person-1", query, refs));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  global.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const { port } = server.address() as AddressInfo;
  const { rows, bytes } = await new Promise<{ rows: number; bytes: number }>((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/notes.csv`, (res) => {
        let size = 0;
        let lines = 0;
        res.on("data", (part: Buffer) => {
          size += part.length;
          for (const byte of part) if (byte === 0x0d) lines++; // records end with CRLF; a note's own line break is LF
        });
        res.on("end", () => resolve({ rows: lines - 1, bytes: size }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  server.close();
  db.close();
  const mb = (n: number): number => Math.round((n / 2 ** 20) * 10) / 10;
  return {
    people: PEOPLE,
    perPerson: PER_PERSON,
    runs,
    seedMs,
    cases,
    csv: { rows, bytes, rssBeforeMB: mb(rssBefore), peakGrowthMB: mb(peak - rssBefore) },
  };
}

/** The printed table of a run. */
export function searchTable(r: SearchBench): string {
  const ms = (t: number): string => t.toFixed(2).padStart(9);
  return [
    `(l) search and CSV export: ${r.people} people × ${r.perPerson} records (seeded in ${(r.seedMs / 1000).toFixed(1)} s), first page of ${LIST_PAGE_SIZE}, ${r.runs} runs a case`,
    `case                                             median ms    p99 ms  CPU median ms  on page`,
    ...r.cases.map(
      (c) => `${c.name.padEnd(48)} ${ms(c.medianMs)} ${ms(c.p99Ms)} ${ms(c.cpuMedianMs).padStart(14)} ${String(c.found).padStart(8)}`,
    ),
    `CSV of ${r.csv.rows} rows, ${(r.csv.bytes / 2 ** 20).toFixed(1)} MB streamed: RSS ${r.csv.rssBeforeMB} MB before, peak growth ${r.csv.peakGrowthMB} MB`,
  ].join("\n");
}

/** The lines of the ratio summary: each search case against the target. */
export function searchSummary(r: SearchBench): string[] {
  return r.cases.map(
    (c) =>
      `${c.medianMs < SEARCH_TARGET_MS ? "ok  " : "MISS"}  (l) search ${c.name}: median ${c.medianMs.toFixed(2)} ms (target < ${SEARCH_TARGET_MS} ms)`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await benchSearch(Math.max(1, Number(process.argv[2] ?? "200") || 200));
  process.stdout.write(`${process.argv.includes("--json") ? JSON.stringify(result) : searchTable(result)}\n`);
}
