/*
 * The source drop (docs/supply-chain.md#vendoring): lib/ and catalogs/
 * copied into a scratch project, with its three run-time dependencies
 * linked into its node_modules, run as TypeScript source by plain `node`
 * (type stripping, on by default from Node 22.18; no compiler), and sign
 * a person in against a real SMTP server.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CookieJar, sendRequest } from "../_support/http-client.ts";
import { freePort } from "../_support/server.ts";
import { startSMTPServer, type TestSMTPServer } from "../_support/smtp-server.ts";
import { ROOT } from "./supply-doc.ts";

// Node 22.18 (and every later line) strips types by default (docs/supply-chain.md#vendoring).
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
const stripsTypes = major > 22 || (major === 22 && minor >= 18);

/** The scratch project's application: the sign-in routes, imported from the copied sources. */
const APP = `
import { Handler } from "./lib/index.ts";
import { mergeSchemas } from "./lib/db/index.ts";
import { crossOriginProtection, newLogger, type HandlerFunc } from "./lib/http/index.ts";
import { newSMTPMailer } from "./lib/mail/index.ts";
import { Mux } from "./lib/router/index.ts";
import * as session from "./lib/session/index.ts";
import * as signin from "./lib/signin/index.ts";
import { createServer } from "node:http";

const origin = process.env.ORIGIN ?? "";
const logger = newLogger();
const [handler] = Handler({
  DBPath: "app.db",
  Logger: logger,
  Schema: mergeSchemas(session.Schema, signin.Schema),
  Wrap: (next: HandlerFunc) => crossOriginProtection({ Origin: origin })(next),
  Router: (db) => {
    if (db === undefined) throw new Error("no database");
    const auth = signin.create({
      DB: db,
      Origin: origin,
      InstanceKey: "source-drop-instance-key-0123456789",
      SigninPath: "/signin",
      SignedInPath: "/account",
      Logger: logger,
      Mailer: newSMTPMailer(process.env.SMTP_URL ?? "", { tls: { rejectUnauthorized: false } }),
    });
    const mux = new Mux();
    mux.Handle("POST /signin", auth.Begin);
    mux.Handle("GET /auth/verify", auth.Verify);
    mux.With(auth.RequireSession).Handle("GET /account", (req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ subject: signin.SessionFrom(req)?.Subject }));
    });
    return mux;
  },
});
const server = createServer((req, res) => void handler(req, res));
server.listen(Number(process.env.PORT), "127.0.0.1", () => process.stdout.write("listening\\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
`;

describe(
  "a source drop of lib/ and catalogs/",
  { skip: stripsTypes ? false : `Node ${process.versions.node} does not strip types by default (22.18+)` },
  () => {
    const scratch = mkdtempSync(join(tmpdir(), "latch-drop-"));
    let smtp: TestSMTPServer;
    let child: ChildProcess;
    let origin = "";
    let output = "";
    before(async () => {
      cpSync(join(ROOT, "lib"), join(scratch, "lib"), { recursive: true });
      cpSync(join(ROOT, "catalogs"), join(scratch, "catalogs"), { recursive: true });
      mkdirSync(join(scratch, "node_modules/@noble"), { recursive: true });
      for (const name of ["@noble/curves", "better-sqlite3", "cbor-x"])
        symlinkSync(join(ROOT, "node_modules", name), join(scratch, "node_modules", name));
      writeFileSync(join(scratch, "package.json"), `{ "name": "drop", "private": true, "type": "module" }\n`);
      writeFileSync(join(scratch, "app.ts"), APP);
      smtp = await startSMTPServer();
      const port = await freePort();
      origin = `http://127.0.0.1:${port}`;
      // Without the test runner's NODE_TEST_CONTEXT, which would make app.ts report as a test file.
      const { NODE_TEST_CONTEXT: _context, ...inherited } = process.env;
      child = spawn(process.execPath, ["app.ts"], {
        cwd: scratch,
        env: { ...inherited, PORT: String(port), ORIGIN: origin, SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, NODE_OPTIONS: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (c: Buffer) => {
          output += c.toString();
          if (output.includes("listening")) resolve();
        });
        child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
        child.once("exit", (code) => reject(new Error(`app.ts exited (${code}):\n${output}`)));
      });
    });
    after(async () => {
      if (child !== undefined && child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await smtp?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it("signs a person in by emailed link, no compiler involved", async () => {
      const jar = new CookieJar();
      const begun = await sendRequest(origin, "POST", "/signin", { jar, form: { email: "ada@example.com" } }, origin);
      assert.equal(begun.location, "/signin?sent=1", `${begun.status}: ${output}`);
      const mail = await smtp.waitForMessage((m) => m.to.includes("ada@example.com"));
      const link = /\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
      const landed = await sendRequest(origin, "GET", link, { jar }, origin);
      assert.equal(landed.location, "/account");
      const account = await sendRequest(origin, "GET", "/account", { jar }, origin);
      assert.equal(account.status, 200);
      assert.deepEqual(JSON.parse(account.body), { subject: "ada@example.com" });
    });
  },
);
