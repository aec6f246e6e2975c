/*
 * The demo application's routes: every latch feature, wired the way an
 * application would wire it. `buildApp` is called by the runtime's Router
 * hook with the database it opened.
 */
import { fileURLToPath } from "node:url";
import { awaitDurable, mergeSchemas, type DB } from "../../lib/db/index.ts";
import { crossOriginProtection, type Logger } from "../../lib/http/index.ts";
import { DEFAULT_CSP } from "../../lib/index.ts";
import type { Options } from "../../lib/index.ts";
import { CLIENT_DIR, NewAssets, type Assets } from "../../lib/assets/index.ts";
import { Registry, newHandlers } from "../../lib/jobs/index.ts";
import { newLogMailer, newSMTPMailer } from "../../lib/mail/index.ts";
import * as passkey from "../../lib/passkey/index.ts";
import { Mux, PathValue } from "../../lib/router/index.ts";
import * as session from "../../lib/session/index.ts";
import { fanOutAuthEvents, logAuthEvents, type AuthEventSink } from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { From } from "../../lib/signin/index.ts";
import type { DemoConfig } from "./config.ts";
import { STATIC_DIR as STARTER_STATIC_DIR } from "../starter/files.ts";
import { confirmPage, stepUpPage } from "../starter/pages/confirm.ts";
import { errorPage, notFoundPage } from "../starter/pages/errors.ts";
import { jobPages } from "../starter/pages/jobs.ts";
import { render as renderDemo } from "./pages/layout.ts";
import { signinPage } from "../starter/pages/signin.ts";
import { ACCOUNT_PATHS, mountAccountPages } from "../starter/account.ts";
import { renderAccount } from "./pages/account.ts";
import { homePage } from "./pages/home.ts";
import { mountAgents } from "./agents.ts";
import { sweepUntil } from "./sweeps.ts";
import * as account from "../../lib/account/index.ts";
import * as agent from "../../lib/agent/index.ts";
import * as oauth from "../../lib/oauth/index.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import * as teams from "../../lib/teams/index.ts";
import * as operators from "../../lib/operators/index.ts";
import { mountOperatorPages } from "../starter/operators.ts";
import { joinPage, refusalPage } from "../starter/pages/teams.ts";
import { mountTeamPages } from "../starter/teams.ts";
import { mountResources, resourceRows, renderResource, resourcesSchema } from "./resources.ts";
import { mountClearDone } from "./clear-done.ts";

/** Schema steps in apply order: sessions, then sign-in, passkey, events, agent tokens and approvals, OAuth codes and refresh tokens, teams, the resources, the account, the operators' suspensions. */
export const schema: ReturnType<typeof mergeSchemas> = mergeSchemas(
  session.Schema,
  signin.Schema,
  passkey.Schema,
  eventsSchema,
  agent.Schema,
  oauth.Schema,
  teams.Schema,
  resourcesSchema,
  account.Schema,
  operators.Schema,
);

/** Directory of the demo's catalogs: its own words and those of the starter's pages it uses. */
const LOCALE_DIR = fileURLToPath(new URL("../../../examples/demo/locales/", import.meta.url));

/** Directory of the demo's static files (demo.css); the starter's stylesheet is in STARTER_STATIC_DIR. */
const STATIC_DIR = fileURLToPath(new URL("../../../examples/demo/static/", import.meta.url));

/** Knobs tests turn (shorter job steps); production uses the defaults. */
export interface AppOptions {
  jobStepMs?: number;
}

/** Builds the demo's runtime options (everything except listen address and database path). */
export function demoOptions(config: DemoConfig, logger: Logger, app: AppOptions = {}): Options & { cleanup: () => void } {
  const jobs = new Registry(logger);
  const stopped = new AbortController(); // the sweeps end with the application (sweeps.ts)
  const assets = NewAssets([STARTER_STATIC_DIR, STATIC_DIR, CLIENT_DIR]);
  const csp = config.oidcIssuer === undefined ? undefined : cspWithIssuer(config.oidcIssuer, config.origin);
  return {
    Router: (db) => buildRouter(db, config, logger, jobs, assets, app, stopped.signal),
    ErrorPage: (req, res, status, ref) => errorPage(req, res, assets, status, ref),
    Render: renderResource(assets),
    Assets: assets,
    Schema: schema,
    Wrap: (next) => crossOriginProtection({ Origin: config.origin })(next),
    Locales: ["en", "es", "pt-BR", "fr", "de", "ru", "ar", "zh-CN", "ja", "id", "tr", "ko"],
    DefaultLocale: "en",
    LocaleFS: LOCALE_DIR,
    Origin: config.origin,
    Logger: logger,
    ...(csp !== undefined && { CSP: csp }),
    Stop: [jobs, { Shutdown: () => stopped.abort() }],
    ...(config.litestreamSocket !== undefined && { Durable: { socket: config.litestreamSocket } }),
    cleanup: () => {
      stopped.abort();
      jobs.Shutdown();
    },
  };
}

// Begin answers a form POST with a redirect to the provider; CSP
// form-action applies to that redirect, so the issuer's origin is allowed.
function cspWithIssuer(issuer: string, origin: string): string {
  const csp = DEFAULT_CSP.replace("form-action 'self'", `form-action 'self' ${new URL(issuer).origin}`);
  return origin.startsWith("https://") ? `${csp}; upgrade-insecure-requests` : csp;
}

function buildRouter(
  db: DB | undefined,
  config: DemoConfig,
  logger: Logger,
  jobs: Registry,
  assets: Assets,
  app: AppOptions,
  stopped: AbortSignal,
): Mux {
  if (db === undefined) throw new Error("demo: the runtime opened no database");
  const smtp = {
    logger,
    helo: new URL(config.origin).hostname, // EHLO names the application, not the machine
    ...(config.smtpCA !== undefined && { caFile: config.smtpCA }),
    ...(config.smtpCertSHA256 !== undefined && { certSHA256: config.smtpCertSHA256 }),
  };
  const mailer = config.smtpURL !== undefined ? newSMTPMailer(config.smtpURL, smtp) : newLogMailer(logger);
  const mailFrom = config.mailFrom ?? `no-reply@${new URL(config.origin).hostname}`;
  // Security notices (ASVS 5.0 §6.3.7): new devices, passkeys, recovery codes from the
  // auth events; agent tokens given write access and a changed address from the event store.
  const notices = signin.securityNotices({
    DB: db,
    Mailer: mailer,
    MailFrom: mailFrom,
    Origin: config.origin,
    Logger: logger,
  });
  // Every auth event of both components is logged and appended to the
  // person's audit stream (shown on /account/activity).
  const events = new EventStore(db, { OnAppend: notices.Audited });
  // The audit stream first: when it cannot be appended to, the write rolls back and no log line claims it happened.
  const onAuthEvent: AuthEventSink = fanOutAuthEvents(agent.auditAuthEvents(events, logger), notices.Sink, logAuthEvents(logger));
  const auth = signin.create({
    DB: db,
    Origin: config.origin,
    InstanceKey: config.instanceKey,
    SigninPath: "/signin",
    SignedInPath: "/account",
    StalePath: "/stepup",
    SessionsPath: "/account/security",
    OnAuthEvent: onAuthEvent,
    Logger: logger,
    Mailer: mailer,
    ...(config.mailFrom !== undefined && { MailFrom: config.mailFrom }),
    ...(config.oidcIssuer !== undefined && { Provider: { Issuer: config.oidcIssuer } }),
    SecondFactor: (req, res, identity) => keys.Gate(req, res, identity),
    // A suspended person is refused at sign-in, and the sign-in page says why (?err=suspended).
    Authorize: (address) => ops.Authorize(address),
    AuthorizeRefusal: (address) => ops.AuthorizeRefusal(address),
  });
  const keys = passkey.create({
    DB: db,
    Sessions: auth.Sessions,
    Origin: config.origin,
    ConfirmPath: "/confirm",
    SignedInPath: "/account",
    SigninPath: "/signin",
    ManagePath: "/account",
    StalePath: "/stepup",
    FreshFor: config.freshFor,
    OnAuthEvent: onAuthEvent,
    Logger: logger,
  });
  // Teams, roles and invitations (lib/teams): invitations mailed as sign-in's links are; pages are the starter's.
  const team = teams.create({
    DB: db,
    Sessions: auth.Sessions,
    Events: events,
    Origin: config.origin,
    TeamsPath: "/teams",
    JoinPath: "/teams/join",
    SigninPath: "/signin",
    TeamFrom: (req) => PathValue(req, "team"),
    JoinPage: (req, res, invitation) => joinPage(req, res, assets, renderDemo, invitation),
    RefusalPage: (req, res, refusal) => refusalPage(req, res, assets, renderDemo, refusal),
    Mailer: mailer,
    ...(config.mailFrom !== undefined && { MailFrom: config.mailFrom }),
    Logger: logger,
  });
  // Change of address, export, deletion (lib/account): each module answers for its own rows; OAuth's name agent tokens, so first.
  const agentRows = agent.accountRows(db);
  const settings = account.create({
    DB: db,
    Signin: auth,
    Passkey: keys,
    Origin: config.origin,
    InstanceKey: config.instanceKey,
    Rows: [oauth.accountRows(db, agentRows), agentRows, teams.accountRows(db), resourceRows(db), operators.accountRows(db)],
    ...ACCOUNT_PATHS,
    SigninPath: "/signin",
    StalePath: "/stepup",
    OnAuthEvent: onAuthEvent,
    Logger: logger,
    ...(config.smtpURL !== undefined && { Mailer: newSMTPMailer(config.smtpURL, { logger }) }),
    ...(config.mailFrom !== undefined && { MailFrom: config.mailFrom }),
  });
  // Operators (lib/operators): who they are is the OPERATORS setting; suspension ends agent tokens, grants and approvals
  // through lib/agent's rows, sessions through sign-in's store; memberships are shown from lib/teams' rows.
  const ops = operators.create({
    DB: db,
    Operators: config.operators,
    Sessions: auth.Sessions,
    Events: events,
    Rows: [agentRows, teams.accountRows(db)],
    Origin: config.origin,
    OperatorsPath: "/operators",
    StalePath: "/stepup",
    FreshFor: config.freshFor,
    NotFound: notFoundPage(assets),
    Mailer: mailer,
    MailFrom: mailFrom,
    Logger: logger,
  });
  const jobHandlers = newHandlers({
    Jobs: jobs,
    ...jobPages(assets, renderDemo),
    Owner: (req) => From(req)?.Subject,
    ID: (req) => PathValue(req, "id"),
  });

  const mux = new Mux();
  const user = mux.With(auth.LoadSession);
  const signedIn = mux.With(auth.RequireSession);
  mux.Handle("GET /static/", assets.Handler());
  user.Handle("GET /{$}", homePage(assets));
  mux.Handle("GET /signin", signinPage(assets));
  mux.Handle("POST /signin", auth.Begin);
  mux.Handle("GET /auth/verify", auth.Verify);
  mux.Handle("POST /auth/code", auth.VerifyCode);
  mux.Handle("GET /auth/callback", auth.Callback);
  mux.Handle("POST /signout", auth.Signout);
  mux.Handle("GET /confirm", confirmPage(assets));
  mux.Handle("POST /passkey/signin/begin", keys.SignInBegin);
  mux.Handle("POST /passkey/signin/finish", keys.SignInFinish);
  mux.Handle("POST /passkey/signin/recovery", keys.SignInRecovery);
  mux.Handle("POST /passkey/register/begin", keys.RegisterBegin);
  mux.Handle("POST /passkey/register/finish", keys.RegisterFinish);
  mux.Handle("POST /passkey/stepup/begin", keys.StepUpBegin);
  mux.Handle("POST /passkey/stepup/finish", keys.StepUpFinish);
  signedIn.Handle("GET /account", (req, res) => renderAccount(req, res, assets, keys));
  mux.With(auth.RequireFreshSession(config.freshFor)).Handle("POST /account/recovery-codes", async (req, res) => {
    const codes = keys.RegenerateRecoveryCodes(From(req)?.Subject ?? "", req);
    // Codes a person writes down must outlive the machine before they are shown.
    await awaitDurable(db);
    return renderAccount(req, res, assets, keys, codes);
  });
  signedIn.Handle("POST /account/passkeys/rename", keys.Rename);
  signedIn.Handle("POST /account/passkeys/delete", keys.Delete);
  signedIn.Handle("GET /stepup", stepUpPage(assets));
  const fresh = mux.With(auth.RequireFreshSession(config.freshFor));
  mountAccountPages({ mux, signedIn, fresh, account: settings, auth, keys, assets, shell: renderDemo });
  const { tools, approvals, standing } = mountAgents({
    db,
    events,
    mux,
    auth,
    jobs,
    assets,
    logger,
    origin: config.origin,
    instanceKey: config.instanceKey,
    stepMs: app.jobStepMs ?? config.jobStepMs,
    freshFor: config.freshFor,
    jobStatusPage: jobHandlers.StatusPage,
    stopped,
    teams: team,
    mailer,
    mailFrom,
  });
  const tasks = mountResources({
    db,
    mux,
    events,
    tools,
    origin: config.origin,
    requireSession: auth.RequireSession,
    localeDir: LOCALE_DIR,
    teams: team,
    approvals,
    standing,
    jobs,
    stateDir: config.stateDir,
  });
  mountTeamPages({ mux, signedIn, teams: team, assets, shell: renderDemo });
  mountClearDone(signedIn, jobs, tasks);
  mountOperatorPages({ mux, operators: ops, path: "/operators", assets, shell: renderDemo });
  signedIn.Handle("GET /jobs/{id}", jobHandlers.StatusPage);
  signedIn.Handle("GET /jobs/{id}/fragment", jobHandlers.Fragment);
  signedIn.Handle("GET /jobs/{id}/events", jobHandlers.Events);
  mux.NotFound(notFoundPage(assets));
  mux.Handle("GET /demo/error", () => {
    throw new Error("demo: this page fails on purpose to show the error page");
  });
  sweepUntil(stopped, logger, async () => {
    const now = new Date();
    await auth.Sweep(now);
    await passkey.Sweep(db, now);
    await settings.Sweep(now);
    await team.Sweep(now);
  });
  return mux;
}
