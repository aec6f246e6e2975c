/*
 * The mixed scenario's traffic model and its open-loop sender (scripts/bench-mixed.ts; BENCHMARKS.md "(o)"). Requests
 * are sent on a fixed schedule whatever the server answers; a request's latency runs from the time it was due to its
 * last byte (a live stream's, to its response head), so a server that falls behind shows it in every later request.
 */
import { Agent, request } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { personOf, tokenOf, WRITE_TOOL } from "./bench-mixed-seed.ts";

/** One kind of request: its share of the arrivals and how to make one. */
export interface Kind {
  name: string;
  /** Share of all arrivals, in percent. */
  share: number;
  make(n: number, person: number): Req;
}

export interface Req {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Held open until the step ends (a live page's stream); its latency is to the response head. */
  stream?: boolean;
  /** The loopback address the request leaves from (sign-ins, whose limits count per address). */
  from?: string;
}

/** The context every kind needs: the server's origin and the number of seeded people. */
export interface Target {
  base: string;
  origin: string;
  people: number;
}

/** The list page every person opens: a filter (amount from €10) and a sort (amount, descending). */
export const LIST_PATH = "/expenses?amount_min=10&sort=amount&dir=desc";

/** The working day's mix, per 100 arrivals (BENCHMARKS.md "(o)" explains each). */
export function dayMix(t: Target, recordOf: (person: number) => string): Kind[] {
  const cookie = (p: number): Record<string, string> => ({ cookie: `framework_session=${tokenOf("session", p)}` });
  const bearer = (kind: "read" | "write", p: number): Record<string, string> => ({
    authorization: `Bearer ${tokenOf(kind, p)}`,
    "content-type": "application/json",
    origin: t.origin,
  });
  const form = (p: number): Record<string, string> => ({
    ...cookie(p),
    origin: t.origin,
    "content-type": "application/x-www-form-urlencoded",
  });
  return [
    { name: "list page (filter, sort)", share: 30, make: (_n, p) => ({ method: "GET", path: LIST_PATH, headers: cookie(p) }) },
    { name: "record page", share: 20, make: (_n, p) => ({ method: "GET", path: `/expenses/${recordOf(p)}`, headers: cookie(p) }) },
    {
      name: "form save (POST /expenses)",
      share: 5,
      make: (n, p) => ({ method: "POST", path: "/expenses", headers: form(p), body: `label=Lunch+${n}&amount=12.50&category=meals` }),
    },
    {
      name: "live stream open",
      share: 5,
      make: (_n, p) => ({ method: "GET", path: "/expenses/events", headers: cookie(p), stream: true }),
    },
    {
      name: "MCP tools/call expenses_list",
      share: 15,
      make: (n, p) => ({
        method: "POST",
        path: "/mcp",
        headers: { ...bearer("read", p), accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "expenses_list", arguments: {} } }),
      }),
    },
    {
      name: "POST /api/tools/expenses_list",
      share: 10,
      make: (_n, p) => ({ method: "POST", path: "/api/tools/expenses_list", headers: bearer("read", p), body: "{}" }),
    },
    {
      name: `POST /api/tools/${WRITE_TOOL} (standing approval)`,
      share: 10,
      make: (n, p) => ({
        method: "POST",
        path: `/api/tools/${WRITE_TOOL}`,
        headers: bearer("write", p),
        body: JSON.stringify({ label: `Taxi ${n}`, amount: "23.50", category: "travel" }),
      }),
    },
    {
      name: "sign-in (POST /signin)",
      share: 4,
      make: (n) => ({
        method: "POST",
        path: "/signin",
        headers: { origin: t.origin, "content-type": "application/x-www-form-urlencoded" },
        body: `email=${encodeURIComponent(personOf(n % t.people).replace("@", `+${n}@`))}`,
        from: `127.0.${(n % 250) + 1}.1`,
      }),
    },
    { name: "job start (POST /jobs)", share: 1, make: (_n, p) => ({ method: "POST", path: "/jobs", headers: form(p), body: "kind=ok" }) },
  ];
}

/** One answer: its kind, how it was judged, its latency from the time it was due. */
export type Answer = [kind: string, status: string, ms: number];

const agent = new Agent({ keepAlive: true, maxSockets: 512 });
const streams = new Agent({ keepAlive: false });

/** Sends `r` (due at `due`, performance.now ms); resolves with its status and latency. `held` collects open streams. */
function send(base: string, r: Req, due: number, held: (() => void)[]): Promise<[string, number]> {
  return new Promise((resolve) => {
    const req = request(
      base + r.path,
      {
        method: r.method,
        headers: r.headers,
        agent: r.stream === true ? streams : agent,
        ...(r.from !== undefined && { localAddress: r.from }),
      },
      (res) => {
        const status = String(res.statusCode ?? 0);
        if (r.stream === true) {
          resolve([status, performance.now() - due]);
          res.on("data", () => {});
          res.on("error", () => {});
          held.push(() => req.destroy());
          return;
        }
        res.on("data", () => {});
        res.on("end", () => resolve([status, performance.now() - due]));
      },
    );
    // Its code printed (error:ECONNRESET), so a failed request says whether the server refused or the socket was lost.
    req.on("error", (e: NodeJS.ErrnoException) => resolve([`error:${e.code ?? e.name}`, performance.now() - due]));
    req.end(r.body);
  });
}

/** A small seeded generator (mulberry32): the same run picks the same people. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Sends `rate` requests a second for `seconds`, each of a kind drawn by the shares and a person drawn at random, on
 * schedule (open loop); waits for every answer; closes the streams it opened. `counter` numbers requests across calls.
 */
export async function openLoop(
  t: Target,
  kinds: Kind[],
  rate: number,
  seconds: number,
  counter: { n: number },
  random: () => number,
): Promise<Answer[]> {
  const total = Math.round(rate * seconds);
  const totalShare = kinds.reduce((s, k) => s + k.share, 0);
  const held: (() => void)[] = [];
  const pending: Promise<Answer>[] = [];
  const start = performance.now() + 5;
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    let pick = random() * totalShare;
    const kind = kinds.find((k) => (pick -= k.share) < 0) ?? kinds[0];
    if (kind === undefined) throw new Error("bench-mixed: no kinds");
    const n = counter.n++;
    const r = kind.make(n, Math.floor(random() * t.people));
    pending.push(send(t.base, r, due, held).then(([status, ms]) => [kind.name, status, ms]));
  }
  const answers = await Promise.all(pending);
  for (const close of held) close();
  return answers;
}

/** Sends `make(i)` `count` times at `rate` a second (open loop) and returns the latencies; for the baselines. */
export async function paced(
  base: string,
  make: (i: number) => Req,
  rate: number,
  count: number,
  counter: { n: number },
): Promise<Answer[]> {
  const pending: Promise<Answer>[] = [];
  const start = performance.now() + 5;
  const held: (() => void)[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(send(base, make(counter.n++), due, held).then(([status, ms]) => ["", status, ms]));
  }
  return Promise.all(pending);
}

/** Per kind: count, statuses, median and p99 in ms. */
export interface Summary {
  kind: string;
  count: number;
  statuses: string;
  p50: number;
  p99: number;
}

export function summarize(answers: Answer[]): Summary[] {
  const byKind = new Map<string, Answer[]>();
  for (const a of answers) byKind.set(a[0], [...(byKind.get(a[0]) ?? []), a]);
  return [...byKind].map(([kind, list]) => {
    const times = list.map((a) => a[2]).sort((x, y) => x - y);
    const statuses = new Map<string, number>();
    for (const a of list) statuses.set(a[1], (statuses.get(a[1]) ?? 0) + 1);
    return {
      kind,
      count: list.length,
      statuses: [...statuses].map(([s, c]) => `${s}×${c}`).join(" "),
      p50: times[Math.floor(times.length * 0.5)] ?? 0,
      p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0,
    };
  });
}

export function closeAgents(): void {
  agent.destroy();
  streams.destroy();
}
