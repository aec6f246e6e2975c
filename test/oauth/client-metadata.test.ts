/*
 * Fetching Client ID Metadata Documents from real https servers on
 * 127.0.0.1, certified by the run's test CA (test/_support/test-ca.ts).
 * Loopback is where such a server can be, so a fetch succeeds only with
 * `allowLoopback` (latch itself on loopback, development); without it the
 * same server is refused as the loopback address `localhost` resolves to,
 * which is the private-address refusal production applies.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test, type TestContext } from "node:test";
import {
  cacheMaxAge,
  clientIDURLProblem,
  fetchClientMetadata,
  MAX_METADATA_BYTES,
  METADATA_FETCH_TIMEOUT,
  type MetadataFetchOptions,
} from "../../lib/oauth/client-metadata.ts";
import { OAuthError } from "../../lib/oauth/errors.ts";
import { startServer, type Listening } from "../_support/server.ts";
import { testCA } from "../_support/test-ca.ts";

type Serve = (req: IncomingMessage, res: ServerResponse, url: string) => void;

/** An https server on 127.0.0.1 for `localhost` (the test CA's certificate); `serve` gets the document's URL. */
async function documentServer(t: TestContext, serve: Serve): Promise<Listening> {
  const { key, cert } = testCA();
  let base = "";
  const served = await startServer(t, (req, res) => serve(req, res, `${base}${req.url ?? "/"}`), { tls: { key, cert } });
  base = served.base;
  return served;
}

/** Serves `doc(url)` as JSON (with `headers`). */
function json(doc: (url: string) => unknown, headers: Record<string, string> = {}): Serve {
  return (_req, res, url) => {
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(doc(url)));
  };
}

const good = (url: string): unknown => ({
  client_id: url,
  client_name: "Example Agent",
  redirect_uris: ["http://127.0.0.1:3000/callback", "https://agent.example/cb"],
  token_endpoint_auth_method: "none",
});

const dev: MetadataFetchOptions = { allowLoopback: true, ca: testCA().ca };

/** Asserts that `promise` rejects with OAuthError invalid_client whose description matches `message`. */
async function refuses(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof OAuthError, String(e));
    assert.equal(e.code, "invalid_client");
    assert.equal(e.status, 401);
    assert.match(e.message, message);
    // RFC 6749 §5.2: error_description is %x20-21 / %x23-5B / %x5D-7E.
    assert.match(e.message, /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/);
    return true;
  });
}

describe("fetchClientMetadata()", () => {
  test("fetches and checks a document over https, trusting the given CA", async (t) => {
    const { base } = await documentServer(t, json(good, { "cache-control": "max-age=120" }));
    const url = `${base}/client.json`;
    const { client, maxAge } = await fetchClientMetadata(url, dev);
    assert.deepEqual(client, {
      ClientID: url,
      Name: "Example Agent",
      Host: "localhost",
      RedirectURIs: ["http://127.0.0.1:3000/callback", "https://agent.example/cb"],
      GrantTypes: ["authorization_code"],
    });
    assert.equal(maxAge, 120_000);
  });

  test("sends the document's host name in Host and TLS, while connecting to the checked address", async (t) => {
    let host: string | undefined;
    let servername: string | undefined;
    const { base, server } = await documentServer(t, (req, res, url) => {
      host = req.headers.host;
      json(good)(req, res, url);
    });
    server.on("secureConnection", (socket: { servername?: string | false }) => {
      servername = typeof socket.servername === "string" ? socket.servername : undefined;
    });
    await fetchClientMetadata(`${base}/client.json`, dev);
    assert.equal(host, new URL(base).host);
    assert.equal(servername, "localhost");
  });

  test("refuses a host that resolves to a loopback address unless latch itself runs on loopback", async (t) => {
    let hits = 0;
    const { base } = await documentServer(t, (req, res, url) => {
      hits++;
      json(good)(req, res, url);
    });
    await refuses(
      fetchClientMetadata(`${base}/client.json`, { ca: testCA().ca }),
      /the client_id's host resolves to a loopback address, which latch does not fetch from/,
    );
    const literal = `https://127.0.0.1:${new URL(base).port}/client.json`;
    await refuses(fetchClientMetadata(literal, { ca: testCA().ca }), /host resolves to a loopback address/);
    assert.equal(hits, 0, "nothing was requested");
  });

  test("refuses http, except on a loopback host in development", async (t) => {
    await refuses(fetchClientMetadata("http://agent.example/client.json"), /client_id must be an https URL$/);
    const plain = await startServer(t, (req, res) => json(good)(req, res, `http://localhost:${plain.port}${req.url ?? ""}`));
    const url = `http://localhost:${plain.port}/client.json`;
    await refuses(fetchClientMetadata(url), /client_id must be an https URL/);
    assert.equal((await fetchClientMetadata(url, { allowLoopback: true })).client.Name, "Example Agent");
    await refuses(
      fetchClientMetadata("http://agent.example/client.json", { allowLoopback: true }),
      /https URL \(or http on a loopback host\)/,
    );
  });

  test("refuses a certificate no trusted root signed", async (t) => {
    const { base } = await documentServer(t, json(good));
    await refuses(fetchClientMetadata(`${base}/client.json`, { allowLoopback: true }), /could not be fetched \([A-Z_]+\)/);
  });

  test(`reads a document of ${MAX_METADATA_BYTES} bytes and refuses one byte more, declared or not`, async (t) => {
    assert.equal(MAX_METADATA_BYTES, 5 * 1024);
    const sized =
      (size: number, declare: boolean): Serve =>
      (_req, res, url) => {
        const text = JSON.stringify(good(url));
        const body = text + " ".repeat(size - Buffer.byteLength(text));
        res.writeHead(
          200,
          declare ? { "content-type": "application/json", "content-length": String(size) } : { "content-type": "application/json" },
        );
        if (declare) res.end(body);
        else {
          res.write(body.slice(0, 100));
          res.end(body.slice(100));
        }
      };
    const exact = await documentServer(t, sized(MAX_METADATA_BYTES, true));
    assert.equal((await fetchClientMetadata(`${exact.base}/c.json`, dev)).client.Name, "Example Agent");
    const over = await documentServer(t, sized(MAX_METADATA_BYTES + 1, true));
    await refuses(fetchClientMetadata(`${over.base}/c.json`, dev), /larger than 5120 bytes/);
    const chunked = await documentServer(t, sized(MAX_METADATA_BYTES + 1, false));
    await refuses(fetchClientMetadata(`${chunked.base}/c.json`, dev), /larger than 5120 bytes/);
  });

  test("refuses a server that never answers once the time limit passes", async (t) => {
    assert.equal(METADATA_FETCH_TIMEOUT, 5_000);
    // Never answers: the request is held open until the server closes.
    const { base } = await documentServer(t, () => undefined);
    await refuses(fetchClientMetadata(`${base}/client.json`, { ...dev, timeout: 50 }), /did not arrive within 50 ms/);
  });

  test("does not follow a redirect", async (t) => {
    let followed = false;
    const { base } = await documentServer(t, (req, res, url) => {
      if (req.url === "/moved.json") {
        followed = true;
        json(good)(req, res, url);
        return;
      }
      res.writeHead(302, { location: "/moved.json" });
      res.end();
    });
    await refuses(fetchClientMetadata(`${base}/client.json`, dev), /answered 302 \(redirects are not followed\)/);
    assert.equal(followed, false);
  });

  const documents: { name: string; serve: Serve; message: RegExp }[] = [
    {
      name: "an answer that is not JSON",
      serve: (_req, res) => res.end("<html>not here</html>"),
      message: /the metadata document is not JSON/,
    },
    { name: "a JSON array", serve: json(() => [1]), message: /not a JSON object/ },
    { name: "an error status", serve: (_req, res) => res.writeHead(404).end("{}"), message: /answered 404$/ },
    {
      name: "a client_id that is not the URL",
      serve: json((url) => ({ ...(good(url) as object), client_id: "https://other.example/client.json" })),
      message: /client_id is not its URL/,
    },
    {
      name: "a client_id that differs in case",
      serve: json((url) => ({ ...(good(url) as object), client_id: url.toUpperCase() })),
      message: /client_id is not its URL/,
    },
    {
      name: "a redirect URI on http off loopback",
      serve: json((url) => ({ ...(good(url) as object), redirect_uris: ["http://agent.example/cb"] })),
      message: /redirect_uris\[0\] uses http on a host that is not loopback/,
    },
    {
      name: "a confidential client",
      serve: json((url) => ({ ...(good(url) as object), token_endpoint_auth_method: "client_secret_post" })),
      message: /token_endpoint_auth_method must be 'none'/,
    },
    {
      name: "no client_name",
      serve: json((url) => ({ client_id: url, redirect_uris: ["https://agent.example/cb"] })),
      message: /has no client_name/,
    },
    {
      name: "a client_name holding a right-to-left override (UAX #9 §2)",
      serve: json((url) => ({ ...(good(url) as object), client_name: "Claude Desktop\u202e" })),
      message: /the metadata document: client_name holds an invisible formatting character/,
    },
    {
      name: "a loopback redirect URI on port 65536",
      serve: json((url) => ({ ...(good(url) as object), redirect_uris: ["http://127.0.0.1:65536/callback"] })),
      message: /redirect_uris\[0\] has a port outside 1-65535/,
    },
  ];
  for (const row of documents) {
    test(`refuses ${row.name}`, async (t) => {
      const { base } = await documentServer(t, row.serve);
      await refuses(fetchClientMetadata(`${base}/client.json`, dev), row.message);
    });
  }
});

describe("clientIDURLProblem()", () => {
  const rows: { id: string; want: RegExp | undefined }[] = [
    { id: "https://agent.example/client.json", want: undefined },
    { id: "https://agent.example:8443/oauth/client?v=2", want: undefined },
    { id: "not a url", want: /is not a URL/ },
    { id: "ftp://agent.example/client.json", want: /must be an https URL/ },
    { id: "https://agent.example/client.json#x", want: /fragment/ },
    { id: "https://me:pw@agent.example/client.json", want: /user name or password/ },
    { id: "https://agent.example/", want: /must have a path/ },
    { id: "https://agent.example", want: /must have a path/ },
    { id: "https://agent.example/a/../client.json", want: /\. or \.\. path segments/ },
    { id: "https://agent.example/./client.json", want: /\. or \.\. path segments/ },
    { id: "https://Agent.Example/client.json", want: /must be written in normal form/ },
    { id: "https://agent.example:443/client.json", want: /must be written in normal form/ },
  ];
  for (const { id, want } of rows) {
    test(`${id}: ${want === undefined ? "fetched" : String(want)}`, () => {
      const problem = clientIDURLProblem(id, false);
      if (want === undefined) assert.equal(problem, undefined);
      else assert.match(problem ?? "", want);
    });
  }
});

describe("cacheMaxAge()", () => {
  const rows: { header: string | undefined; want: number | undefined }[] = [
    { header: undefined, want: undefined },
    { header: "public", want: undefined },
    { header: "max-age=60", want: 60_000 },
    { header: "public, Max-Age=300", want: 300_000 },
    { header: "no-store", want: 0 },
    { header: "no-cache, max-age=60", want: 0 },
    { header: "max-age=0", want: 0 },
  ];
  for (const { header, want } of rows) test(`${String(header)} → ${String(want)}`, () => assert.equal(cacheMaxAge(header), want));
});
