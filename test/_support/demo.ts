/*
 * Runs the demo the way users run it: `node dist/examples/demo/main.js` as
 * a child process, with a temporary state directory and a real SMTP server
 * (smtp-server.ts) receiving its sign-in mail. The origin is
 * http://localhost:<port>: WebAuthn needs a host name for the RP ID, so a
 * free port is picked first (listen on 0, close, reuse) and the demo is
 * told both PORT and ORIGIN. Readiness is the demo's "listening" log line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import type { Page } from "./browser.ts";
import { CookieJar, sendRequest } from "./http-client.ts";
import { startSMTPServer, type TestSMTPServer } from "./smtp-server.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const MAIN = join(ROOT, "dist/examples/demo/main.js");

/** A running demo. */
export interface Demo {
  /** http://localhost:<port> */
  origin: string;
  smtp: TestSMTPServer;
  /** The demo's state directory (its database is demo.db there). */
  stateDir: string;
  /** Everything the demo logged so far (JSON lines). */
  logs(): string;
  /** Log lines at level "error". */
  errorLogs(): string[];
  /** Stops the demo (SIGTERM), the SMTP server, and removes the state directory. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("demo: no free port");
  return address.port;
}

function waitForListening(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      if (/"msg":"listening"/.test(output())) done(undefined);
    };
    const onExit = (code: number | null): void => done(new Error(`demo exited (${code}) before listening:\n${output()}`));
    const done = (err: Error | undefined): void => {
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      if (err === undefined) resolve();
      else reject(err);
    };
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  });
}

/**
 * Starts the demo with its own SMTP server and state directory. `env` adds
 * settings (FRESH_SECONDS, JOB_STEP_MS...). The browser script assets are
 * copied to dist as `npm run build` does, so a bare `tsc` build works too.
 */
export async function startDemo(env: Record<string, string> = {}): Promise<Demo> {
  cpSync(join(ROOT, "lib/client"), join(ROOT, "dist/lib/client"), { recursive: true });
  const smtp = await startSMTPServer();
  const stateDir = mkdtempSync(join(tmpdir(), "latch-demo-"));
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const { LISTEN_FDS: _fds, LISTEN_PID: _pid, ...inherited } = process.env;
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...inherited,
      PORT: String(port),
      ORIGIN: origin,
      STATE_DIRECTORY: stateDir,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      MAIL_FROM: "demo@localhost",
      INSTANCE_KEY: "e2e-instance-key-not-secret",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForListening(child, () => output);
  } catch (err) {
    await smtp.close();
    rmSync(stateDir, { recursive: true, force: true });
    throw err;
  }
  return {
    origin,
    smtp,
    stateDir,
    logs: () => output,
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
 * Signs `address` in through the browser: submits the /signin form, takes
 * the link from the mail the SMTP server received, and opens it. Resolves
 * once the link's redirects have settled.
 */
export async function signInByLink(page: Page, demo: Demo, address: string): Promise<void> {
  const before = demo.smtp.messages.length;
  await page.goto(`${demo.origin}/signin`);
  await page.fill("#email", address);
  await page.click('form[action="/signin"] button[type="submit"]');
  await page.waitForURL(/\/signin\?sent=1$/);
  const message = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address));
  const pattern = new RegExp(`${demo.origin.replace(/[.:/]/g, "\\$&")}/auth/verify\\?token=[A-Za-z0-9_-]+`);
  const link = pattern.exec(message.parsed.text ?? "")?.[0];
  if (link === undefined) throw new Error(`demo: no sign-in link in the mail:\n${message.parsed.text ?? ""}`);
  await page.goto(link);
}

/** Signs out through the account page's form. */
export async function signOut(page: Page, demo: Demo): Promise<void> {
  await page.goto(`${demo.origin}/account`);
  await page.click('form[action="/signout"] button');
  await page.waitForURL(/\/signin$/);
}

/**
 * Signs `address` in over HTTP (no browser): POST /signin with a cookie
 * jar (the link signs in only the client that asked), then opens the
 * emailed link. Returns the jar holding the session.
 */
export async function signInHTTP(demo: Demo, address: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const before = demo.smtp.messages.length;
  const begun = await sendRequest(demo.origin, "POST", "/signin", { jar, form: { email: address } }, demo.origin);
  assert.equal(begun.location, "/signin?sent=1");
  const message = await demo.smtp.waitForMessage((m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address));
  const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(message.parsed.text ?? "")?.[0];
  assert.ok(link !== undefined);
  const landed = await sendRequest(demo.origin, "GET", link, { jar }, demo.origin);
  assert.equal(landed.location, "/account");
  return jar;
}
