import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { newSMTPMailer, isMailError } from "../../lib/mail/index.ts";
import type { Message } from "../../lib/mail/index.ts";
import { composeMessage } from "../../lib/mail/build.ts";
import { SMTPConnection } from "../../lib/mail/connection.ts";
import { runSession } from "../../lib/mail/smtp.ts";
import { resolveSMTPOptions } from "../../lib/mail/smtp-options.ts";
import { startSMTPServer, startSilentServer } from "../_support/smtp-server.ts";
import type { TestSMTPServerOptions } from "../_support/smtp-server.ts";

const insecureTLS = { rejectUnauthorized: false };
const msg: Message = { From: "app@example.com", To: "ada@example.com", Subject: "Sign in", Text: "link" };

/** Asserts that `p` rejects with a MailError having the given fields, and returns it. */
async function rejectsWith(p: Promise<unknown>, want: Record<string, unknown>): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isMailError(e), `not a MailError: ${String(e)}`);
    const fields = new Map<string, unknown>(Object.entries(e));
    for (const [k, v] of Object.entries(want)) assert.deepEqual(fields.get(k), v, k);
    assert.doesNotMatch(e.message, /hunter2/);
    return true;
  });
}

describe("NewSMTPMailer() failures", () => {
  const rows: Array<{ name: string; server: TestSMTPServerOptions; auth?: boolean; prefer?: "LOGIN"; want: Record<string, unknown> }> = [
    {
      name: "refused AUTH",
      server: { starttls: true, refuseAuth: true },
      auth: true,
      want: { code: "ERR_MAIL_AUTH", replyCode: 535, command: "AUTH", transient: false },
    },
    {
      name: "wrong password",
      server: { starttls: true, auth: { user: "u", pass: "right" } },
      auth: true,
      want: { code: "ERR_MAIL_AUTH", replyCode: 535 },
    },
    { name: "no AUTH offered", server: { starttls: true }, auth: true, want: { code: "ERR_MAIL_AUTH", command: "AUTH", transient: false } },
    {
      name: "preferred mechanism not offered",
      server: { starttls: true, auth: { user: "u", pass: "hunter2", methods: ["PLAIN"] } },
      auth: true,
      prefer: "LOGIN",
      want: { code: "ERR_MAIL_AUTH" },
    },
    {
      name: "AUTH required but no credentials",
      server: { auth: { user: "u", pass: "p" } },
      want: { code: "ERR_MAIL_PERMANENT", replyCode: 530, command: "MAIL" },
    },
    {
      name: "4xx at RCPT",
      server: { fail: { at: "RCPT", code: 450 } },
      want: { code: "ERR_MAIL_TRANSIENT", replyCode: 450, command: "RCPT", transient: true },
    },
    {
      name: "5xx at MAIL",
      server: { fail: { at: "MAIL", code: 550 } },
      want: { code: "ERR_MAIL_PERMANENT", replyCode: 550, command: "MAIL", transient: false },
    },
    {
      name: "5xx at DATA",
      server: { fail: { at: "DATA", code: 554 } },
      want: { code: "ERR_MAIL_PERMANENT", replyCode: 554, command: "DATA", transient: false },
    },
    {
      name: "4xx at DATA",
      server: { fail: { at: "DATA", code: 451 } },
      want: { code: "ERR_MAIL_TRANSIENT", replyCode: 451, command: "DATA", transient: true },
    },
  ];
  for (const row of rows) {
    it(`rejects a ${row.name} with ${String(row.want["code"])}`, async (t) => {
      const srv = await startSMTPServer(row.server);
      t.after(() => srv.close());
      const creds = row.auth === true ? "u:hunter2@" : "";
      const mailer = newSMTPMailer(`smtp://${creds}127.0.0.1:${srv.port}`, {
        tls: insecureTLS,
        ...(row.prefer === undefined ? {} : { authMethod: row.prefer }),
      });
      await rejectsWith(mailer.Send(msg), row.want);
      assert.equal(srv.messages.length, 0);
    });
  }

  it("times out on a server that never greets", async (t) => {
    const srv = await startSilentServer();
    t.after(() => srv.close());
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { commandTimeout: 50 }).Send(msg), {
      code: "ERR_MAIL_TIMEOUT",
      command: "greeting",
      transient: true,
    });
  });

  it("times out on a server that never answers the message body", async (t) => {
    const srv = await startSMTPServer({ stall: "DATA" });
    t.after(() => srv.close());
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { dataTimeout: 50 }).Send(msg), {
      code: "ERR_MAIL_TIMEOUT",
      command: "DATA",
    });
  });

  it("times out on an smtp-server that stalls before its greeting", async (t) => {
    const srv = await startSMTPServer({ stall: "greeting" });
    t.after(() => srv.close());
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { commandTimeout: 50 }).Send(msg), { code: "ERR_MAIL_TIMEOUT" });
  });

  it("aborts when the signal fires", async (t) => {
    const ac = new AbortController();
    const srv = await startSilentServer(() => ac.abort(new Error("shutdown")));
    t.after(() => srv.close());
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${srv.port}`).Send(msg, ac.signal), { code: "ERR_MAIL_ABORTED", transient: false });
  });

  it("reports a refused connection as transient ERR_MAIL_CONNECT", async () => {
    const srv = await startSilentServer();
    const port = srv.port;
    await srv.close();
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${port}`).Send(msg), { code: "ERR_MAIL_CONNECT", transient: true });
  });

  it("verifies the server certificate by default", async (t) => {
    const srv = await startSMTPServer({ secure: true });
    t.after(() => srv.close());
    await rejectsWith(newSMTPMailer(`smtps://127.0.0.1:${srv.port}`).Send(msg), { code: "ERR_MAIL_CONNECT", transient: false });
  });

  it("refuses header injection before connecting", async (t) => {
    const srv = await startSilentServer();
    t.after(() => srv.close());
    const mailer = newSMTPMailer(`smtp://127.0.0.1:${srv.port}`);
    await rejectsWith(mailer.Send({ ...msg, Subject: "Hi\r\nBcc: eve@evil.example" }), { code: "ERR_MAIL_HEADER_INJECTION" });
    await rejectsWith(mailer.Send({ ...msg, To: "ada@example.com\nBcc: eve@evil.example" }), { code: "ERR_MAIL_HEADER_INJECTION" });
    assert.equal(srv.connections(), 0);
  });
});

describe("NewSMTPMailer() STARTTLS", () => {
  it("refuses replies pipelined after the STARTTLS 220 (RFC 3207 §5)", async (t) => {
    const server = createServer((s) => {
      s.on("error", () => {});
      s.write("220 ready\r\n");
      s.on("data", (chunk: Buffer) => {
        const line = chunk.toString("utf8");
        if (line.startsWith("EHLO")) s.write("250-evil.example\r\n250 STARTTLS\r\n");
        // A man in the middle injects a reply the client would read as if it came over TLS.
        else if (line.startsWith("STARTTLS")) s.write("220 go ahead\r\n250 injected\r\n");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    assert.ok(address !== null && typeof address !== "string");
    await rejectsWith(newSMTPMailer(`smtp://127.0.0.1:${address.port}`).Send(msg), { code: "ERR_MAIL_PROTOCOL" });
  });
});

describe("runSession() transport policy for a non-loopback host", () => {
  const cases = [
    { name: "refuses plaintext when STARTTLS is not offered", options: {}, creds: false, want: "ERR_MAIL_TLS_REQUIRED" },
    {
      name: "refuses credentials over plaintext even with allowPlaintext",
      options: { allowPlaintext: true },
      creds: true,
      want: "ERR_MAIL_TLS_REQUIRED",
    },
    {
      name: "delivers in plaintext with allowPlaintext and no credentials",
      options: { allowPlaintext: true },
      creds: false,
      want: undefined,
    },
  ];
  for (const c of cases) {
    it(c.name, async (t) => {
      const srv = await startSMTPServer({ auth: { user: "u", pass: "hunter2" } });
      t.after(() => srv.close());
      // The connection goes to loopback; the policy sees the configured, non-loopback name.
      const ep = {
        scheme: "smtp",
        host: "mail.example.com",
        port: srv.port,
        credentials: c.creds ? { username: "u", password: "hunter2" } : undefined,
      } as const;
      const conn = await SMTPConnection.open({
        host: "127.0.0.1",
        port: srv.port,
        implicitTLS: false,
        tls: {},
        pin: undefined,
        timeout: 5000,
        signal: undefined,
      });
      t.after(() => conn.destroy());
      const p = runSession(conn, ep, resolveSMTPOptions(c.options), composeMessage(msg));
      if (c.want === undefined) {
        // Without credentials the server's AUTH requirement answers MAIL with 530: the session got that far in plaintext.
        await rejectsWith(p, { code: "ERR_MAIL_PERMANENT", replyCode: 530 });
      } else {
        await rejectsWith(p, { code: c.want, transient: false });
      }
      assert.equal(srv.messages.length, 0);
    });
  }
});

describe("NewSMTPMailer() configuration", () => {
  const rows = [
    { url: "http://u:hunter2@127.0.0.1", options: {}, code: "ERR_MAIL_INVALID_URL" },
    { url: "smtp://127.0.0.1", options: { connectTimeout: 0 }, code: "ERR_MAIL_INVALID_OPTIONS" },
    { url: "smtp://127.0.0.1", options: { dataTimeout: 1.5 }, code: "ERR_MAIL_INVALID_OPTIONS" },
    { url: "smtp://127.0.0.1", options: { helo: "bad name\r\nMAIL" }, code: "ERR_MAIL_INVALID_OPTIONS" },
    { url: "smtp://127.0.0.1", options: { messageIdDomain: "x y" }, code: "ERR_MAIL_INVALID_OPTIONS" },
  ];
  for (const row of rows) {
    it(`throws ${row.code} at construction for ${JSON.stringify(row.options)}`, () => {
      assert.throws(() => newSMTPMailer(row.url, row.options), { code: row.code });
    });
  }
});
