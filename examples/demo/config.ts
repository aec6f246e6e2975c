/*
 * The demo's environment contract (README "Demo"):
 *   PORT             listen on :PORT; unset → the runtime's default
 *                    (systemd-activated listener, else :8080)
 *   ORIGIN           public origin; default http://localhost:<port>
 *   STATE_DIRECTORY  where the database and generated key live (the runtime's
 *                    StateDirectory); default ./data
 *   INSTANCE_KEY     sign-in HMAC key; unset → generated once, kept in the state directory
 *   SMTP_URL         e.g. smtp://user:pass@127.0.0.1:2525; unset → links printed to the console
 *   SMTP_CA          PEM file that verifies a mail server with its own certificate
 *   SMTP_CERT_SHA256 or that certificate's SHA-256 fingerprint, pinned
 *   MAIL_FROM        sender address of sign-in emails
 *   OIDC_ISSUER      an OpenID provider to upgrade claimed addresses to
 *   LITESTREAM_SOCKET  Litestream's control socket; set → new sessions, passkeys
 *                    and recovery codes wait for replication (Options.Durable)
 *   OPERATORS        comma-separated addresses of the application's operators
 *                    (latch/operators, /operators); unset → nobody
 *   FRESH_SECONDS    how recent a sign-in must be for /account/security and
 *                    for deleting a passkey; default 300 (5 minutes)
 *   JOB_STEP_MS      length of one of the demo job's 10 steps; default 600
 * The last two exist so the browser tests can run the real entry point
 * quickly; leave them unset in use.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../lib/http/index.ts";
import { StateDirectory } from "../../lib/index.ts";

/** The demo's resolved settings. */
export interface DemoConfig {
  addr: string | undefined;
  origin: string;
  stateDir: string;
  instanceKey: string;
  smtpURL: string | undefined;
  /** A PEM file the mail server's certificate is verified against (its own CA, or the self-signed certificate). */
  smtpCA: string | undefined;
  /** The mail server certificate's SHA-256 fingerprint, the only certificate accepted. */
  smtpCertSHA256: string | undefined;
  mailFrom: string | undefined;
  oidcIssuer: string | undefined;
  /** Litestream's control socket, for the durability barrier. */
  litestreamSocket: string | undefined;
  /** The operators' addresses (OPERATORS, comma-separated): configuration, never data an operator can grant. */
  operators: string[];
  /** Freshness window of RequireFreshSession and passkey deletion, in ms. */
  freshFor: number;
  /** One job step, in ms. */
  jobStepMs: number;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

/** Reads the demo's settings from `env`. */
export function loadConfig(env: NodeJS.ProcessEnv, logger: Logger): DemoConfig {
  const port = nonEmpty(env["PORT"]);
  const stateDir = StateDirectory(env) ?? "data";
  mkdirSync(stateDir, { recursive: true });
  return {
    addr: port === undefined ? undefined : `:${port}`,
    origin: nonEmpty(env["ORIGIN"]) ?? `http://localhost:${port ?? "8080"}`,
    stateDir,
    instanceKey: nonEmpty(env["INSTANCE_KEY"]) ?? generatedKey(stateDir, logger),
    smtpURL: nonEmpty(env["SMTP_URL"]),
    smtpCA: nonEmpty(env["SMTP_CA"]),
    smtpCertSHA256: nonEmpty(env["SMTP_CERT_SHA256"]),
    mailFrom: nonEmpty(env["MAIL_FROM"]),
    oidcIssuer: nonEmpty(env["OIDC_ISSUER"]),
    litestreamSocket: nonEmpty(env["LITESTREAM_SOCKET"]),
    operators: (nonEmpty(env["OPERATORS"]) ?? "")
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== ""),
    freshFor: positive(env, "FRESH_SECONDS", 300) * 1000,
    jobStepMs: positive(env, "JOB_STEP_MS", 600),
  };
}

// A positive integer setting; a malformed one fails at startup, naming it.
function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = nonEmpty(env[name]);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`demo config: ${name} must be a positive integer`);
  return value;
}

// A key generated once per state directory and reused across restarts, so
// pending provider sign-ins survive a restart. Never a hard-coded key.
function generatedKey(stateDir: string, logger: Logger): string {
  const file = join(stateDir, "instance-key");
  try {
    const key = readFileSync(file, "utf8").trim();
    if (key !== "") return key;
  } catch {
    // First start: generate below.
  }
  const key = randomBytes(32).toString("base64url");
  writeFileSync(file, key + "\n", { mode: 0o600 });
  logger.warn("INSTANCE_KEY is not set; generated one and stored it in the state directory", { file });
  return key;
}
