/*
 * Step 7 of docs/guide.md: an MCP client connects, and a write waits for
 * its person. `/mcp` serves the same tools, tokens and approvals as
 * `/api/tools` over the Model Context Protocol, with the resource metadata
 * a client reads after its first 401. A write call (step 6's
 * `expenses_create`) is answered with a link to `/account/approvals/{id}`,
 * where the person sees the exact arguments and approves or declines;
 * `/account/approvals` lists every request waiting and decides several at
 * once, and every signed-in page shows how many wait.
 *
 * A client may also connect by the address alone: latch is the OAuth 2.1
 * authorization server of `/mcp` (latch/oauth), the resource metadata
 * names it, the person signs in and allows on the starter's consent page,
 * and the grant is an agent token like the others.
 */
import type { IncomingMessage } from "node:http";
import { writeError } from "latch";
import type { Approval, ToolRegistry } from "latch/agent";
import type { Assets } from "latch/assets";
import { readForm, seeOther } from "latch/http";
import type { DB } from "latch/db";
import { newMCPServer } from "latch/mcp";
import { newOAuthServer } from "latch/oauth";
import { PathValue, type Group, type Mux } from "latch/router";
import { From, type Signin } from "latch/signin";
import { mountApprovalList } from "../starter/approvals.ts";
import { approvable, approvalsPage, previewOf, type ApprovalView } from "../starter/pages/approvals.ts";
import { render, starterNav } from "../starter/pages/layout.ts";
import type { Shell } from "../starter/pages/teams.ts";
import { consentPage } from "../starter/pages/consent.ts";
import type { Agents } from "./agents.ts";

/** What connecting needs. */
export interface ConnectDeps {
  db: DB;
  mux: Mux;
  /** Step 2's sign-in: the person who allows a client is the request's session. */
  auth: Signin;
  /** Routes behind RequireFreshSession: approving a write is sensitive. */
  fresh: Group;
  /** Step 5's tokens, approvals and invoker. */
  agents: Agents;
  tools: ToolRegistry;
  assets: Assets;
  Origin: string;
}

/** What connecting gives back: the authorization server's housekeeping, for the sweep in main.ts. */
export interface Connected {
  /** Deletes lapsed codes and tokens, those of ended grants, and registrations unused (latch/oauth `Sweep`). */
  sweep(now: Date): Promise<unknown>;
}

/** Mounts the OAuth server, `/mcp` with its metadata, and the approval pages. */
export function mountConnect({ db, mux, auth, fresh, agents, tools, assets, Origin }: ConnectDeps): Connected {
  const { tokens, approvals, invoker } = agents;
  const oauth = newOAuthServer({
    DB: db,
    Tokens: tokens,
    Sessions: auth.Sessions,
    Origin,
    SigninPath: "/signin",
    StalePath: "/stepup",
    ConsentPage: (req, res, consent) => consentPage(req, res, assets, consent),
    ErrorPage: (req, res, status, message) => writeError(req, res, status, message),
  });
  // Every path under /oauth/ and /.well-known/ answers JSON; the MCP metadata routes below stay more specific.
  mux.With(auth.LoadSession).Handle("/oauth/", oauth.Handler);
  mux.Handle("/.well-known/", oauth.WellKnown);
  const mcp = newMCPServer({
    Invoker: invoker,
    Tokens: tokens,
    Origin,
    ApprovalPath: "/account/approvals",
    Name: "my-app",
    Version: "1.0.0",
    AuthorizationServer: oauth,
  });
  mux.Handle("/mcp", mcp.Handler);
  mux.Handle("GET /.well-known/oauth-protected-resource/mcp", mcp.ResourceMetadata);
  mux.Handle("GET /.well-known/oauth-protected-resource", mcp.ApplicationMetadata);

  const subject = (req: IncomingMessage): string => From(req)?.Subject ?? "";
  // A request as the page shows it: who asks (its token's name) and the tool's confirm sentence.
  const view = (req: IncomingMessage, approval: Approval): ApprovalView => {
    const token = tokens.list(subject(req)).find((t) => t.ID === approval.TokenID);
    return {
      approval,
      agent: token === undefined ? "agent" : `agent:${token.Name}`,
      confirm: tools.get(approval.Tool)?.Tool.Confirm ?? "",
      preview: previewOf(req, tools.get(approval.Tool), approval),
    };
  };
  // The list with its batch decision, and the waiting count every signed-in page shows.
  const shell: Shell = (req, res, assets, page, status) => render(req, res, assets, { nav: starterNav(req), ...page }, status);
  mountApprovalList({ fresh, user: mux.With(auth.LoadSession), approvals, view, assets, shell });
  fresh.Handle("GET /account/approvals/{id}", (req, res) => {
    const approval = approvals.get(PathValue(req, "id"), subject(req));
    if (approval === undefined) return writeError(req, res, 404, "approval: no such request");
    // One request's page shows what its call would do (its tool's preview).
    approvalsPage(req, res, assets, [view(req, approval)], new Date());
  });
  fresh.Handle("POST /account/approvals/{id}", async (req, res) => {
    const id = PathValue(req, "id");
    const decision = (await readForm(req)).get("decision") ?? "";
    // A stale call has nothing to approve (its tool would refuse it): nothing is decided, and the page says why.
    const asked = decision === "approve" ? approvals.get(id, subject(req)) : undefined;
    if (asked !== undefined && !approvable(previewOf(req, tools.get(asked.Tool), asked))) return seeOther(res, `/account/approvals/${id}`);
    // "approve" or "decline"; anything else is a 400 with the reason (ERR_AGENT_INVALID_APPROVAL).
    const decided = approvals.decide(id, subject(req), decision);
    if (!decided.ok && decided.reason === "unknown") return writeError(req, res, 404, "approval: no such request");
    seeOther(res, `/account/approvals/${id}`); // the page says the outcome, also of one decided or lapsed meanwhile
  });
  return { sweep: (now) => oauth.Sweep(now) };
}
