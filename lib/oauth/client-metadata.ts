/*
 * Fetching a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document-00, "CIMD"), built against
 * server-side request forgery (CIMD §6.5; MCP 2025-11-25 authorization, "Authorization Server Abuse Protection"; OWASP
 * ASVS 5.0 §1.3.6): https only, the host resolved once and every address checked, the connection made to that checked
 * address (no second lookup), redirects never followed, size and time bounded (README, "Metadata documents").
 */
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { OAuthClient } from "./client.ts";
import { ownField } from "../internal/index.ts";
import { OAuthError } from "./errors.ts";
import { parseClientFields } from "./registration.ts";
import { isLoopbackAddress, specialUseRange } from "./special-address.ts";

/** The largest metadata document read: 5 KiB (CIMD §6.6 recommends 5 kilobytes). Registration bodies share it. */
export const MAX_METADATA_BYTES: number = 5 * 1024;

/** How long fetching a metadata document may take, lookup, connection and body together: 5 s. */
export const METADATA_FETCH_TIMEOUT: number = 5_000;

/** How a metadata document is fetched. */
export interface MetadataFetchOptions {
  /** Let the document live on this machine: http on a loopback host, loopback addresses (development only). @default false */
  allowLoopback?: boolean;
  /** The whole fetch's time limit, in ms. @default METADATA_FETCH_TIMEOUT */
  timeout?: number;
  /** Certificates of extra trusted roots (PEM), beside Node's: for tests and private CAs. */
  ca?: string | readonly string[];
}

/** A fetched and checked document: the client, and how long it may be cached (ms; 0: not at all). */
export interface FetchedMetadata {
  readonly client: OAuthClient;
  /** `Cache-Control: max-age` in ms, 0 for no-store or no-cache, undefined when the answer did not say. */
  readonly maxAge: number | undefined;
}

/** Reports what is wrong with `clientId` as a metadata document URL (CIMD §3), or `undefined` when latch may fetch it. */
export function clientIDURLProblem(clientId: string, allowLoopback: boolean): string | undefined {
  const url = URL.parse(clientId);
  if (url === null) return "is not a URL";
  // CIMD §3: https; MCP 2025-11-25: http only on a loopback host while latch itself runs on loopback.
  if (url.protocol !== "https:" && !(allowLoopback && url.protocol === "http:" && isLoopbackName(url.hostname))) {
    return allowLoopback ? "must be an https URL (or http on a loopback host)" : "must be an https URL";
  }
  // CIMD §3: no fragment, no user name or password, a path, no dot segments.
  if (clientId.includes("#")) return "must not have a fragment";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password";
  if (url.pathname === "/") return "must have a path (https://example.com/client.json)";
  if (/\/\.{1,2}(?:[/?]|$)/.test(clientId.replace(/^https?:\/\/[^/]*/, ""))) return "must not hold . or .. path segments";
  // CIMD §4.1 compares the document's client_id with the URL string for string; only the written-out form can match.
  if (url.href !== clientId) return "must be written in normal form (lowercase host, no default port, nothing escaped to undo)";
  return undefined;
}

/**
 * Fetches and checks the metadata document at `clientId`. Throws `OAuthError` "invalid_client" (401) saying what was
 * refused: the URL, an address that is not public, no answer in time, an answer not 200, too large, or not a valid document.
 */
export async function fetchClientMetadata(clientId: string, options: MetadataFetchOptions = {}): Promise<FetchedMetadata> {
  const allowLoopback = options.allowLoopback ?? false;
  const problem = clientIDURLProblem(clientId, allowLoopback);
  if (problem !== undefined) throw metadataRefused(`client_id ${problem}`);
  const url = new URL(clientId);
  const timeout = options.timeout ?? METADATA_FETCH_TIMEOUT;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeout);
  try {
    const address = await publicAddress(url.hostname, allowLoopback, deadline.signal);
    const res = await get(url, address, options.ca, deadline.signal);
    // CIMD §4.3: a failed fetch aborts the request; a redirect is an unchecked new URL, never followed.
    if (res.status !== 200) {
      const redirect = res.status >= 300 && res.status < 400 ? " (redirects are not followed)" : "";
      throw metadataRefused(`the metadata document answered ${res.status}${redirect}`);
    }
    return { client: parseDocument(clientId, res.body), maxAge: res.maxAge };
  } catch (e) {
    if (e instanceof OAuthError) throw e;
    if (deadline.signal.aborted) throw metadataRefused(`the metadata document did not arrive within ${timeout} ms`);
    throw metadataRefused(`the metadata document could not be fetched (${errorCode(e)})`);
  } finally {
    clearTimeout(timer);
  }
}

/** Checks a fetched document (`body`, raw bytes) against the `clientId` it was fetched from. */
export function parseDocument(clientId: string, body: Buffer): OAuthClient {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString("utf8"));
  } catch {
    throw metadataRefused("the metadata document is not JSON");
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw metadataRefused("the metadata document is not a JSON object");
  const id = ownField(doc, "client_id");
  // CIMD §4.1: client_id MUST match the document's URL (simple string comparison, RFC 3986 §6.2.1).
  if (id !== clientId) throw metadataRefused("the metadata document's client_id is not its URL");
  const fields = parseClientFields(doc);
  if (!fields.ok) throw metadataRefused(`the metadata document: ${fields.reason}`);
  // MCP 2025-11-25 authorization, "Client ID Metadata Documents": client_name is required.
  if (fields.fields.clientName === undefined) throw metadataRefused("the metadata document has no client_name");
  const host = new URL(clientId).hostname;
  return {
    ClientID: clientId,
    Name: fields.fields.clientName,
    // CIMD §6.4: the person is shown the client_id's host; "localhost" for one on this machine.
    Host: isLoopbackName(host) ? "localhost" : host,
    RedirectURIs: fields.fields.redirectURIs,
    GrantTypes: fields.fields.grantTypes,
  };
}

/** Reads `Cache-Control` into a lifetime in ms: 0 for no-store or no-cache, `max-age` otherwise, else undefined (RFC 9111 §5.2.2). */
export function cacheMaxAge(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const directives = header
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
  const maxAge = directives.map((d) => /^max-age="?(\d+)"?$/.exec(d)?.[1]).find((v) => v !== undefined);
  return maxAge === undefined ? undefined : Number(maxAge) * 1000;
}

/** The refusal of a metadata document, "invalid_client"; RFC 6749 §5.2: it names what was refused, never the client's own text. */
export function metadataRefused(reason: string): OAuthError {
  return new OAuthError("invalid_client", `client metadata: ${reason}`);
}

function errorCode(e: unknown): string {
  const code: unknown = e instanceof Error && "code" in e ? e.code : undefined;
  return typeof code === "string" ? code : "network error";
}

// Reports whether `hostname` (as URL gives it) names this machine.
function isLoopbackName(hostname: string): boolean {
  if (hostname === "localhost") return true;
  const literal = hostname.replace(/^\[(.*)\]$/, "$1");
  return isIP(literal) !== 0 && isLoopbackAddress(literal);
}

// Resolves `hostname` once and returns an address to connect to, when every
// address it has is public (loopback too, when allowed).
async function publicAddress(hostname: string, allowLoopback: boolean, signal: AbortSignal): Promise<{ address: string; family: number }> {
  const name = hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = await Promise.race([lookup(name, { all: true, verbatim: true }), aborted(signal)]);
  for (const { address } of addresses) {
    const range = specialUseRange(address);
    // CIMD §6.5, RFC 6890: no special-use address; loopback only while latch itself runs on loopback.
    if (range !== undefined && !(allowLoopback && range === "loopback")) {
      throw metadataRefused(`the client_id's host resolves to a ${range} address, which latch does not fetch from`);
    }
  }
  const first = addresses[0];
  if (first === undefined) throw metadataRefused("the client_id's host has no address");
  return first;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

/** What `get` read: the status, the capped body and the cache lifetime. */
interface Answer {
  status: number;
  body: Buffer;
  maxAge: number | undefined;
}

// GETs `url` from the checked `address`, keeping the name for TLS (SNI and
// the certificate check) and the Host header, reading at most MAX_METADATA_BYTES.
function get(
  url: URL,
  address: { address: string; family: number },
  ca: string | readonly string[] | undefined,
  signal: AbortSignal,
): Promise<Answer> {
  const https = url.protocol === "https:";
  const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const options = {
    host: address.address,
    family: address.family,
    port: url.port === "" ? (https ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: { host: url.host, accept: "application/json" },
    signal,
    agent: false,
    // RFC 6066 §3: SNI carries a name, never an address; the certificate is then checked against the address.
    servername: isIP(name) === 0 ? name : "",
    ...(ca === undefined ? {} : { ca: typeof ca === "string" ? ca : [...ca] }),
  };
  return new Promise<Answer>((resolve, reject) => {
    const req = (https ? httpsRequest : httpRequest)(options, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const maxAge = cacheMaxAge(res.headers["cache-control"]);
      const tooLarge = (): void => {
        res.destroy();
        reject(metadataRefused(`the metadata document is larger than ${MAX_METADATA_BYTES} bytes`));
      };
      if (Number(res.headers["content-length"] ?? "0") > MAX_METADATA_BYTES) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_METADATA_BYTES) return tooLarge();
        chunks.push(chunk);
      });
      res.on("end", () => resolve({ status, body: Buffer.concat(chunks), maxAge }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
