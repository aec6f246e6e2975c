/*
 * Step 7 of docs/guide.md: an MCP client connects, and a write waits for
 * its person. `/mcp` serves the same tools, tokens and approvals as
 * `/api/tools` over the Model Context Protocol, with the resource metadata
 * a client reads after its first 401. A write call (step 6's
 * `expenses_create`) is answered with a link to `/account/approvals/{id}`,
 * where the person sees the exact arguments and approves or declines;
 * `/account/approvals` lists every request waiting.
 */
import type { IncomingMessage } from "node:http";
import { writeError } from "latch";
import type { Approval, ToolRegistry } from "latch/agent";
import type { Assets } from "latch/assets";
import { readForm, seeOther } from "latch/http";
import { newMCPServer } from "latch/mcp";
import { PathValue, type Group, type Mux } from "latch/router";
import { From } from "latch/signin";
import { approvalsPage, type ApprovalView } from "../starter/pages/approvals.ts";
import type { Agents } from "./agents.ts";

/** What connecting needs. */
export interface ConnectDeps {
  mux: Mux;
  /** Routes behind RequireFreshSession: approving a write is sensitive. */
  fresh: Group;
  /** Step 5's tokens, approvals and invoker. */
  agents: Agents;
  tools: ToolRegistry;
  assets: Assets;
  Origin: string;
}

/** Mounts `/mcp` with its metadata, and the approval pages. */
export function mountConnect({ mux, fresh, agents, tools, assets, Origin }: ConnectDeps): void {
  const { tokens, approvals, invoker } = agents;
  const mcp = newMCPServer({
    Invoker: invoker,
    Tokens: tokens,
    Origin,
    ApprovalPath: "/account/approvals",
    Name: "my-app",
    Version: "1.0.0",
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
    };
  };
  fresh.Handle("GET /account/approvals", (req, res) => {
    approvalsPage(
      req,
      res,
      assets,
      approvals.pending(subject(req)).map((a) => view(req, a)),
      new Date(),
    );
  });
  fresh.Handle("GET /account/approvals/{id}", (req, res) => {
    const approval = approvals.get(PathValue(req, "id"), subject(req));
    if (approval === undefined) return writeError(req, res, 404, "approval: no such request");
    approvalsPage(req, res, assets, [view(req, approval)], new Date());
  });
  fresh.Handle("POST /account/approvals/{id}", async (req, res) => {
    const id = PathValue(req, "id");
    // "approve" or "decline"; anything else is a 400 with the reason (ERR_AGENT_INVALID_APPROVAL).
    const decided = approvals.decide(id, subject(req), (await readForm(req)).get("decision") ?? "");
    if (!decided.ok && decided.reason === "unknown") return writeError(req, res, 404, "approval: no such request");
    seeOther(res, `/account/approvals/${id}`); // the page says the outcome, also of one decided or lapsed meanwhile
  });
}
