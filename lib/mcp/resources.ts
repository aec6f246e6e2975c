/*
 * The application's records as MCP resources, read-only, for both eras (README, "Records as resources"). A read tool
 * declaring `Records` (latch/agent `RecordsRole`) is a URI template, `latch://<collection>/{<key>}…` over its required
 * arguments; its collection's "list" tool pages `resources/list`. Every read is that tool's call through ToolInvoker, so
 * the tool's own scope check answers (another person's record is the unknown one), it is audited as the tool call, and
 * counted against the token's rate. This file never sees a table or a scope: lib/mcp reaches records only through agent.
 */
import type { Caller, TokenGrant, ToolCallLimiter, ToolDef, ToolInvoker } from "../agent/index.ts";
import { JSONRPC_ERRORS, isObject, type RPCError } from "./jsonrpc.ts";

/** The URI scheme of a record (MCP server/resources §Custom URI Schemes; RFC 3986 §3.1). */
export const RECORD_SCHEME = "latch";

/** The media type of a record's contents: the read tool's JSON answer. */
export const RECORD_MIME_TYPE = "application/json";

/** The codes an era answers with: a resource not found (2025-11-25: -32002; 2026-07-28: -32602), a token past its rate. */
export interface RecordCodes {
  readonly NotFound: number;
  readonly RateLimited: number;
}

/** A resources method's answer: the result, or the error; `ended`: the token ended while the read ran. */
export type RecordAnswer = { result: Record<string, unknown> } | { error: RPCError } | { ended: true };

type Collection = { read?: ToolDef; list?: ToolDef };

/** The collections `caller` may read, by name, sorted: their read and list tools. */
function collections(invoker: ToolInvoker, caller: Caller): Map<string, Collection> {
  const found = new Map<string, Collection>();
  for (const def of invoker.tools(caller)) {
    if (def.Records === undefined) continue;
    const entry = found.get(def.Records.Collection) ?? {};
    entry[def.Records.Role] = def;
    found.set(def.Records.Collection, entry);
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Whether any record is offered: the `resources` capability. Read tools are every token's, so it is the same for all. */
export function offersRecords(invoker: ToolInvoker, caller: Caller): boolean {
  return [...collections(invoker, caller).values()].some((c) => c.read !== undefined);
}

/** The arguments naming one record of a "read" tool, in its declared order: the URI's segments after the collection. */
function keysOf(read: ToolDef): string[] {
  return read.Tool.Args.filter((a) => a.Required === true).map((a) => a.Name);
}

/** Returns the records' URI templates (RFC 6570 level 1), one per collection with a read tool. */
export function recordTemplates(invoker: ToolInvoker, caller: Caller): Record<string, unknown>[] {
  return [...collections(invoker, caller)].flatMap(([name, { read }]) =>
    read === undefined
      ? []
      : [
          {
            uriTemplate: `${RECORD_SCHEME}://${name}/${keysOf(read)
              .map((k) => `{${k}}`)
              .join("/")}`,
            name,
            description: read.Tool.Description,
            mimeType: RECORD_MIME_TYPE,
          },
        ],
  );
}

function notFound(codes: RecordCodes, uri: string): RecordAnswer {
  // MCP server/resources §Error Handling: an unknown resource is an error, never an empty `contents`.
  return { error: { code: codes.NotFound, message: "resource not found", data: { uri } } };
}

function rateLimited(codes: RecordCodes, retryAfter: number): RecordAnswer {
  return { error: { code: codes.RateLimited, message: "rate limited: too many tool calls for this token", data: { retryAfter } } };
}

function internal(ref: string): RecordAnswer {
  return { error: { code: JSONRPC_ERRORS.InternalError, message: `internal error (reference ${ref})` } };
}

/** The segments of `uri` after `latch://`, decoded; undefined for any other URI or a malformed escape. */
function segmentsOf(uri: string): string[] | undefined {
  const prefix = `${RECORD_SCHEME}://`;
  if (!uri.startsWith(prefix)) return undefined;
  try {
    return uri.slice(prefix.length).split("/").map(decodeURIComponent);
  } catch {
    return undefined;
  }
}

/**
 * Reads the record `uri` names for `caller` through its collection's read tool. A URI of no template, of a collection
 * the caller may not read, or naming a record the tool does not find for the caller (unknown, another person's, a team
 * they are not in) gets one answer: not found (MCP server/resources §Security Considerations: access controls).
 */
export async function readRecord(
  invoker: ToolInvoker,
  limiter: ToolCallLimiter,
  codes: RecordCodes,
  params: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
): Promise<RecordAnswer> {
  const uri = params["uri"];
  if (typeof uri !== "string") return { error: { code: JSONRPC_ERRORS.InvalidParams, message: "invalid params: uri must be a string" } };
  const [name = "", ...values] = segmentsOf(uri) ?? [];
  const read = collections(invoker, caller).get(name)?.read;
  const keys = read === undefined ? [] : keysOf(read);
  if (read === undefined || values.length !== keys.length) return notFound(codes, uri);
  // MCP 2025-11-25 server/tools §Security Considerations: a read is a tool call, counted against the token's rate.
  const rate = limiter.take(grant.TokenID);
  if (!rate.ok) return rateLimited(codes, rate.retryAfter);
  const outcome = await invoker.call(caller, read.Name, Object.fromEntries(keys.map((k, i) => [k, values[i]])));
  if (outcome.kind === "unauthorized") return { ended: true };
  if (outcome.kind === "failed") return internal(outcome.ref);
  if (outcome.kind !== "ok") return notFound(codes, uri);
  return { result: { contents: [{ uri, mimeType: RECORD_MIME_TYPE, text: JSON.stringify(outcome.result) }] } };
}

/** A `resources/list` cursor: the collection listed and its list tool's `after` ("" for its first page), base64url JSON. */
function encodeCursor(collection: string, after: string): string {
  return Buffer.from(JSON.stringify([collection, after])).toString("base64url");
}

function invalidCursor(): RecordAnswer {
  return { error: { code: JSONRPC_ERRORS.InvalidParams, message: "invalid params: cursor was not issued by this server" } };
}

function decodeCursor(cursor: string): [string, string] | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    const [collection, after] = Array.isArray(value) && value.length === 2 ? value : [];
    if (typeof collection === "string" && typeof after === "string") return [collection, after];
  } catch {
    // Not JSON: refused below as any other cursor not issued here.
  }
  return undefined;
}

/** The resources of one list tool's answer: `{ items: [{ id, … }] }`, each item with a string id. */
function listed(name: string, title: string | undefined, result: unknown): Record<string, unknown>[] {
  const items = isObject(result) && Array.isArray(result["items"]) ? (result["items"] as unknown[]) : [];
  return items.flatMap((item) => {
    if (!isObject(item) || typeof item["id"] !== "string") return [];
    const shown = title === undefined ? undefined : item[title];
    return [
      {
        uri: `${RECORD_SCHEME}://${name}/${encodeURIComponent(item["id"])}`,
        name: `${name}/${item["id"]}`,
        ...(typeof shown === "string" && shown !== "" && { title: shown }),
        mimeType: RECORD_MIME_TYPE,
      },
    ];
  });
}

/**
 * Lists one page of the caller's records (MCP server/utilities/pagination): one page of one collection's list tool (its
 * page size, `LIST_PAGE_SIZE` for a manifest resource), the collections in name order, an empty one skipped. Only a
 * collection whose list tool needs no argument is listed: a team's records are read through their template, which names
 * the team. A cursor not issued here: -32602.
 */
export async function listRecords(
  invoker: ToolInvoker,
  limiter: ToolCallLimiter,
  codes: RecordCodes,
  params: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
): Promise<RecordAnswer> {
  const listable = [...collections(invoker, caller)].flatMap(([name, { list }]) =>
    list !== undefined && list.Tool.Args.every((a) => a.Required !== true) ? [[name, list] as const] : [],
  );
  const cursor = params["cursor"];
  const position = typeof cursor === "string" ? decodeCursor(cursor) : cursor === undefined ? [listable[0]?.[0] ?? "", ""] : undefined;
  let index = listable.findIndex(([name]) => name === position?.[0]);
  if (position === undefined || (index < 0 && listable.length > 0)) return invalidCursor();
  const rate = limiter.take(grant.TokenID);
  if (!rate.ok) return rateLimited(codes, rate.retryAfter);
  let after = position[1];
  // Bounded: at most one list call per collection, a fixed number at startup.
  for (; index >= 0 && index < listable.length; index++, after = "") {
    const [name, list] = listable[index] as (typeof listable)[number];
    const outcome = await invoker.call(caller, list.Name, after === "" ? {} : { after });
    if (outcome.kind === "unauthorized") return { ended: true };
    if (outcome.kind === "failed") return internal(outcome.ref);
    // The list tool refuses an `after` it did not issue (400): so is the cursor carrying it.
    if (outcome.kind !== "ok") return invalidCursor();
    const next = isObject(outcome.result) ? outcome.result["next"] : undefined;
    const resources = listed(name, list.Records?.Title, outcome.result);
    if (typeof next === "string") return { result: { resources, nextCursor: encodeCursor(name, next) } };
    const following = listable[index + 1]?.[0];
    if (following === undefined) return { result: { resources } };
    if (resources.length > 0) return { result: { resources, nextCursor: encodeCursor(following, "") } };
  }
  return { result: { resources: [] } };
}

/** The methods of resources (MCP server/resources), of both eras. */
const RECORD_METHODS: ReadonlySet<string> = new Set(["resources/templates/list", "resources/list", "resources/read"]);

/**
 * Answers `method` when it is a resources method and the application offers records; undefined otherwise, for the
 * caller to answer as any unknown method (the `resources` capability is not declared then).
 */
export async function recordMethod(
  method: string,
  config: { readonly Invoker: ToolInvoker },
  limiter: ToolCallLimiter,
  codes: RecordCodes,
  params: Record<string, unknown>,
  grant: TokenGrant,
  caller: Caller,
): Promise<RecordAnswer | undefined> {
  const invoker = config.Invoker;
  if (!RECORD_METHODS.has(method) || !offersRecords(invoker, caller)) return undefined;
  if (method === "resources/templates/list") return { result: { resourceTemplates: recordTemplates(invoker, caller) } };
  return (method === "resources/read" ? readRecord : listRecords)(invoker, limiter, codes, params, grant, caller);
}

/** The server's capabilities: its tools, and `resources` when it offers records (MCP server/resources §Capabilities). */
export function serverCapabilities(invoker: ToolInvoker, caller: Caller): Record<string, unknown> {
  return { tools: { listChanged: false }, ...(offersRecords(invoker, caller) && { resources: {} }) };
}
