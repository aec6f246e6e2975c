/*
 * (m) A record's page with a long history (issue 43, 6): the first page of a record with 1,000 changes against one with
 * 10 and one with HISTORY_PAGE_SIZE (a first page as full as the long one's), served over HTTP by `mountResource` in
 * this process (the record's page: its read view, its form and its history's first page), on one database. They are
 * requested in turn, `runs` times each after a warm-up, so outside load falls on all alike; prints each median and p99
 * in ms and the ratios of the medians: 1,000 / HISTORY_PAGE_SIZE should be about 1 (a page reads at most
 * HISTORY_PAGE_SIZE events along the stream's key, however long the stream); 1,000 / 10 adds the cost of rendering
 * twice the entries. Not a test (no threshold), run by hand:
 *
 *   node dist/scripts/bench-history.js [runs] [--json]
 */
import { createServer, type IncomingMessage } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentTokens, humanActor, Schema as AgentSchema, ToolRegistry, verifyBearer } from "../lib/agent/index.ts";
import { applySchema, OpenDB } from "../lib/db/index.ts";
import { EventStore, Schema as EventsSchema } from "../lib/events/index.ts";
import { Kind, mountResource, Resource, ScopeKind, StoreKind } from "../lib/manifest/index.ts";
import { HISTORY_PAGE_SIZE } from "../lib/manifest/changes.ts";
import { Mux } from "../lib/router/index.ts";

const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 500);
const dir = mkdtempSync(join(tmpdir(), "latch-bench-history-"));
const db = OpenDB(join(dir, "bench.db"));
applySchema(db, EventsSchema);
applySchema(db, AgentSchema);
const events = new EventStore(db);
const tokens = new AgentTokens(db);
const person = "ada@example.com";
const { Token } = tokens.mint({ Subject: person, Name: "bench", Access: "read" });
const mux = new Mux();
const mounted = mountResource(
  new Resource({
    Name: "memos",
    Route: "/memos",
    Store: StoreKind.Exclusive,
    Scope: ScopeKind.UserScoped,
    List: { Columns: [{ Field: "title" }] },
    Form: {
      Fields: [
        { Name: "title", Label: "memos.title", Kind: Kind.Text, Required: true },
        { Name: "amount", Label: "memos.amount", Kind: Kind.Money, Currency: "EUR" },
      ],
    },
  }),
  {
    db,
    mux,
    tools: new ToolRegistry(),
    events,
    origin: "http://bench.test",
    requireSession: (next) => async (req, res) => {
      await verifyBearer(req, tokens);
      await next(req, res);
    },
    ctxFrom: () => ({ Render: (_req: IncomingMessage, res, _view, data) => void res.end(String((data as { Body: unknown }).Body)) }),
  },
);

/** A record with `changes` events: its creation, then changes of both fields. */
function seeded(changes: number): string {
  const who = { owner: person, actor: humanActor() };
  const { id } = mounted.Store.create(who, { title: "t0", amount: "1.00" });
  for (let n = 1; n < changes; n++) {
    const version = mounted.Store.get(person, id)?.version ?? 0;
    mounted.Store.update(who, id, version, { title: `t${n}`, amount: `${n}.00` });
  }
  return id;
}

const sizes = [10, HISTORY_PAGE_SIZE, 1000];
const records = new Map(sizes.map((n) => [n, seeded(n)]));
const server = createServer((req, res) => void mux.ServeHTTP(req, res));
await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
const get = async (changes: number): Promise<number> => {
  const id = records.get(changes) ?? "";
  const start = process.hrtime.bigint();
  const res = await fetch(`${base}/memos/${id}`, { headers: { Authorization: `Bearer ${Token}` } });
  const body = await res.text();
  // Every answer is checked: the page, with its history's first page.
  const shown = (body.match(/data-history-event=/g) ?? []).length;
  if (res.status !== 200 || shown !== Math.min(changes, HISTORY_PAGE_SIZE)) throw new Error(`bad page: ${res.status}, ${shown} changes`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
for (let i = 0; i < 50; i++) for (const n of sizes) await get(n);
const times = new Map(sizes.map((n) => [n, [] as number[]]));
for (let i = 0; i < runs; i++) for (const n of sizes) times.get(n)?.push(await get(n));
server.closeAllConnections();
server.close();
db.close();
rmSync(dir, { recursive: true, force: true });

const at = (list: number[] = [], q: number): number =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(q * list.length))] ?? 0;
const median = (n: number): number => at(times.get(n), 0.5);
const result = {
  runs,
  pages: sizes.map((n) => ({ changes: n, median: median(n), p99: at(times.get(n), 0.99) })),
  // As issue 43 asks: 1,000 changes against 10; and against a record whose first page is as full (the stream's length alone).
  ratio: median(1000) / median(10),
  ratioFullPage: median(1000) / median(HISTORY_PAGE_SIZE),
};
if (process.argv.includes("--json")) console.log(JSON.stringify(result));
else {
  for (const p of result.pages)
    console.log(`record page, ${p.changes} changes: median ${p.median.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms (${runs} runs)`);
  console.log(`ratio 1,000 / 10 changes (medians): ${result.ratio.toFixed(2)}x`);
  console.log(`ratio 1,000 / ${HISTORY_PAGE_SIZE} changes, both a full first page (medians): ${result.ratioFullPage.toFixed(2)}x`);
}
