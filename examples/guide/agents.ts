/*
 * Step 5 of docs/guide.md: an agent token and a tool call. A person with a
 * fresh session mints a read-only token for a named agent on
 * `/account/agents`; the agent sends it as `Authorization: Bearer` to
 * `POST /api/tools/job_status` and reads the person's job. Every call is
 * appended to the person's audit stream.
 */
import type { IncomingMessage } from "node:http";
import { AgentError, AgentTokens, Approvals, defineAction, newToolsAPI, ToolInvoker, ToolRead, type ToolRegistry } from "latch/agent";
import type { Assets } from "latch/assets";
import type { DB } from "latch/db";
import { EventStore } from "latch/events";
import { readForm, type HandlerFunc, type Logger } from "latch/http";
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

/** Mounts `/account/agents` and the tools endpoint. */
export function mountAgents({ db, mux, auth, fresh, jobs, tools, assets, logger, Origin, jobStatus, notices }: AgentDeps): void {
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
  const invoker = new ToolInvoker({ Registry: tools, Approvals: new Approvals(db, { Events: events }), Events: events, Logger: logger });
  const api = newToolsAPI({ Invoker: invoker, Tokens: tokens, Sessions: auth.Sessions, Origin, ApprovalPath: "/account/approvals" });
  mux.With(api.Authenticate).Handle("GET /api/tools", api.List);
  mux.With(api.Authenticate).Handle("POST /api/tools/{name}", api.Call);

  const subject = (req: IncomingMessage): string => From(req)?.Subject ?? "";
  fresh.Handle("GET /account/agents", (req, res) => agentsPage(req, res, assets, tokens.list(subject(req))));
  fresh.Handle("POST /account/agents", async (req, res) => {
    const name = (await readForm(req)).get("name") ?? "";
    const minted = tokens.mint({ Subject: subject(req), Name: name, Access: "read" });
    agentsPage(req, res, assets, tokens.list(subject(req)), minted.Token);
  });
}
