/*
 * Runs the demo the way users run it: `node dist/examples/demo/main.js`
 * (or the bundle its unit runs, dist/bundle/demo.js) as a child process,
 * with a temporary state directory and a real SMTP server (smtp-server.ts)
 * receiving its sign-in mail. The origin is
 * http://localhost:<port>: WebAuthn needs a host name for the RP ID, so a
 * free port is picked first (listen on 0, close, reuse) and the demo is
 * told both PORT and ORIGIN. Readiness is the demo's "listening" log line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEMO_BUNDLE, DEMO_ENTRY } from "../../scripts/bundle.ts";
import type { Page } from "./browser.ts";
import { extractCode, extractLink } from "./signin-app.ts";
import { CookieJar, sendRequest, type TestResponse } from "./http-client.ts";
import { newAuthenticator } from "./authenticator.ts";
import { freePort } from "./server.ts";
import { startSMTPServer, type CapturedMessage, type TestSMTPServer, type TestSMTPServerOptions } from "./smtp-server.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const GUIDE = join(ROOT, "dist/examples/guide/main.js");

/** A running demo. */
export interface Demo {
  /** http://localhost:<port> */
  origin: string;
  smtp: TestSMTPServer;
  /** The demo's state directory (its database is demo.db there). */
  stateDir: string;
  /** The demo process's id (its memory is read from /proc/<pid>/status). */
  pid: number;
  /** Everything the demo logged so far (JSON lines). */
  logs(): string;
  /** Resolves once the log matches `pattern`: a line logged as an answer is sent may reach the pipe after the answer. */
  waitForLog(pattern: RegExp): Promise<void>;
  /** Log lines at level "error". */
  errorLogs(): string[];
  /** Stops the demo (SIGTERM), the SMTP server, and removes the state directory. */
  close(): Promise<void>;
}

/** Resolves once `output` matches `pattern` (the demo writes its log to stdout and stderr as it goes); rejects if it exits first. */
function waitForOutput(child: ChildProcess, output: () => string, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      if (pattern.test(output())) done(undefined);
    };
    const onExit = (code: number | null): void => done(new Error(`demo exited (${code}) before logging ${pattern}:\n${output()}`));
    const done = (err: Error | undefined): void => {
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (err === undefined) resolve();
      else reject(err);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
    onData();
  });
}

/**
 * Copies lib/client to dist/lib/client as `npm run build` does, touching
 * only files that differ, each by an atomic rename: suites start demos
 * concurrently, and a demo loading its assets while another suite's copy
 * had removed a file (as `cpSync` does before copying) would miss it.
 */
export function copyClientScripts(): void {
  const from = join(ROOT, "lib/client");
  const to = join(ROOT, "dist/lib/client");
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    const bytes = readFileSync(join(from, name));
    let current: Buffer | undefined;
    try {
      current = readFileSync(join(to, name));
    } catch {
      current = undefined;
    }
    if (current !== undefined && current.equals(bytes)) continue;
    // A dot name: the asset loader skips it until the rename.
    const temporary = join(to, `.${name}.${process.pid}`);
    writeFileSync(temporary, bytes);
    renameSync(temporary, join(to, name));
  }
}

/**
 * Starts the demo with its own SMTP server and state directory. `env` adds
 * settings (FRESH_SECONDS, JOB_STEP_MS...). The browser script assets are
 * copied to dist as `npm run build` does, so a bare `tsc` build works too.
 */
export async function startDemo(env: Record<string, string> = {}, smtp: TestSMTPServerOptions = {}): Promise<Demo> {
  return startExample(DEMO_ENTRY, () => [], env, smtp);
}

/** Starts the demo as its unit runs it: the bundle `npm run build` writes (scripts/bundle.ts). */
export async function startBundledDemo(env: Record<string, string> = {}): Promise<Demo> {
  return startExample(DEMO_BUNDLE, () => [], env);
}

/**
 * Starts the guide's application (examples/guide, docs/guide.md) the same
 * way: it reads ORIGIN, STATE_DIRECTORY, SMTP_URL, MAIL_FROM and
 * INSTANCE_KEY, and is told where to listen with `--addr :PORT` (or, given
 * "PORT", by the PORT variable alone). `main` is its compiled entry, or a
 * bundle of it.
 */
export async function startGuide(
  env: Record<string, string> = {},
  main: string = GUIDE,
  addr: "--addr" | "PORT" = "--addr",
): Promise<Demo> {
  return startExample(main, (port) => (addr === "--addr" ? ["--addr", `:${port}`] : []), env);
}

async function startExample(
  main: string,
  args: (port: number) => string[],
  env: Record<string, string>,
  smtpOptions: TestSMTPServerOptions = {},
): Promise<Demo> {
  copyClientScripts();
  const smtp = await startSMTPServer(smtpOptions);
  const stateDir = mkdtempSync(join(tmpdir(), "latch-demo-"));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const { LISTEN_FDS: _fds, LISTEN_PID: _pid, ...inherited } = process.env;
  const child = spawn(process.execPath, [main, ...args(port)], {
    env: {
      ...inherited,
      PORT: String(port),
      ORIGIN: origin,
      STATE_DIRECTORY: stateDir,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: "demo@localhost",
      INSTANCE_KEY: "e2e-instance-key-not-secret-0123456789",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForOutput(child, () => output, /"msg":"listening"/);
  } catch (err) {
    await smtp.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw err;
  }
  return {
    origin,
    smtp,
    stateDir,
    pid: child.pid ?? 0,
    logs: () => output,
    // A guard against a hang when the line never comes (a changed message), not a measure of speed: a pipe delivers
    // a line logged with an answer within milliseconds.
    waitForLog: (pattern) =>
      Promise.race([
        waitForOutput(child, () => output, pattern),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`the demo never logged ${pattern}:\n${output}`)), 60_000).unref(),
        ),
      ]),
    errorLogs: () => output.split("\n").filter((line) => line.includes('"level":"error"')),
    async close() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      await smtp.close();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * Asks for a sign-in link from `page` (the person's browser, which the link
 * is then bound to) and returns the emailed link and code.
 */
export async function requestSignin(page: Page, demo: Demo, address: string): Promise<{ link: string; code: string }> {
  const before = demo.smtp.messages.length;
  await page.goto(`${demo.origin}/signin`);
  await page.fill("#email", address);
  await page.click('form[action="/signin"] button[type="submit"]');
  await page.waitForURL(/\/signin\?sent=1$/);
  const message = await demo.smtp.waitForMessage(
    (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address) && isSigninMail(m),
  );
  const text = message.parsed.text ?? "";
  return { link: extractLink(text), code: extractCode(text) };
}

/**
 * Signs `address` in through the browser: submits the /signin form, takes
 * the link from the mail the SMTP server received, and opens it. Resolves
 * once the link's redirects have settled.
 */
export async function signInByLink(page: Page, demo: Demo, address: string): Promise<void> {
  const { link } = await requestSignin(page, demo, address);
  await page.goto(link);
}

/** Mints an agent token on /account/agents in the signed-in `page` and returns it (shown once, in `data-agent-token`). */
export async function mintTokenInBrowser(page: Page, demo: Demo, name: string, access: "read" | "write"): Promise<string> {
  await page.goto(`${demo.origin}/account/agents`);
  await page.fill('input[name="name"]', name);
  await page.click(`input[name="access"][value="${access}"]`);
  await page.click('form[action="/account/agents"] button[type="submit"]');
  await page.waitForSelector("[data-agent-token]");
  return (await page.getAttribute("[data-agent-token]", "data-agent-token")) ?? "";
}

/** Signs out through the account page's form. */
export async function signOut(page: Page, demo: Demo): Promise<void> {
  await page.goto(`${demo.origin}/account`);
  await page.click('form[action="/signout"] button');
  await page.waitForURL(/\/signin$/);
}

/**
 * Signs `address` in over HTTP (no browser): asks for the link with a
 * cookie jar, takes it from the mail, opens it with the same jar (the link
 * signs in only the client that asked for it). Returns the signed-in jar.
 */
export async function signInOverHTTP(demo: Demo, address: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const before = demo.smtp.messages.length;
  const begun = await sendRequest(demo.origin, "POST", "/signin", { jar, form: { email: address } }, demo.origin);
  if (begun.location !== "/signin?sent=1") throw new Error(`demo: POST /signin answered ${begun.status} ${begun.location ?? ""}`);
  const message = await demo.smtp.waitForMessage(
    (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address) && isSigninMail(m),
  );
  const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(message.parsed.text ?? "")?.[0];
  if (link === undefined) throw new Error(`demo: no sign-in link in the mail:\n${message.parsed.text ?? ""}`);
  const landed = await sendRequest(demo.origin, "GET", link, { jar }, demo.origin);
  if (landed.location !== "/account") throw new Error(`demo: the sign-in link answered ${landed.status} ${landed.location ?? ""}`);
  return jar;
}

/** Whether `m` is a sign-in mail (a link to open), not one of the security notices the demo also sends. */
export const isSigninMail = (m: CapturedMessage): boolean => /\/auth\/verify\?token=/.test(m.parsed.text ?? "");

/** Returns the agent token shown in a /account/agents page, if any. */
export const agentTokenIn = (body: string): string | undefined => /data-agent-token="([A-Za-z0-9_-]+)"/.exec(body)?.[1];

/** Mints an agent token on /account/agents as the person signed in with `jar` and returns it. */
export async function mintAgentToken(demo: Demo, jar: CookieJar, name: string, access: "read" | "write"): Promise<string> {
  const minted = await sendRequest(demo.origin, "POST", "/account/agents", { jar, form: { name, access } }, demo.origin);
  const token = agentTokenIn(minted.body);
  if (token === undefined) throw new Error(`demo: minting ${name} answered ${minted.status}`);
  return token;
}

/** Calls `tool` with `args` over `POST /api/tools/{name}` with the agent token `bearer`. */
export function callTool(demo: Pick<Demo, "origin">, bearer: string, tool: string, args: Record<string, unknown>): Promise<TestResponse> {
  return sendRequest(
    demo.origin,
    "POST",
    `/api/tools/${tool}`,
    { headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
    demo.origin,
  );
}

/** A PKCE verifier and its S256 challenge (RFC 7636 §4.2). */
const PKCE_VERIFIER = "operators-test-verifier-".padEnd(43, "v");
const PKCE = { verifier: PKCE_VERIFIER, challenge: createHash("sha256").update(PKCE_VERIFIER).digest("base64url") };

/**
 * Grants an OAuth client (registered here, RFC 7591) `scope` as the person
 * signed in with `jar`, over HTTP as a browser would: the consent page's
 * form posted with "allow", the code exchanged with PKCE. Returns the
 * access token (for /mcp).
 */
export async function grantOAuthClient(demo: Demo, jar: CookieJar, scope: "read" | "write"): Promise<string> {
  const redirect = "http://127.0.0.1:9/cb";
  const json = { "Content-Type": "application/json" };
  const registered = await sendRequest(
    demo.origin,
    "POST",
    "/oauth/register",
    { headers: json, body: JSON.stringify({ client_name: "Granted client", redirect_uris: [redirect] }) },
    demo.origin,
  );
  const clientID = String(JSON.parse(registered.body).client_id);
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientID,
    redirect_uri: redirect,
    code_challenge: PKCE.challenge,
    code_challenge_method: "S256",
    resource: `${demo.origin}/mcp`,
    scope,
  });
  const consent = await sendRequest(demo.origin, "GET", `/oauth/authorize?${query.toString()}`, { jar }, demo.origin);
  // The consent form is the one after the resource it names (the page's header has forms of its own).
  const form = consent.body.slice(consent.body.indexOf("data-consent-resource"));
  const action = /<form[^>]* method="post" action="([^"]+)"/.exec(form)?.[1]?.replaceAll("&amp;", "&") ?? "";
  const fields = [...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(
    ([, name, value]) => [name ?? "", (value ?? "").replaceAll("&amp;", "&").replaceAll("&#39;", "'").replaceAll("&quot;", '"')] as const,
  );
  const allowed = await sendRequest(
    demo.origin,
    "POST",
    action,
    { jar, form: { ...Object.fromEntries(fields), decision: "allow" } },
    demo.origin,
  );
  const code = new URL(allowed.location ?? "http://x/").searchParams.get("code");
  if (code === null) throw new Error(`demo: consent answered ${allowed.status} ${allowed.location ?? allowed.body.slice(0, 300)}`);
  const exchanged = await sendRequest(
    demo.origin,
    "POST",
    "/oauth/token",
    {
      form: {
        grant_type: "authorization_code",
        code,
        client_id: clientID,
        redirect_uri: redirect,
        code_verifier: PKCE.verifier,
        resource: `${demo.origin}/mcp`,
      },
    },
    demo.origin,
  );
  const token = JSON.parse(exchanged.body).access_token;
  if (typeof token !== "string") throw new Error(`demo: the token endpoint answered ${exchanged.status} ${exchanged.body}`);
  return token;
}

/**
 * Signs `address` in over HTTP, enrols a passkey of a software authenticator
 * and steps up with it: the returned jar holds a fresh session a passkey
 * confirmed (what latch/operators' gate asks of an operator).
 */
export async function passkeyConfirmedOverHTTP(demo: Demo, address: string): Promise<CookieJar> {
  const jar = await signInOverHTTP(demo, address);
  const authenticator = newAuthenticator({ origin: demo.origin });
  const json = async (path: string, body: unknown = {}): Promise<unknown> => {
    const res = await sendRequest(
      demo.origin,
      "POST",
      path,
      { jar, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
      demo.origin,
    );
    if (res.status !== 200) throw new Error(`demo: ${path} answered ${res.status} ${res.body}`);
    return JSON.parse(res.body === "" ? "{}" : res.body);
  };
  const credential = authenticator.register(await json("/passkey/register/begin"));
  await json("/passkey/register/finish", credential);
  await json("/passkey/stepup/finish", authenticator.assert(await json("/passkey/stepup/begin"), credential.id));
  return jar;
}
