/*
 * Tools over HTTP: `GET /api/tools` lists what the caller may call, `POST /api/tools/{name}` runs one through
 * `ToolInvoker`. `Authenticate` accepts an agent token only as `Authorization: Bearer` (RFC 6750 §2.1), else the
 * session; every refused token gets one identical 401 (RFC 6750 §3.1). The answers: README, Tokens and "Tool calls".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  writeJSON,
  isAbortHandler,
  isLatchError,
  isLocalPath,
  readJSON,
  HTTPError,
  type HandlerFunc,
  type Middleware,
} from "../http/index.ts";
import { credentialHeld, needRoute, parseOrigin } from "../internal/index.ts";
import { PathValue, type Mux } from "../router/index.ts";
import type { Sessions } from "../session/index.ts";
import type { ToolDef } from "./action.ts";
import { registryOf, type CallOutcome, type Caller, type ToolInvoker } from "./invoke.ts";
import { limiterFor, type ToolCallLimiter } from "./rate.ts";
import { actorFrom, grantFrom, subjectFrom, verifyBearer } from "./request.ts";
import type { AgentTokens } from "./tokens.ts";

/** What `newToolsAPI` needs. */
export interface ToolsAPIConfig {
  Invoker: ToolInvoker;
  Tokens: AgentTokens;
  /** The session store, for human callers. */
  Sessions: Sessions;
  /** Public origin, base of `approval_url`. */
  Origin: string;
  /** Path of the approval page; the approval id is appended as a segment, e.g. "/account/approvals". */
  ApprovalPath: string;
  /**
   * How often each agent token may call tools (rate.ts). Give the MCP endpoint the same limiter.
   * @default one limiter of 60 calls a minute, 20 at once, per `Tokens`, shared with the MCP endpoint of the same `Tokens`
   */
  RateLimit?: ToolCallLimiter;
}

/** The tools endpoint's middleware and handlers. */
export interface ToolsAPI {
  /** Requires a caller: a valid bearer token (agent) or a session (human). */
  Authenticate: Middleware;
  /** `GET /api/tools`. */
  List: HandlerFunc;
  /** `POST /api/tools/{name}`. */
  Call: HandlerFunc;
}

/** The path of the tools endpoint as an OAuth protected resource: its access tokens name `<Origin>/api/tools`. */
export const TOOLS_RESOURCE_PATH = "/api/tools";

/** The `WWW-Authenticate` challenge of a refused token (RFC 6750 §3.1). */
export const INVALID_TOKEN_CHALLENGE = 'Bearer realm="api", error="invalid_token"';

function unauthorized(res: ServerResponse, challenge: string): void {
  res.setHeader("WWW-Authenticate", challenge);
  writeJSON(res, 401, { error: "unauthorized: a valid bearer token or a session is required" });
}

/**
 * Returns the caller of a request: the agent of a token `verifyBearer` accepted, else the session's human, else
 * undefined. `via` names a transport other than the tools endpoint; `StillHeld` asks lib/internal credential.ts again.
 */
export function callerFrom(req: IncomingMessage, via?: string): Caller | undefined {
  const subject = subjectFrom(req);
  if (subject === undefined) return undefined;
  const stillHeld = (): boolean => credentialHeld(req, subject);
  return { Actor: actorFrom(req), Subject: subject, Grant: grantFrom(req), StillHeld: stillHeld, ...(via !== undefined && { Via: via }) };
}

/**
 * Reads a call's body with `read` (which never resolves to undefined). A body the client got wrong (a latch error with
 * a status) is answered at that status with `refusal(message)` and undefined returned; anything else propagates.
 */
export async function readCallBody<T>(
  req: IncomingMessage,
  res: ServerResponse,
  read: (req: IncomingMessage) => Promise<T>,
  refusal: (message: string) => unknown,
): Promise<T | undefined> {
  try {
    return await read(req);
  } catch (err) {
    if (isAbortHandler(err) || !isLatchError(err) || err.status === undefined) throw err;
    writeJSON(res, err.status, refusal(err.message));
    return undefined;
  }
}

/** What an agent is told when a write call awaits its person's approval, on every transport. */
export const APPROVAL_INSTRUCTION =
  "A write call runs only after the person you act for approves it at the approval URL you are given; then repeat the call unchanged.";

/** Returns the absolute URL of approval request `id`'s page: `ApprovalPath/<id>` on `Origin`. */
export function approvalURL(config: Pick<ToolsAPIConfig, "Origin" | "ApprovalPath">, id: string): string {
  return new URL(`${config.ApprovalPath}/${encodeURIComponent(id)}`, config.Origin).href;
}

/** Returns the description of `def` that `GET /api/tools` lists. */
export function describeTool(def: ToolDef): Record<string, unknown> {
  return {
    name: def.Name,
    description: def.Tool.Description,
    access: def.Tool.Access,
    ...(def.Tool.Confirm !== "" && { confirm: def.Tool.Confirm }),
    arguments: def.Tool.Args.map((a) => ({
      name: a.Name,
      type: a.Type,
      required: a.Required === true,
      description: a.Description,
      ...(a.Format !== undefined && { format: a.Format }),
      ...(a.Enum !== undefined && { enum: a.Enum }),
      ...(a.Minimum !== undefined && { minimum: a.Minimum }),
      ...(a.Maximum !== undefined && { maximum: a.Maximum }),
    })),
  };
}

/** Throws `HTTPError` `ERR_HTTP_INVALID_OPTIONS` naming the field unless `Origin` and `ApprovalPath` can build an `approval_url`. */
export function checkApprovalLink(config: Pick<ToolsAPIConfig, "Origin" | "ApprovalPath">, who: string): void {
  if (parseOrigin(config.Origin) === undefined)
    throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `${who}: Origin must be an http or https URL`);
  // RFC 3986 §4.2: an ApprovalPath of "//host" is a network-path reference; approvalURL would point at that host.
  if (typeof config.ApprovalPath !== "string" || !isLocalPath(config.ApprovalPath)) {
    throw new HTTPError("ERR_HTTP_INVALID_OPTIONS", `${who}: ApprovalPath must be a local path ("/..." but not "//" or "/\\")`);
  }
}

/**
 * Mounts the tools endpoint on `mux` in one call, as `mountResource` (latch/manifest) mounts a resource's pages:
 * `GET /api/tools` and `POST /api/tools/{name}` behind `Authenticate` (a bearer token or a session). Returns the
 * endpoint, whose `Authenticate` an application puts in front of routes of its own for the same callers.
 */
export function mountTools(mux: Mux, config: ToolsAPIConfig): ToolsAPI {
  const api = newToolsAPI(config);
  const callers = mux.With(api.Authenticate);
  callers.Handle(`GET ${TOOLS_RESOURCE_PATH}`, api.List);
  callers.Handle(`POST ${TOOLS_RESOURCE_PATH}/{name}`, api.Call);
  return api;
}

/**
 * Returns the tools endpoint for `config`. Throws `HTTPError`
 * `ERR_HTTP_INVALID_OPTIONS` for a bad `Origin` or `ApprovalPath` (`checkApprovalLink`).
 *
 * @example
 * const api = newToolsAPI({ Invoker, Tokens, Sessions: auth.Sessions, Origin, ApprovalPath: "/account/approvals" });
 * const agents = mux.With(api.Authenticate);
 * agents.Handle("GET /api/tools", api.List);
 * agents.Handle("POST /api/tools/{name}", api.Call);
 */
export function newToolsAPI(config: ToolsAPIConfig): ToolsAPI {
  checkApprovalLink(config, "tools api");
  const limiter = limiterFor(config.Tokens, config.RateLimit);
  // RFC 8707: the resource an OAuth access token must name to be accepted here.
  const resource = new URL(TOOLS_RESOURCE_PATH, config.Origin).href;
  const Authenticate: Middleware = (next) =>
    async function authenticateCaller(req, res) {
      const bearer = await verifyBearer(req, config.Tokens, resource);
      if (bearer === "invalid") return unauthorized(res, INVALID_TOKEN_CHALLENGE);
      if (bearer !== "none") return next(req, res);
      if (config.Sessions.read(req) === undefined) return unauthorized(res, 'Bearer realm="api"');
      return next(req, res);
    };

  const List: HandlerFunc = (req, res) => {
    const caller = callerFrom(req);
    if (caller === undefined) return unauthorized(res, 'Bearer realm="api"');
    writeJSON(res, 200, { tools: config.Invoker.tools(caller).map(describeTool) });
  };

  const Call: HandlerFunc = async (req, res) => {
    const caller = callerFrom(req);
    if (caller === undefined) return unauthorized(res, 'Bearer realm="api"');
    const rate = caller.Grant === undefined ? undefined : limiter.take(caller.Grant.TokenID);
    if (rate?.ok === false) {
      // OWASP ASVS 5.0 §2.4.1: anti-automation against excessive calls; RFC 6585 §4: 429 says when to retry.
      res.setHeader("Retry-After", String(rate.retryAfter));
      return writeJSON(res, 429, { error: `rate limited: too many tool calls for this token; retry after ${rate.retryAfter} s` });
    }
    const input = await readCallBody(req, res, readJSON, (message) => ({ error: message }));
    if (input === undefined) return;
    const outcome = await config.Invoker.call(caller, PathValue(req, "name") ?? "", input);
    // RFC 6750 §3.1: a token that ended while its call ran is answered as a revoked one; a session's end as no session.
    if (outcome.kind === "unauthorized")
      return unauthorized(res, caller.Grant === undefined ? 'Bearer realm="api"' : INVALID_TOKEN_CHALLENGE);
    answer(res, outcome, config);
  };

  // The approval page is the application's: the runtime warns at boot when its Mux does not route it.
  needRoute(Call, { Path: `${config.ApprovalPath}/{id}`, Option: "newToolsAPI ApprovalPath" });
  // An action's route is the application's to mount, with its pages' middleware (README, "An action's route"): the
  // runtime warns at boot about each registered one no pattern of its own serves (read then: resources register later).
  needRoute(Call, () =>
    (registryOf(config.Invoker)?.list() ?? []).map((def) => ({
      Path: def.Route,
      Option: `defineAction ${def.Name}`,
      Declared: { Method: def.Method },
    })),
  );
  return { Authenticate, List, Call };
}

function answer(res: ServerResponse, outcome: Exclude<CallOutcome, { kind: "unauthorized" }>, config: ToolsAPIConfig): void {
  switch (outcome.kind) {
    case "ok":
      return writeJSON(res, 200, { result: outcome.result });
    case "unknown_tool":
      return writeJSON(res, 404, { error: "unknown tool" });
    case "forbidden":
      return writeJSON(res, 403, { error: `forbidden: ${outcome.reason}` });
    case "invalid":
      return writeJSON(res, 400, {
        error: `invalid arguments: ${outcome.field || "body"} ${outcome.reason}`,
        field: outcome.field,
        reason: outcome.reason,
      });
    case "approval_required": {
      const url = approvalURL(config, outcome.approval);
      res.setHeader("Location", url);
      return writeJSON(res, 202, { status: "approval_required", approval_url: url, message: APPROVAL_INSTRUCTION });
    }
    case "refused":
      return writeJSON(res, outcome.status, { error: outcome.reason });
    case "failed":
      return writeJSON(res, 500, { error: "the tool failed", ref: outcome.ref });
  }
}
