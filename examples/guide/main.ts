/*
 * The application docs/guide.md builds, step by step: a runtime and a Mux,
 * emailed-link sign-in with its pages, passkeys with Gate, the confirm page
 * and recovery codes, a background job with its status page, an agent
 * token with a tool call, a resource from the manifest, an MCP client
 * whose write waits for the person's approval, and records a team shares
 * (teams, invitations, a team's task list), and the account's life (a new
 * address, the person's data, deletion). Its pages are
 * examples/starter's. Compiled with the project and run end to end by
 * test/e2e/guide.test.ts; the package test compiles it against the packed
 * tarball. Both directories ship in
 * the package, to be copied as `src/` and `starter/` of a new project.
 *
 *   INSTANCE_KEY=$(openssl rand -base64 32) node dist/examples/guide/main.js --addr :8080
 *
 * PORT=N listens on :N when no --addr or --socket is given.
 */
import { Mux, Run, StateDirectory } from "latch";
import { crossOriginProtection, newLogger } from "latch/http";
import { CLIENT_DIR, NewAssets } from "latch/assets";
import { mergeSchemas } from "latch/db";
import * as account from "latch/account";
import * as agent from "latch/agent";
import { Schema as eventsSchema } from "latch/events";
import { Registry } from "latch/jobs";
import { newLogMailer, newSMTPMailer } from "latch/mail";
import * as oauth from "latch/oauth";
import * as passkey from "latch/passkey";
import * as session from "latch/session";
import * as signin from "latch/signin";
import * as teams from "latch/teams";
import { LOCALES_DIR, STATIC_DIR } from "../starter/files.ts";
import { renderAccount } from "../starter/pages/account.ts";
import { confirmPage, stepUpPage } from "../starter/pages/confirm.ts";
import { errorPage, notFoundPage } from "../starter/pages/errors.ts";
import { homePage } from "../starter/pages/home.ts";
import { signinPage } from "../starter/pages/signin.ts";
import { mountAccount } from "./account.ts";
import { mountAgents } from "./agents.ts";
import { mountConnect } from "./connect.ts";
import { mountExpenses, renderResource } from "./expenses.ts";
import { mountJobs } from "./job.ts";
import { mountTeams } from "./teams.ts";

// Step 1: the runtime and a Mux.
const env = process.env;
const port = env["PORT"]; // listen on :PORT unless --addr or --socket says otherwise
const Origin = env["ORIGIN"] ?? `http://localhost:${port ?? 8080}`;
const logger = newLogger();
const assets = NewAssets([STATIC_DIR, CLIENT_DIR]);
const jobs = new Registry(logger);

await Run({
  ...(port !== undefined && { Addr: `:${port}` }),
  DBPath: StateDirectory() === undefined ? "data/app.db" : "app.db", // $STATE_DIRECTORY/app.db under systemd, else ./data/app.db
  Origin,
  Logger: logger,
  Schema: mergeSchemas(
    session.Schema,
    signin.Schema,
    passkey.Schema,
    eventsSchema,
    agent.Schema,
    oauth.Schema,
    teams.Schema,
    account.Schema,
  ),
  Wrap: (next) => crossOriginProtection({ Origin })(next),
  Locales: ["en", "es", "pt-BR", "fr", "de", "ru", "ar", "zh-CN", "ja", "id", "tr", "ko"],
  LocaleFS: LOCALES_DIR,
  ErrorPage: (req, res, status, ref) => errorPage(req, res, assets, status, ref),
  Render: renderResource(assets), // step 6: the resource's pages in the starter's layout
  Stop: [jobs],
  Router: (db) => {
    if (db === undefined) throw new Error("guide: no database");
    const mux = new Mux();
    mux.Handle("GET /static/", assets.Handler());
    mux.NotFound(notFoundPage(assets)); // 404 page; a known path keeps 405 with Allow

    // Step 2: sign-in by emailed link, with its pages, and security notices.
    const helo = new URL(Origin).hostname; // EHLO names the application, not the machine
    const mailer = env["SMTP_URL"] !== undefined ? newSMTPMailer(env["SMTP_URL"], { logger, helo }) : newLogMailer(logger);
    const MailFrom = env["MAIL_FROM"] ?? `no-reply@${new URL(Origin).hostname}`;
    const InstanceKey = env["INSTANCE_KEY"] ?? ""; // keys links and codes (step 2) and seals a moved account's old address (step 9)
    const notices = signin.securityNotices({ DB: db, Mailer: mailer, MailFrom, Origin, SecurityPath: "/account/security", Logger: logger });
    const onAuthEvent = session.fanOutAuthEvents(notices.Sink, session.logAuthEvents(logger));
    const auth = signin.create({
      DB: db,
      Origin,
      InstanceKey,
      SigninPath: "/signin",
      SignedInPath: "/account",
      StalePath: "/stepup",
      SessionsPath: "/account/security",
      Logger: logger,
      Mailer: mailer,
      MailFrom,
      OnAuthEvent: onAuthEvent,
      SecondFactor: (req, res, identity) => keys.Gate(req, res, identity),
    });
    mux.With(auth.LoadSession).Handle("GET /{$}", homePage(assets));
    mux.Handle("GET /signin", signinPage(assets));
    mux.Handle("POST /signin", auth.Begin);
    mux.Handle("GET /auth/verify", auth.Verify);
    mux.Handle("POST /auth/code", auth.VerifyCode);
    mux.Handle("POST /signout", auth.Signout);
    const signedIn = mux.With(auth.RequireSession);
    const fresh = mux.With(auth.RequireFreshSession(5 * 60 * 1000));

    // Step 3: passkeys: Gate after the link, the confirm page, recovery codes.
    const keys = passkey.create({
      DB: db,
      Sessions: auth.Sessions,
      Origin,
      ConfirmPath: "/confirm",
      SignedInPath: "/account",
      SigninPath: "/signin",
      ManagePath: "/account",
      StalePath: "/stepup",
      OnAuthEvent: onAuthEvent,
      Logger: logger,
    });
    mux.Handle("GET /confirm", confirmPage(assets));
    mux.Handle("POST /passkey/signin/begin", keys.SignInBegin);
    mux.Handle("POST /passkey/signin/finish", keys.SignInFinish);
    mux.Handle("POST /passkey/register/begin", keys.RegisterBegin);
    mux.Handle("POST /passkey/register/finish", keys.RegisterFinish);
    mux.Handle("POST /passkey/stepup/begin", keys.StepUpBegin);
    mux.Handle("POST /passkey/stepup/finish", keys.StepUpFinish);
    mux.Handle("POST /passkey/signin/recovery", keys.SignInRecovery);
    signedIn.Handle("GET /stepup", stepUpPage(assets));
    signedIn.Handle("GET /account", (req, res) => renderAccount(req, res, assets, keys));
    signedIn.Handle("POST /account/passkeys/rename", keys.Rename);
    signedIn.Handle("POST /account/passkeys/delete", keys.Delete);
    fresh.Handle("POST /account/recovery-codes", (req, res) =>
      renderAccount(req, res, assets, keys, keys.RegenerateRecoveryCodes(signin.From(req)?.Subject ?? "", req)),
    );

    // Step 4: a background job with its status page.
    const jobStatus = mountJobs({ jobs, signedIn, assets, stepMs: Number(env["JOB_STEP_MS"] ?? 500) });

    // Step 5: an agent token and a tool call.
    const tools = new agent.ToolRegistry();
    const agents = mountAgents({ db, mux, auth, fresh, jobs, tools, assets, logger, Origin, jobStatus, notices });

    // Step 6: a resource from the manifest, its tools in the same registry.
    mountExpenses({ db, mux, tools, auth, Origin });

    // Step 7: an MCP client connects; a write waits for the person's approval.
    const connected = mountConnect({ db, mux, auth, fresh, agents, tools, assets, Origin });

    // Step 8: records a team shares: teams, invitations by email, and the team's task list.
    const team = mountTeams({ db, mux, auth, signedIn, tools, assets, mailer, Origin });

    // Step 9: the account: a new address, the person's data, deletion.
    const settings = mountAccount({ db, mux, auth, keys, signedIn, fresh, assets, mailer, MailFrom, onAuthEvent, InstanceKey, Origin });

    const sweep = setInterval(
      () => {
        // One after another: each deletes in bounded steps, leaving the event loop to requests between them.
        const sweeps = async (now: Date): Promise<void> => {
          await auth.Sweep(now);
          await passkey.Sweep(db, now);
          await agents.approvals.sweep(now);
          await connected.sweep(now);
          await team.Sweep(now);
          await settings.Sweep(now);
        };
        sweeps(new Date()).catch((error: unknown) => logger.error("sweep failed", { error }));
      },
      10 * 60 * 1000,
    );
    sweep.unref();
    return mux;
  },
});
