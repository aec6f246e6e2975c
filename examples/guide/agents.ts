/*
 * Step 5 of docs/guide.md: an agent token and a tool call. A person with a
 * fresh session mints a token for a named agent on `/account/agents`, read
 * or read-and-write, and may revoke it there; the agent sends it as
 * `Authorization: Bearer` to `POST /api/tools/job_status` and reads the
 * person's job. Every call is appended to the person's audit stream. A
 * write call waits for the person's approval on `/account/approvals`
 * (step 7, connect.ts).
 */
import type { IncomingMessage } from "node:http";
import { writeError } from "latch";
import {
  AgentError,
  AgentTokens,
  Approvals,
  defineAction,
  isAgentError,
  mountTools,
  ToolInvoker,
  ToolRead,
  type ToolRegistry,
} from "latch/agent";
import type { Assets } from "latch/assets";
import type { DB } from "latch/db";
import { EventStore } from "latch/events";
import { readForm, seeOther, type HandlerFunc, type Logger } from "latch/http";
import type { Registry } from "latch/jobs";
import type { Group, Mux } from "latch/router";
import { From, type SecurityNotices, type Signin } from "latch/signin";
import { agentsPage } from "../starter/pages/agents.ts";

/** What the agent routes need. */
export interface AgentDeps {
  db: DB;
  mux: Mux;
  auth: Signin;
  /** Routes behind RequireFreshSession: minting a token is sensitive. */
  fresh: Group;
  jobs: Registry;
  /** The tools the agent may call; step 6 adds a resource's tools to it. */
  tools: ToolRegistry;
  assets: Assets;
  logger: Logger;
  Origin: string;
  /** The human route of the `job_status` tool. */
  jobStatus: HandlerFunc;
  /** Security notices (step 2): the event store tells them of agent tokens given write access. */
  notices: SecurityNotices;
}

/** What step 7 builds on: the tokens, the approvals they wait for, and the one path to the tools. */
export interface Agents {
  tokens: AgentTokens;
  approvals: Approvals;
  invoker: ToolInvoker;
}

/** Mounts `/account/agents` and the tools endpoint. */
export function mountAgents({ db, mux, auth, fresh, jobs, tools, assets, logger, Origin, jobStatus, notices }: AgentDeps): Agents {
  const events = new EventStore(db, { OnAppend: notices.Audited }); // a token given write access is mailed to its person
  // Tokens expire (90 days), end with the person's sessions (auth.Sessions.RevokeAll) and commit with their audit event.
  const tokens = new AgentTokens(db, { Sessions: auth.Sessions, Events: events });
  tools.register(
    defineAction({
      name: "job_status",
      method: "GET",
      route: "/jobs/{id}",
      handler: jobStatus,
      tool: {
        Description: "Reports one of the person's jobs: status, progress and error.",
        Access: ToolRead,
        Args: [{ Name: "id", Type: "string", Required: true, Description: "The job's id" }],
      },
      run: ({ Args, Subject }) => {
        const job = jobs.Get(String(Args.get("id")), Subject);
        if (job === undefined) throw new AgentError("ERR_AGENT_INVALID_CALL", "job status: no such job", { status: 404 });
        return { id: job.ID, status: job.Status, progress: job.Progress, err: job.Err };
      },
    }),
  );
  const approvals = new Approvals(db, { Events: events }); // a decision commits with its audit event
  const invoker = new ToolInvoker({ Registry: tools, Approvals: approvals, Events: events, Logger: logger });
  // One call mounts GET /api/tools and POST /api/tools/{name}, as mountResource mounts a resource's pages.
  mountTools(mux, { Invoker: invoker, Tokens: tokens, Sessions: auth.Sessions, Origin, ApprovalPath: "/account/approvals" });

  const subject = (req: IncomingMessage): string => From(req)?.Subject ?? "";
  const mcpURL = new URL("/mcp", Origin).href; // step 7 mounts it
  fresh.Handle("GET /account/agents", (req, res) => agentsPage(req, res, assets, tokens.list(subject(req)), mcpURL));
  fresh.Handle("POST /account/agents", async (req, res) => {
    const form = await readForm(req);
    try {
      const minted = tokens.mint({ Subject: subject(req), Name: form.get("name") ?? "", Access: form.get("access") ?? "" });
      agentsPage(req, res, assets, tokens.list(subject(req)), mcpURL, { token: minted.Token });
    } catch (err) {
      // A name taken or malformed, an unknown access, too many tokens: a 4xx with the reason, on the same page.
      if (!isAgentError(err) || err.status === undefined) throw err;
      agentsPage(req, res, assets, tokens.list(subject(req)), mcpURL, { error: err.message, status: err.status });
    }
  });
  fresh.Handle("POST /account/agents/revoke", async (req, res) => {
    const id = (await readForm(req)).get("id") ?? "";
    if (!tokens.revoke(subject(req), id)) return writeError(req, res, 404, "revoke agent token: id: no such token");
    seeOther(res, "/account/agents");
  });
  return { tokens, approvals, invoker };
}
