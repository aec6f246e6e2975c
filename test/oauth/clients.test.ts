import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test, type TestContext } from "node:test";
import { applySchema, type DB } from "../../lib/db/index.ts";
import type { OAuthClient } from "../../lib/oauth/client.ts";
import { ClientsSchema } from "../../lib/oauth/clients-schema.ts";
import {
  METADATA_CACHE_DEFAULT_AGE,
  METADATA_CACHE_ENTRIES,
  METADATA_CACHE_MAX_AGE,
  OAuthClients,
  REGISTRATION_IDLE_TTL,
  REGISTRATION_LIMIT,
  type OAuthClientsOptions,
} from "../../lib/oauth/clients.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { FakeClock } from "../_support/clock.ts";
import { open } from "../_support/db.ts";
import { fetchHTTP } from "../_support/http.ts";
import { startServer } from "../_support/server.ts";
import { testCA } from "../_support/test-ca.ts";
import { arrivedRequest } from "../_support/arrived.ts";

const MINUTE = 60 * 1000;
const DAY = 24 * 60 * MINUTE;

interface Setup {
  db: DB;
  clients: OAuthClients;
  clock: FakeClock;
}

function setup(t: TestContext, options: Partial<OAuthClientsOptions> = {}): Setup {
  const db = open(t, ":memory:");
  applySchema(db, ClientsSchema);
  const clock = new FakeClock();
  const clients = new OAuthClients(db, { Origin: "http://localhost:8080", clock, ca: testCA().ca, ...options });
  return { db, clients, clock };
}

/** An https document server counting requests per path; `headers` go with every document. */
async function documents(
  t: TestContext,
  headers: Record<string, string> = {},
): Promise<{ url: (path: string) => string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const { key, cert } = testCA();
  let base = "";
  const served = await startServer(
    t,
    (req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? "/";
      hits.set(path, (hits.get(path) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify({ client_id: `${base}${path}`, client_name: `Agent ${path}`, redirect_uris: ["http://127.0.0.1/cb"] }));
    },
    { tls: { key, cert } },
  );
  base = served.base;
  return { url: (path) => `${base}${path}`, hits };
}

async function invalidClient(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof OAuthError);
    assert.equal(e.code, "invalid_client");
    assert.match(e.message, message);
    return true;
  });
}

describe("OAuthClients.resolve(): metadata documents", () => {
  test("fetches a URL client_id's document and shows its host, localhost on this machine", async (t) => {
    const { clients } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t);
    const client = await clients.resolve(docs.url("/a.json"), local);
    assert.deepEqual(client, {
      ClientID: docs.url("/a.json"),
      Name: "Agent /a.json",
      Host: "localhost",
      RedirectURIs: ["http://127.0.0.1/cb"],
      GrantTypes: ["authorization_code"],
    });
  });

  test("refuses this machine's documents when latch's own origin is not loopback", async (t) => {
    const { clients } = setup(t, { Origin: "https://app.example.com" });
    const local = await arrivedRequest(t);
    const docs = await documents(t);
    await invalidClient(clients.resolve(docs.url("/a.json"), local), /resolves to a loopback address/);
    await invalidClient(clients.resolve("http://agent.example/client.json", local), /must be an https URL/);
    assert.equal(docs.hits.size, 0);
  });

  test(`caches a document ${METADATA_CACHE_DEFAULT_AGE / MINUTE} minutes when its answer does not say`, async (t) => {
    assert.equal(METADATA_CACHE_DEFAULT_AGE, 5 * MINUTE);
    const { clients, clock } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t);
    await clients.resolve(docs.url("/a.json"), local);
    clock.advance(METADATA_CACHE_DEFAULT_AGE - 1);
    await clients.resolve(docs.url("/a.json"), local);
    assert.equal(docs.hits.get("/a.json"), 1);
    clock.advance(1);
    await clients.resolve(docs.url("/a.json"), local);
    assert.equal(docs.hits.get("/a.json"), 2);
  });

  test(`honours max-age up to ${METADATA_CACHE_MAX_AGE / MINUTE} minutes`, async (t) => {
    assert.equal(METADATA_CACHE_MAX_AGE, 60 * MINUTE);
    const { clients, clock } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t, { "cache-control": "max-age=86400" });
    await clients.resolve(docs.url("/a.json"), local);
    clock.advance(METADATA_CACHE_MAX_AGE - 1);
    await clients.resolve(docs.url("/a.json"), local);
    assert.equal(docs.hits.get("/a.json"), 1);
    clock.advance(1);
    await clients.resolve(docs.url("/a.json"), local);
    assert.equal(docs.hits.get("/a.json"), 2);
  });

  test("does not cache a document served no-store", async (t) => {
    const { clients } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t, { "cache-control": "no-store" });
    await clients.resolve(docs.url("/a.json"), local);
    await clients.resolve(docs.url("/a.json"), local);
    assert.equal(docs.hits.get("/a.json"), 2);
  });

  test("one fetch serves requests for the same document made at the same time", async (t) => {
    const { clients } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t);
    const all = await Promise.all([1, 2, 3].map(() => clients.resolve(docs.url("/a.json"), local)));
    assert.equal(all.length, 3);
    assert.equal(docs.hits.get("/a.json"), 1);
  });

  test(`keeps at most ${METADATA_CACHE_ENTRIES} documents, dropping the least recently used`, async (t) => {
    assert.equal(METADATA_CACHE_ENTRIES, 100);
    const { clients } = setup(t);
    const local = await arrivedRequest(t);
    const docs = await documents(t);
    for (let i = 0; i < METADATA_CACHE_ENTRIES; i++) await clients.resolve(docs.url(`/c/${i}`), local);
    await clients.resolve(docs.url("/c/0"), local); // used again: /c/1 is now the least recently used
    await clients.resolve(docs.url(`/c/${METADATA_CACHE_ENTRIES}`), local); // one more: /c/1 goes
    await clients.resolve(docs.url("/c/0"), local);
    await clients.resolve(docs.url("/c/2"), local);
    await clients.resolve(docs.url("/c/1"), local);
    assert.deepEqual([docs.hits.get("/c/0"), docs.hits.get("/c/2"), docs.hits.get("/c/1")], [1, 1, 2]);
  });
});

describe("OAuthClients.redirectAllowed()", () => {
  test("matches the client's redirect URIs exactly, a loopback one with any port", (t) => {
    const { clients } = setup(t);
    const client: OAuthClient = {
      ClientID: "x",
      Name: "x",
      Host: "localhost",
      RedirectURIs: ["http://127.0.0.1:3000/cb", "https://a.example/cb"],
      GrantTypes: ["authorization_code"],
    };
    assert.equal(clients.redirectAllowed(client, "https://a.example/cb"), true);
    assert.equal(clients.redirectAllowed(client, "http://127.0.0.1:49152/cb"), true);
    assert.equal(clients.redirectAllowed(client, "https://a.example/cb?next=x"), false);
    assert.equal(clients.redirectAllowed(client, "https://b.example/cb"), false);
  });
});

/** POSTs a registration to `handleRegister` served on loopback, from the address `ip` (a header the test's ClientIP reads). */
async function startRegistry(
  t: TestContext,
  options: Partial<OAuthClientsOptions> = {},
): Promise<Setup & { post: (body: string, ip?: string, type?: string) => ReturnType<typeof fetchHTTP> }> {
  const s = setup(t, { ClientIP: (req) => String(req.headers["x-test-ip"] ?? req.socket.remoteAddress), ...options });
  const { port } = await startServer(t, s.clients.handleRegister);
  const post = (body: string, ip = "203.0.113.7", type = "application/json"): ReturnType<typeof fetchHTTP> =>
    fetchHTTP(port, "/oauth/register", { method: "POST", headers: { "content-type": type, "x-test-ip": ip }, body });
  return { ...s, post };
}

const registration = JSON.stringify({
  client_name: "Claude Code",
  redirect_uris: ["http://localhost:53682/callback"],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  scope: "read write",
});

describe("OAuthClients.handleRegister()", () => {
  test("answers 201 with the RFC 7591 §3.2.1 body, stores the client, and resolves it", async (t) => {
    const { post, clients, clock, db } = await startRegistry(t);
    const res = await post(registration);
    assert.equal(res.status, 201);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    assert.equal(res.headers["cache-control"], "no-store");
    const body: unknown = JSON.parse(res.body);
    assert.ok(typeof body === "object" && body !== null && "client_id" in body && typeof body.client_id === "string");
    assert.match(body.client_id, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(body, {
      client_id: body.client_id,
      client_id_issued_at: Math.floor(clock.now().getTime() / 1000),
      client_name: "Claude Code",
      redirect_uris: ["http://localhost:53682/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    assert.deepEqual(await clients.resolve(body.client_id), {
      ClientID: body.client_id,
      Name: "Claude Code",
      Host: "localhost",
      RedirectURIs: ["http://localhost:53682/callback"],
      GrantTypes: ["authorization_code", "refresh_token"],
    });
    assert.deepEqual(db.prepare("SELECT registered_by FROM oauth_clients").all(), [{ registered_by: "203.0.113.7" }]);
  });

  test("a client without a name is shown by its redirect URIs' host", async (t) => {
    const { post, clients } = await startRegistry(t);
    const res = await post(JSON.stringify({ redirect_uris: ["https://agent.example/cb"] }));
    const body = JSON.parse(res.body) as { client_id: string };
    assert.equal("client_name" in body, false);
    const client = await clients.resolve(body.client_id);
    assert.deepEqual([client.Name, client.Host], ["agent.example", "agent.example"]);
  });

  const errors: { name: string; body: string; type?: string; status: number; error: string; description: RegExp }[] = [
    {
      name: "a redirect URI on http off loopback",
      body: JSON.stringify({ redirect_uris: ["http://agent.example/cb"] }),
      status: 400,
      error: "invalid_redirect_uri",
      description: /not loopback/,
    },
    {
      name: "no redirect URIs",
      body: JSON.stringify({ client_name: "x" }),
      status: 400,
      error: "invalid_redirect_uri",
      description: /redirect_uris/,
    },
    {
      name: "a confidential client",
      body: JSON.stringify({ redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" }),
      status: 400,
      error: "invalid_client_metadata",
      description: /token_endpoint_auth_method must be 'none'/,
    },
    { name: "a body that is not JSON", body: "<xml/>", status: 400, error: "invalid_client_metadata", description: /not valid JSON/ },
    {
      name: "a form body",
      body: "redirect_uris=x",
      type: "application/x-www-form-urlencoded",
      status: 415,
      error: "invalid_client_metadata",
      description: /expected application\/json/,
    },
    {
      name: "a body over 5 KiB",
      body: JSON.stringify({ redirect_uris: ["https://a.example/cb"], pad: "x".repeat(5 * 1024) }),
      status: 413,
      error: "invalid_client_metadata",
      description: /larger than 5120 bytes/,
    },
  ];
  for (const row of errors) {
    test(`answers ${row.name} with ${row.status} ${row.error} as JSON, registering nothing`, async (t) => {
      const { post, db } = await startRegistry(t);
      const res = await post(row.body, undefined, row.type);
      assert.equal(res.status, row.status);
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      const body = JSON.parse(res.body) as { error: string; error_description: string };
      assert.equal(body.error, row.error);
      assert.match(body.error_description, row.description);
      assert.deepEqual(db.prepare("SELECT count(*) AS n FROM oauth_clients").get(), { n: 0 });
    });
  }

  test(`takes ${REGISTRATION_LIMIT.Max} registrations an hour from one address, then 429 with Retry-After`, async (t) => {
    assert.deepEqual({ ...REGISTRATION_LIMIT }, { Max: 10, Window: 60 * MINUTE });
    const { post, clock } = await startRegistry(t);
    for (let i = 0; i < REGISTRATION_LIMIT.Max; i++) {
      assert.equal((await post(registration)).status, 201);
      clock.advance(MINUTE);
    }
    const refused = await post(registration);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers["retry-after"], String(50 * 60));
    assert.equal((JSON.parse(refused.body) as { error: string }).error, "temporarily_unavailable");
    // Another address has its own budget; an IPv6 neighbour in the same /64 shares one.
    assert.equal((await post(registration, "203.0.113.8")).status, 201);
    for (let i = 0; i < REGISTRATION_LIMIT.Max; i++) assert.equal((await post(registration, `2001:db8:1:2::${i + 1}`)).status, 201);
    assert.equal((await post(registration, "2001:db8:1:2:ffff::1")).status, 429);
    // The window frees room when the first registration leaves it.
    clock.advance(50 * MINUTE);
    assert.equal((await post(registration)).status, 201);
  });
});

describe("OAuthClients registrations expire unused", () => {
  test(`a registration unused for ${REGISTRATION_IDLE_TTL / DAY} days no longer resolves, touch() restarts the count, sweep() deletes it`, async (t) => {
    assert.equal(REGISTRATION_IDLE_TTL, 30 * DAY);
    const { clients, clock, db } = setup(t);
    const kept = clients.register({ redirect_uris: ["https://a.example/cb"] }, "203.0.113.7").client_id;
    const idle = clients.register({ redirect_uris: ["https://b.example/cb"] }, "203.0.113.7").client_id;
    clock.advance(REGISTRATION_IDLE_TTL - 1);
    clients.touch(kept);
    assert.equal((await clients.resolve(idle)).ClientID, idle);
    clock.advance(1);
    await invalidClient(clients.resolve(idle), /unknown client_id/);
    assert.equal((await clients.resolve(kept)).ClientID, kept);
    assert.equal(clients.sweep(1), 1);
    assert.deepEqual(db.prepare("SELECT client_id FROM oauth_clients").all(), [{ client_id: kept }]);
    clock.advance(REGISTRATION_IDLE_TTL);
    assert.equal(clients.sweep(), 1);
    await invalidClient(clients.resolve(kept), /unknown client_id/);
  });

  test("an unknown client_id is invalid_client (401)", async (t) => {
    const { clients } = setup(t);
    await assert.rejects(
      clients.resolve("nope"),
      (e: unknown) => e instanceof OAuthError && e.code === "invalid_client" && e.status === 401,
    );
  });
});

describe("new OAuthClients()", () => {
  test("refuses an Origin that is not http(s) and a bad fetchTimeout", (t) => {
    const db = open(t, ":memory:");
    applySchema(db, ClientsSchema);
    assert.throws(() => new OAuthClients(db, { Origin: "localhost:8080" }), /Origin must be an http or https origin/);
    assert.throws(
      () => new OAuthClients(db, { Origin: "https://app.example.com", fetchTimeout: 0 }),
      /fetchTimeout must be a whole number/,
    );
  });
});
