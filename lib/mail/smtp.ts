/*
 * The SMTP mailer: one connection per `Send`, in RFC 5321 §3's order (greeting, EHLO, STARTTLS and EHLO
 * again, AUTH, MAIL, RCPT each, DATA, QUIT). The message is built before connecting; any refused
 * recipient fails the whole send.
 */
import type { Mailer, Message } from "./types.ts";
import { authenticate, chooseAuthMethod } from "./auth.ts";
import { composeMessage } from "./build.ts";
import type { ComposedMessage } from "./build.ts";
import { SMTPConnection } from "./connection.ts";
import { MailError } from "./errors.ts";
import { isAuthAllowed, isPlaintextAllowed } from "./policy.ts";
import { parseEHLO, replyError } from "./reply.ts";
import type { Reply } from "./reply.ts";
import { resolveSMTPOptions } from "./smtp-options.ts";
import type { ResolvedSMTPOptions, SMTPOptions } from "./smtp-options.ts";
import { parseSMTPURL } from "./url.ts";
import type { SMTPEndpoint } from "./url.ts";

function expect(reply: Reply, command: string, ...codes: number[]): Reply {
  if (!codes.includes(reply.code)) throw replyError(reply, command);
  return reply;
}

/** Says hello (EHLO, falling back to HELO on a 5xx, RFC 5321 §3.2) and returns the advertised extensions. */
async function hello(conn: SMTPConnection, o: ResolvedSMTPOptions): Promise<Map<string, string[]>> {
  const reply = await conn.command(`EHLO ${o.helo}`, "EHLO", o.commandTimeout);
  if (reply.code === 250) return parseEHLO(reply);
  if (reply.code < 500) throw replyError(reply, "EHLO");
  expect(await conn.command(`HELO ${o.helo}`, "HELO", o.commandTimeout), "HELO", 250);
  return new Map();
}

/**
 * Runs one mail transaction for `msg` on an open connection to `ep`. Policy
 * decisions (TLS required, credentials allowed) use `ep.host`; exported for
 * tests that drive it on a loopback connection under a non-loopback name.
 */
export async function runSession(conn: SMTPConnection, ep: SMTPEndpoint, o: ResolvedSMTPOptions, msg: ComposedMessage): Promise<void> {
  expect(await conn.read("greeting", o.commandTimeout), "greeting", 220);
  let ext = await hello(conn, o);
  if (!conn.secure) {
    if (ext.has("STARTTLS")) {
      expect(await conn.command("STARTTLS", "STARTTLS", o.commandTimeout), "STARTTLS", 220);
      await conn.upgrade(ep.host, o.tls, o.pin, o.commandTimeout);
      // RFC 3207 §4.2: discard what was learned before TLS and ask again.
      ext = await hello(conn, o);
    } else if (!isPlaintextAllowed(ep.host, o.allowPlaintext)) {
      // RFC 8314 §3: submission must be encrypted; plaintext only on loopback or by explicit opt-in.
      throw new MailError("ERR_MAIL_TLS_REQUIRED", `mail: ${ep.host} does not offer STARTTLS`, { transient: false });
    }
  }
  if (ep.credentials !== undefined) {
    // RFC 4954 §4: no credentials over an unencrypted connection to another host.
    if (!isAuthAllowed(ep.host, conn.secure)) {
      throw new MailError("ERR_MAIL_TLS_REQUIRED", `mail: refusing to send credentials to ${ep.host} without TLS`, { transient: false });
    }
    const method = chooseAuthMethod(ext.get("AUTH") ?? [], o.authMethod);
    await authenticate(conn, method, ep.credentials, o.commandTimeout);
  }
  expect(await conn.command(`MAIL FROM:<${msg.from}>`, "MAIL", o.commandTimeout), "MAIL", 250);
  for (const rcpt of msg.recipients) {
    expect(await conn.command(`RCPT TO:<${rcpt}>`, "RCPT", o.commandTimeout), "RCPT", 250, 251);
  }
  expect(await conn.command("DATA", "DATA", o.commandTimeout), "DATA", 354);
  conn.writeData(msg.data);
  expect(await conn.read("DATA", o.dataTimeout), "DATA", 250);
  // The message is accepted; a QUIT that goes unanswered changes nothing.
  conn.write("QUIT");
}

/**
 * Creates a mailer delivering through `smtp://[user:pass@]host[:587]` (STARTTLS required but on loopback
 * or with `allowPlaintext`) or `smtps://…[:465]`. Throws `ERR_MAIL_INVALID_URL` or
 * `ERR_MAIL_INVALID_OPTIONS` at once; `Send` rejects with a `MailError`.
 *
 * @example
 * const mailer = newSMTPMailer("smtps://app%40example.com:secret@smtp.example.com");
 * await mailer.Send({ From: "app@example.com", To: "ada@example.com", Subject: "Sign in", Text: link });
 */
export function newSMTPMailer(url: string, options: SMTPOptions = {}): Mailer {
  const ep = parseSMTPURL(url);
  const o = resolveSMTPOptions(options);
  const buildOptions = {
    clock: o.clock,
    random: o.random,
    ...(o.messageIdDomain === undefined ? {} : { messageIdDomain: o.messageIdDomain }),
  };
  return {
    async Send(message: Message, signal?: AbortSignal): Promise<void> {
      const msg = composeMessage(message, buildOptions);
      const conn = await SMTPConnection.open({
        host: ep.host,
        port: ep.port,
        implicitTLS: ep.scheme === "smtps",
        tls: o.tls,
        pin: o.pin,
        timeout: o.connectTimeout,
        signal,
      });
      try {
        await runSession(conn, ep, o, msg);
        conn.end();
      } catch (e) {
        conn.destroy();
        throw e;
      }
      o.logger.debug("mail: sent", { messageId: msg.messageId, host: ep.host, recipients: msg.recipients.length });
    },
  };
}
