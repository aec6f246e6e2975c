/*
 * The demo's agents: two tools over the jobs registry (`start_job`, a write
 * tool, also the account page's "start a job" form; `job_status`, a read
 * tool an agent follows its job with), the tools endpoint, `/api/whoami`,
 * agent tokens (`/account/agents`), approvals (`/account/approvals/{id}`,
 * and the starter's list with its batch decision and waiting count,
 * examples/starter/approvals.ts), the waiting-call mail (lib/agent
 * `WaitingNotices`, swept every minute) and the person's audit stream
 * (`/account/activity`).
 *
 * Minting, revoking and deciding are appended to the person's audit stream
 * too, as the human actor, each in the transaction of its change (the
 * token and approval stores are given the event store), so
 * /account/activity tells the whole story.
 */
import {
  AgentError,
  AgentTokens,
  Approvals,
  mountTools,
  subjectFrom,
  StandingApprovals,
  ToolInvoker,
  ToolRead,
  ToolRegistry,
  ToolWrite,
  WaitingNotices,
  defineAction,
} from "../../lib/agent/index.ts";
import type { Assets } from "../../lib/assets/index.ts";
import type { DB } from "../../lib/db/index.ts";
import { EventStore, auditStream } from "../../lib/events/index.ts";
import { seeOther, writeJSON, readForm, type HandlerFunc, type Logger } from "../../lib/http/index.ts";
import type { Mailer } from "../../lib/mail/index.ts";
import { withCtx, writeError } from "../../lib/index.ts";
import type { Registry } from "../../lib/jobs/index.ts";
import { PathValue, type Mux } from "../../lib/router/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { From, type Signin } from "../../lib/signin/index.ts";
import { newOAuthServer } from "../../lib/oauth/index.ts";
import type { Teams } from "../../lib/teams/index.ts";
import { mountApprovalList } from "../starter/approvals.ts";
import { mountMCP } from "./mcp.ts";
import { consentPage } from "./pages/connect.ts";
import { activityPage, agentsPage, approvalPage, standingRefusedPage } from "./pages/agents.ts";
import { approvable, previewOf } from "../starter/pages/approvals.ts";
import { startDemoJob, startJob } from "./pages/jobs.ts";
import { render } from "./pages/layout.ts";
import { sweepUntil } from "./sweeps.ts";

/** How many of the latest audit events /account/activity shows in each list: the person's own, their agents'. */
const ACTIVITY_SHOWN = 100;

/** How often the waiting-call notices are swept: a call is mailed about between 2 and 3 minutes after it began to wait. */
const WAITING_SWEEP_MS = 60 * 1000;

/** What the demo's agent routes need. */
export interface AgentsDeps {
  db: DB;
  /** The event store holding every person's audit stream. */
  events: EventStore;
  mux: Mux;
  auth: Signin;
  jobs: Registry;
  assets: Assets;
  logger: Logger;
  origin: string;
  /** The demo's `InstanceKey`: MCP's 2026-07-28 `requestState` is sealed under a key derived from it. */
  instanceKey: string;
  stepMs: number;
  /** Freshness window of token and approval pages, ms. */
  freshFor: number;
  /** The job status page (the human route of `job_status`). */
  jobStatusPage: HandlerFunc;
  /** Aborts when the application stops: the sweeps end with it. */
  stopped: AbortSignal;
  /** The person's teams, named on the consent page: a grant reaches them (issue 38). */
  teams: Teams;
  /** Sends the security notice of a token's first standing approval and the waiting-call mail, from `mailFrom`. */
  mailer: Mailer;
  mailFrom: string;
}

/** The kind of job `start_job` asks for: "ok" (the default) or "fail"; anything else is refused (400). */
function jobKind(args: ReadonlyMap<string, unknown>): "ok" | "fail" {
  const kind = args.get("kind") ?? "ok";
  if (kind !== "ok" && kind !== "fail")
    throw new AgentError("ERR_AGENT_INVALID_CALL", 'start job: kind must be "ok" or "fail"', { status: 400 });
  return kind;
}

/**
 * Mounts the agent routes and the `POST /jobs` form on `deps.mux`; returns the tool registry (resources add theirs), the
 * approvals and the standing approvals (a team's tasks void and end theirs when a membership ends).
 */
export function mountAgents(deps: AgentsDeps): { tools: ToolRegistry; approvals: Approvals; standing: StandingApprovals } {
  const { db, mux, auth, jobs, assets, events } = deps;
  // Tokens expire (90 days), end with the person's sessions (auth.Sessions.RevokeAll) and commit with their audit event.
  const tokens = new AgentTokens(db, { Sessions: auth.Sessions, Events: events });
  const approvals = new Approvals(db, { Events: events });
  const registry = new ToolRegistry();
  // "Approve calls like this" (issue 39): bounded, audited, mailed to the person the first time for a token.
  const standing = new StandingApprovals(db, {
    Approvals: approvals,
    Tools: registry,
    Events: events,
    Mailer: deps.mailer,
    MailFrom: deps.mailFrom,
    Logger: deps.logger,
  });
  const invoker = new ToolInvoker({ Registry: registry, Approvals: approvals, Events: events, Logger: deps.logger, Standing: standing });
  registry.register(
    defineAction({
      name: "start_job",
      method: "POST",
      route: "/jobs",
      tool: {
        Description: "Starts the demo background job (10 steps) for the person; returns its id. Follow it with job_status.",
        Access: ToolWrite,
        Confirm: "Start a demo background job for you?",
        Args: [{ Name: "kind", Type: "string", Description: '"ok" (finishes) or "fail" (fails halfway); default "ok"' }],
      },
      handler: startJob(invoker, assets),
      // Checked before the person is asked: an unknown kind is refused at once, never approved and then refused.
      check: ({ Args }) => void jobKind(Args),
      run: ({ Args, Subject }) => {
        const job = startDemoJob(jobs, Subject, jobKind(Args), deps.stepMs);
        return { id: job.ID, status: job.Status, location: `/jobs/${job.ID}` };
      },
    }),
  );
  registry.register(
    defineAction({
      name: "job_status",
      method: "GET",
      route: "/jobs/{id}",
      tool: {
        Description: "Reports one of the person's jobs: status (running, done, failed), progress and error.",
        Access: ToolRead,
        Args: [{ Name: "id", Type: "string", Required: true, Description: "The id start_job returned" }],
      },
      handler: deps.jobStatusPage,
      run: ({ Args, Subject }) => {
        const job = jobs.Get(String(Args.get("id")), Subject);
        if (job === undefined) throw new AgentError("ERR_AGENT_INVALID_CALL", "job status: no such job", { status: 404 });
        return { id: job.ID, name: job.Name, status: job.Status, progress: job.Progress, err: job.Err };
      },
    }),
  );

  const api = mountTools(mux, {
    Invoker: invoker,
    Tokens: tokens,
    Sessions: auth.Sessions,
    Origin: deps.origin,
    ApprovalPath: "/account/approvals",
  });
  const callers = mux.With(api.Authenticate);
  callers.Handle(
    "GET /api/whoami",
    withCtx((ctx, req, res) => writeJSON(res, 200, { actor: ctx.Actor.String(), subject: subjectFrom(req) ?? null })),
  );
  const oauth = newOAuthServer({
    DB: db,
    Tokens: tokens,
    // Clients are latch/oauth's own: Client ID Metadata Documents and RFC 7591 registration.
    Sessions: auth.Sessions,
    Origin: deps.origin,
    SigninPath: "/signin",
    StalePath: "/stepup",
    FreshFor: deps.freshFor,
    ConsentPage: (req, res, consent) => consentPage(req, res, assets, consent, deps.teams.teamsOf(From(req)?.Subject ?? "")),
    ErrorPage: (req, res, status, message) => writeError(req, res, status, message),
  });
  // Lapsed approvals, and the authorization server's codes, tokens of ended grants and unused registrations.
  sweepUntil(deps.stopped, deps.logger, async () => {
    await approvals.sweep(new Date());
    await standing.sweep(new Date());
    await oauth.Sweep(new Date());
  });
  // Every path under /oauth/ and /.well-known/ answers JSON, never the HTML 404 page (the MCP metadata routes stay more specific).
  mux.With(auth.LoadSession).Handle("/oauth/", oauth.Handler);
  mux.Handle("/.well-known/", oauth.WellKnown);
  mountMCP({ mux, invoker, tokens, origin: deps.origin, instanceKey: deps.instanceKey, authorizationServer: oauth });

  const fresh = mux.With(auth.RequireFreshSession(deps.freshFor));
  const subject = (req: Parameters<HandlerFunc>[0]): string => From(req)?.Subject ?? "";
  // Each standing approval's record and fields named as its tool's preview names them now, in the page's locale, and its
  // team by its name (the person's teams: a membership's end ends its standing approvals).
  const listed = (req: Parameters<HandlerFunc>[0]) => ({
    tokens: tokens.list(subject(req)),
    standing: standing.list(subject(req), req),
    teams: new Map(deps.teams.teamsOf(subject(req)).map((t) => [t.ID, t.Name])),
  });
  fresh.Handle("GET /account/agents", (req, res) => agentsPage(req, res, assets, listed(req)));
  fresh.Handle("POST /account/agents", async (req, res) => {
    const form = await readForm(req);
    const access = form.get("access") ?? "";
    const who = subject(req);
    try {
      const minted = tokens.mint({ Subject: who, Name: form.get("name") ?? "", Access: access });
      agentsPage(req, res, assets, listed(req), { token: minted.Token, name: minted.Info.Name });
    } catch (err) {
      if (!(err instanceof AgentError) || err.status === undefined) throw err;
      agentsPage(req, res, assets, listed(req), { error: err.message, status: err.status });
    }
  });
  fresh.Handle("POST /account/agents/revoke", async (req, res) => {
    const id = (await readForm(req)).get("id") ?? "";
    if (id === "") return writeError(req, res, 400, "400 revoke agent token: no id");
    if (!tokens.revoke(subject(req), id)) return writeError(req, res, 404, "404 revoke agent token: no such token");
    seeOther(res, "/account/agents");
  });
  fresh.Handle("POST /account/agents/standing/revoke", async (req, res) => {
    const id = (await readForm(req)).get("id") ?? "";
    if (!standing.revoke(subject(req), id)) return writeError(req, res, 404, "404 revoke standing approval: no such standing approval");
    seeOther(res, "/account/agents");
  });
  fresh.Handle("GET /account/approvals/{id}", (req, res) => {
    const approval = approvals.get(PathValue(req, "id") ?? "", subject(req));
    if (approval === undefined) return writeError(req, res, 404, "404 approval: no such request");
    approvalPage(req, res, assets, approval, registry.get(approval.Tool), agentName(tokens, subject(req), approval.TokenID));
  });
  fresh.Handle("POST /account/approvals/{id}", async (req, res) => {
    const form = await readForm(req);
    const decision = form.get("decision") ?? "";
    const id = PathValue(req, "id") ?? "";
    // A stale call has nothing to approve (its tool would refuse it): the page says so again, and nothing is decided.
    const asked = decision === "approve" || decision === "standing" ? approvals.get(id, subject(req)) : undefined;
    if (asked !== undefined && !approvable(previewOf(req, registry.get(asked.Tool), asked))) {
      return approvalPage(req, res, assets, asked, registry.get(asked.Tool), agentName(tokens, subject(req), asked.TokenID));
    }
    if (decision === "standing") return createStanding(req, res, assets, standing, form, id);
    const outcome = approvals.decide(id, subject(req), decision);
    if (!outcome.ok && outcome.reason === "unknown") return writeError(req, res, 404, "404 approval: no such request");
    const approval = approvals.get(id, subject(req));
    if (approval === undefined) return writeError(req, res, 404);
    approvalPage(
      req,
      res,
      assets,
      approval,
      registry.get(approval.Tool),
      agentName(tokens, subject(req), approval.TokenID),
      outcome.ok ? undefined : outcome.reason,
    );
  });
  mountApprovalList({
    fresh,
    user: mux.With(auth.LoadSession),
    approvals,
    view: (req, approval) => ({
      approval,
      agent: agentName(tokens, subject(req), approval.TokenID),
      confirm: registry.get(approval.Tool)?.Tool.Confirm ?? "",
      preview: previewOf(req, registry.get(approval.Tool), approval),
    }),
    assets,
    shell: render,
  });
  // The mail in the language of the device the person last signed in from (lib/signin's rows), else English.
  const people = signin.accountRows(db);
  const waiting = new WaitingNotices({
    DB: db,
    Mailer: deps.mailer,
    MailFrom: deps.mailFrom,
    Origin: deps.origin,
    Logger: deps.logger,
    Locale: (person) => people.localeOf(person) ?? "en",
  });
  sweepUntil(deps.stopped, deps.logger, () => waiting.sweep(), WAITING_SWEEP_MS);
  const signedIn = mux.With(auth.RequireSession);
  const startJobForm = registry.get("start_job");
  if (startJobForm !== undefined) signedIn.Handle("POST /jobs", startJobForm.Handler);
  signedIn.Handle("GET /account/activity", (req, res) => {
    // The person's history across changes of address (lib/events: the old audit stream continues in the new one).
    const who = subject(req);
    const [own, agents] = [events.latestHistory(who, ACTIVITY_SHOWN, "human"), events.latestHistory(who, ACTIVITY_SHOWN, "agent")];
    activityPage(req, res, assets, own, agents, events.head(auditStream(who)));
  });
  return { tools: registry, approvals, standing };
}

// "Approve calls like this": the bounds from the form, refused with a 400 naming the field; then the token's list.
async function createStanding(
  req: Parameters<HandlerFunc>[0],
  res: Parameters<HandlerFunc>[1],
  assets: Assets,
  standing: StandingApprovals,
  form: URLSearchParams,
  id: string,
): Promise<void> {
  const bounds = {
    Calls: Number(form.get("calls") ?? ""),
    Hours: Number(form.get("hours") ?? ""),
    SameRecord: form.get("same_record") === "1",
    SameFields: form.get("same_fields") === "1",
  };
  try {
    const made = await standing.create(req, From(req)?.Subject ?? "", id, bounds);
    if (made === undefined) return writeError(req, res, 404, "404 standing approval: no such pending request");
    seeOther(res, "/account/agents");
  } catch (err) {
    if (!(err instanceof AgentError) || err.status !== 400) throw err;
    standingRefusedPage(req, res, assets, err.message, id);
  }
}

// The approval page names the agent by its token's name ("agent:<name>"); a revoked token's name is gone from the list.
function agentName(tokens: AgentTokens, subject: string, tokenID: string): string {
  const info = tokens.list(subject).find((t) => t.ID === tokenID);
  return info === undefined ? "agent" : `agent:${info.Name}`;
}
