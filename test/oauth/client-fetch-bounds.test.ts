import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTLSServer } from "node:https";
import { networkInterfaces } from "node:os";
import type { AddressInfo, Socket } from "node:net";
import { describe, test, type TestContext } from "node:test";
import { applySchema } from "../../lib/db/index.ts";
import { ClientsSchema } from "../../lib/oauth/clients-schema.ts";
import {
  METADATA_FETCHES_PER_CLIENT,
  METADATA_REFUSAL_CACHE_AGE,
  METADATA_REFUSAL_CACHE_ENTRIES,
  OAuthClients,
  type OAuthClientsOptions,
} from "../../lib/oauth/clients.ts";
import { OAuthError, OAuthRetryLater } from "../../lib/oauth/errors.ts";
import { OUTBOUND_FILES } from "../../lib/internal/outbound.ts";
import { Serve } from "../../lib/index.ts";
import { FakeClock } from "../_support/clock.ts";
import { open } from "../_support/db.ts";
import { arrivedRequest } from "../_support/arrived.ts";
import { captureLog, fetchHTTP } from "../_support/http.ts";
import { testCA } from "../_support/test-ca.ts";

const MINUTE = 60 * 1000;

function setup(t: TestContext, options: Partial<OAuthClientsOptions> = {}): { clients: OAuthClients; clock: FakeClock } {
  const db = open(t, ":memory:");
  applySchema(db, ClientsSchema);
  const clock = new FakeClock();
  return { clients: new OAuthClients(db, { Origin: "http://localhost:8080", clock, ca: testCA().ca, ...options }), clock };
}

/** An https server on `host` counting the connections and requests it gets; `answer` says what each request reads (nothing: it hangs). */
async function peer(
  t: TestContext,
  answer: (req: IncomingMessage, res: ServerResponse, base: string) => void,
  host = "127.0.0.1",
  tls = true,
): Promise<{ url: (path: string) => string; connections: () => number; hits: Map<string, number>; close: () => void }> {
  const { key, cert } = testCA();
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  let connections = 0;
  let base = "";
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    hits.set(req.url ?? "/", (hits.get(req.url ?? "/") ?? 0) + 1);
    answer(req, res, base);
  };
  const server = tls ? createTLSServer({ key, cert }, handler) : createServer(handler);
  server.on(tls ? "secureConnection" : "connection", (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  base = `${tls ? "https" : "http"}://localhost:${(server.address() as AddressInfo).port}`;
  const close = (): void => {
    for (const s of sockets) s.destroy();
    server.close();
  };
  t.after(close);
  return { url: (path) => `${base}${path}`, connections: () => connections, hits, close };
}

const hang = (): void => {};
const notFound = (_req: IncomingMessage, res: ServerResponse): void => void res.writeHead(404).end();

async function rejectsWith(promise: Promise<unknown>, check: (e: OAuthError) => void): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof OAuthError);
    check(e);
    return true;
  });
}

describe("OAuthClients: a refusal is remembered", () => {
  test(`a refused document is answered from memory for ${METADATA_REFUSAL_CACHE_AGE / MINUTE} minute: one fetch per URL`, async (t) => {
    assert.equal(METADATA_REFUSAL_CACHE_AGE, MINUTE);
    const { clients, clock } = setup(t);
    const docs = await peer(t, notFound);
    const local = await arrivedRequest(t);
    for (let i = 0; i < 3; i++)
      await rejectsWith(clients.resolve(docs.url("/gone.json"), local), (e) => assert.match(e.message, /answered 404/));
    assert.equal(docs.hits.get("/gone.json"), 1);
    clock.advance(METADATA_REFUSAL_CACHE_AGE - 1);
    await rejectsWith(clients.resolve(docs.url("/gone.json"), local), (e) => assert.match(e.message, /answered 404/));
    assert.equal(docs.hits.get("/gone.json"), 1);
    clock.advance(1);
    await rejectsWith(clients.resolve(docs.url("/gone.json"), local), (e) => assert.match(e.message, /answered 404/));
    assert.equal(docs.hits.get("/gone.json"), 2);
  });

  test("a fetch that fails (no answer in time) is remembered too", async (t) => {
    // Long enough for the TLS handshake on a loaded machine: the peer must have seen the one connection.
    const { clients } = setup(t, { fetchTimeout: 2000 });
    const docs = await peer(t, hang);
    const local = await arrivedRequest(t);
    const late = (e: OAuthError): void => assert.match(e.message, /did not arrive within 2000 ms/);
    await rejectsWith(clients.resolve(docs.url("/slow.json"), local), late);
    await rejectsWith(clients.resolve(docs.url("/slow.json"), local), late);
    assert.equal(docs.connections(), 1);
  });

  test(`remembers at most ${METADATA_REFUSAL_CACHE_ENTRIES} refusals, forgetting the least recently used`, async (t) => {
    assert.equal(METADATA_REFUSAL_CACHE_ENTRIES, 1000);
    const { clients } = setup(t);
    // Plain http on a loopback host (allowed for a loopback request): a thousand TLS handshakes would only slow the test.
    const docs = await peer(t, notFound, "127.0.0.1", false);
    const local = await arrivedRequest(t);
    const refused = (path: string): Promise<void> => rejectsWith(clients.resolve(docs.url(path), local), () => {});
    for (let i = 0; i < METADATA_REFUSAL_CACHE_ENTRIES; i++) await refused(`/r/${i}`);
    await refused("/r/0"); // used again: /r/1 is now the least recently used
    await refused(`/r/${METADATA_REFUSAL_CACHE_ENTRIES}`); // one more: /r/1 goes
    await refused("/r/0");
    await refused("/r/2");
    await refused("/r/1");
    assert.deepEqual([docs.hits.get("/r/0"), docs.hits.get("/r/2"), docs.hits.get("/r/1")], [1, 1, 2]);
  });
});

describe("OAuthClients: fetches in flight are bounded", () => {
  test(`one address has at most ${METADATA_FETCHES_PER_CLIENT} fetches in flight; past them a 429 with Retry-After at once`, async (t) => {
    assert.equal(METADATA_FETCHES_PER_CLIENT, 2);
    const { clients } = setup(t);
    const docs = await peer(t, hang);
    const first = await arrivedRequest(t, "127.0.3.1");
    const pending = [0, 1].map((i) => clients.resolve(docs.url(`/h/${i}`), first).catch((e: unknown) => e));
    await rejectsWith(clients.resolve(docs.url("/h/2"), first), (e) => {
      assert.ok(e instanceof OAuthRetryLater);
      assert.equal(e.status, 429);
      assert.equal(e.retryAfter, 5);
      assert.match(e.message, /at most 2 metadata documents are fetched at once for one address/);
    });
    // Another address is not held back by the first one's share.
    const other = await arrivedRequest(t, "127.0.3.2");
    pending.push(clients.resolve(docs.url("/h/3"), other).catch((e: unknown) => e));
    while (docs.connections() < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    docs.close();
    await Promise.all(pending);
    assert.equal(docs.hits.get("/h/2"), undefined);
    // Once the fetches ended, the address may fetch again.
    await rejectsWith(clients.resolve(docs.url("/h/4"), first), (e) => assert.equal(e.code, "invalid_client"));
  });

  test(`the process has at most OUTBOUND_FILES (${OUTBOUND_FILES}) fetches in flight; past them a 503 with Retry-After at once`, async (t) => {
    assert.equal(OUTBOUND_FILES, 32);
    const { clients } = setup(t);
    const docs = await peer(t, hang);
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < OUTBOUND_FILES; i++) {
      const req = await arrivedRequest(t, `127.0.${10 + Math.floor(i / 2)}.1`);
      pending.push(clients.resolve(docs.url(`/t/${i}`), req).catch((e: unknown) => e));
    }
    const late = await arrivedRequest(t, "127.0.99.1");
    await rejectsWith(clients.resolve(docs.url("/t/late"), late), (e) => {
      assert.ok(e instanceof OAuthRetryLater);
      assert.equal(e.status, 503);
      assert.equal(e.retryAfter, 5);
    });
    while (docs.connections() < OUTBOUND_FILES) await new Promise((resolve) => setTimeout(resolve, 5));
    docs.close();
    await Promise.all(pending);
    assert.equal(docs.connections(), OUTBOUND_FILES);
  });
});

describe("OAuthClients: loopback documents only over loopback", () => {
  // A non-loopback address of this machine, when it has one.
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;

  test(
    "a request that arrived on a non-loopback address gets no loopback fetch, whatever the origin says",
    { skip: outside === undefined },
    async (t) => {
      const address = outside ?? "";
      const { clients } = setup(t);
      const docs = await peer(t, (_req, res, base) =>
        res.end(JSON.stringify({ client_id: `${base}/a.json`, client_name: "A", redirect_uris: ["http://127.0.0.1/cb"] })),
      );
      // The demo's defaults: listening on all interfaces, a localhost origin; a peer on the network arrives on the outside address.
      const fromNetwork = await arrivedRequest(t, address, "0.0.0.0", address);
      await rejectsWith(clients.resolve(docs.url("/a.json"), fromNetwork), (e) =>
        assert.match(e.message, /resolves to a loopback address/),
      );
      // A server listening on the outside address only.
      const onOutside = await arrivedRequest(t, address, address);
      await rejectsWith(clients.resolve(docs.url("/a.json"), onOutside), (e) => assert.match(e.message, /resolves to a loopback address/));
      await rejectsWith(clients.resolve(docs.url("/a.json")), (e) => assert.match(e.message, /resolves to a loopback address/));
      assert.equal(docs.hits.size, 0);
      // The same server, asked from this machine over loopback, fetches.
      const fromHere = await arrivedRequest(t, "127.0.0.1", "0.0.0.0");
      assert.equal((await clients.resolve(docs.url("/a.json"), fromHere)).Name, "A");
    },
  );
});

describe("Serve() with hanging metadata documents", () => {
  test("requests waiting on documents that never arrive do not starve probes from another address", async (t) => {
    const { clients } = setup(t);
    const docs = await peer(t, hang);
    const log = captureLog();
    const stop = new AbortController();
    const served = Serve({
      Mux: async (req, res) => {
        const id = new URL(req.url ?? "/", "http://x").searchParams.get("client_id");
        if (id === null) return void res.end("ok");
        try {
          res.end((await clients.resolve(id, req)).Name);
        } catch (e) {
          res.writeHead(e instanceof OAuthError ? e.status : 500).end();
        }
      },
      Addr: "127.0.0.1:0",
      MaxConnections: 8,
      Logger: log.logger,
      Signal: stop.signal,
      ShutdownGrace: 1,
    });
    t.after(async () => {
      stop.abort();
      docs.close();
      await served;
    });
    const port = Number(/:(\d+)$/.exec(String((await log.waitFor((l) => l["msg"] === "listening"))["addr"]))?.[1]);
    // Eight addresses, one shared document that never arrives: every connection of the cap would wait on it.
    let answered = 0;
    let sixAnswered = (): void => {};
    const six = new Promise<void>((resolve) => (sixAnswered = resolve));
    const attackers = [1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
      fetchHTTP(port, `/authorize?client_id=${encodeURIComponent(docs.url("/shared.json"))}`, { localAddress: `127.0.${40 + i}.1` }).then(
        (r) => {
          if (++answered === 6) sixAnswered();
          return r.status;
        },
      ),
    );
    // WAIT_SHARE of 8 is 2: each waiting request past two ends the oldest with a 503.
    await six;
    for (let probe = 0; probe < 5; probe++) assert.equal((await fetchHTTP(port, "/healthz", { localAddress: "127.0.0.2" })).status, 200);
    assert.equal(docs.connections(), 1);
    docs.close();
    // The two still waiting read the document's refusal once the fetch fails.
    assert.deepEqual((await Promise.all(attackers)).sort(), [401, 401, 503, 503, 503, 503, 503, 503]);
  });
});
