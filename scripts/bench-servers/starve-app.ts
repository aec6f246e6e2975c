/*
 * The server of the starvation scenario (scripts/bench-starve.ts), run
 * under a 1,024 file limit: latch's `Serve` with its default caps, as an
 * application runs it, with what the attacks aim at: `GET /healthz` (the
 * runtime's probe, `SELECT 1`), a form post like the demo's
 * `POST /signin` (`readForm`, 64 KiB limit, then a 303), and job event
 * streams (`latch/jobs` `Events`, 10 per owner) for 100 accounts, each
 * with one running job; `GET /oauth/authorize?client_id=` resolving a
 * client metadata document as the authorization server does (latch/oauth's
 * clients, a loopback origin as the demo's), and `GET /download`, a 1 MiB
 * answer built per request. The account is read from an `X-Account` header
 * (`account-0` .. `account-99`): sign-in is not what is measured, and a
 * signed-in attacker holds the same streams.
 *
 * Run with `--expose-gc` (the bench does), SIGUSR2 makes it collect its
 * garbage and print {"memory":{...}} (`process.memoryUsage()`, bytes): the
 * memory the process holds, apart from garbage V8 has not collected yet.
 * SIGHUP makes it print {"delay":{"maxMs":N}}: the longest its event loop
 * was held since the last report.
 *
 * Usage: node dist/scripts/bench-servers/starve-app.js   (prints {"port":N})
 */
import { mkdtempSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Writable } from "node:stream";
import { discardLogger, newLogger, readForm } from "../../lib/http/index.ts";
import { newHandlers, Registry } from "../../lib/jobs/index.ts";
import { Serve } from "../../lib/index.ts";
import { applySchema, OpenDB } from "../../lib/db/index.ts";
import { OAuthError } from "../../lib/oauth/index.ts";
import { ClientsSchema } from "../../lib/oauth/clients-schema.ts";
import { OAuthClients } from "../../lib/oauth/clients.ts";
import { announce } from "./routes.ts";

/** Accounts holding streams. */
export const ACCOUNTS = 100;

const HOUR = 3_600_000;
const jobs = new Registry(discardLogger, { maxRuntime: HOUR });
const jobOf = new Map<string, string>();
for (let i = 0; i < ACCOUNTS; i++) {
  const owner = `account-${i}`;
  const job = jobs.Start(owner, "bench", (signal) => new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve())));
  jobOf.set(owner, job.ID);
}
const account = (req: IncomingMessage): string | undefined => {
  const owner = req.headers["x-account"];
  return typeof owner === "string" && jobOf.has(owner) ? owner : undefined;
};
const h = newHandlers({
  Jobs: jobs,
  Render: (_req, res) => void res.end(),
  RenderFragment: (_req, res) => void res.end(),
  Owner: account,
  ID: (req) => jobOf.get(account(req) ?? ""),
  StreamLifetime: HOUR,
});

// The demo's OAuth clients (a loopback origin, as the demo's default): `GET /oauth/authorize` resolves `client_id` first, as the server does.
const clientsDB = OpenDB(join(mkdtempSync(join(tmpdir(), "latch-starve-clients-")), "clients.db"));
applySchema(clientsDB, ClientsSchema);
const clients = new OAuthClients(clientsDB, { Origin: "http://localhost:8080" });

/** Bytes of one download: a response built per request, as an export is. */
export const DOWNLOAD_BYTES: number = 1024 * 1024;

async function mux(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === "GET" && req.url?.startsWith("/oauth/authorize?") === true) {
    const id = new URLSearchParams(req.url.slice(req.url.indexOf("?") + 1)).get("client_id") ?? "";
    try {
      res.end((await clients.resolve(id, req)).Name);
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      res.writeHead(e.status).end(e.message);
    }
    return;
  }
  if (req.method === "GET" && req.url === "/download") {
    res.writeHead(200, { "Content-Type": "text/csv" }).end(Buffer.alloc(DOWNLOAD_BYTES, "a,b\n"));
    return;
  }
  if (req.method === "POST" && req.url === "/signin") {
    await readForm(req);
    res.writeHead(303, { Location: "/" }).end();
    return;
  }
  if (req.method === "GET" && req.url === "/events") return h.Events(req, res);
  res.writeHead(404).end();
}

// The event loop's delay, told by SIGHUP ({"delay":{"maxMs"}}, then reset): what the probes wait on the server itself.
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
process.on("SIGHUP", () => {
  process.stdout.write(JSON.stringify({ delay: { maxMs: Math.round(delay.max / 1e6) } }) + "\n");
  delay.reset();
});
const gc = (globalThis as { gc?: () => void }).gc;
process.on("SIGUSR2", () => {
  // Three full collections: V8 releases the pages a collection emptied on the next.
  for (let i = 0; i < 3; i++) gc?.();
  process.stdout.write(JSON.stringify({ memory: process.memoryUsage() }) + "\n");
});

// Serve logs "listening" with its address: announce the port from that line.
const stream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    const port = /"msg":"listening","addr":"[^"]*:(\d+)"/.exec(chunk.toString())?.[1];
    if (port !== undefined) announce(Number(port));
    done();
  },
});
const DBPath = join(mkdtempSync(join(tmpdir(), "latch-starve-")), "app.db");
await Serve({ Mux: mux, Addr: "127.0.0.1:0", Logger: newLogger({ stream }), DBPath, Stop: [jobs] });
