/*
 * A real SMTP server on 127.0.0.1 for integration tests, built on the
 * `smtp-server` package (its built-in self-signed certificate serves
 * STARTTLS and implicit TLS; clients pass `rejectUnauthorized: false`).
 * Every accepted message is captured with its envelope and raw text; the
 * options make it misbehave on purpose (refuse AUTH, answer 4xx/5xx, stall).
 *
 * const srv = await startSMTPServer({ starttls: true });
 * t.after(() => srv.close());
 * const msg = await srv.waitForMessage((m) => m.to.includes("ada@example.com"));
 */
import { createServer } from "node:net";
import type { Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import type { SMTPServerSession } from "smtp-server";
import { parseMail } from "./mail-parse.ts";
import type { ParsedMail } from "./mail-parse.ts";

/** Options of `startSMTPServer`. */
export interface TestSMTPServerOptions {
  /** Implicit TLS from the first byte (smtps). @default false */
  secure?: boolean;
  /** Advertise STARTTLS. @default false */
  starttls?: boolean;
  /** Require AUTH with these credentials; without it AUTH is not offered. */
  auth?: { user: string; pass: string; methods?: string[] };
  /** Answer every AUTH attempt with 535. @default false */
  refuseAuth?: boolean;
  /** Refuse a stage with `code`. */
  fail?: { at: "MAIL" | "RCPT" | "DATA"; code: number };
  /** The certificate and key of STARTTLS and implicit TLS. @default smtp-server's built-in self-signed one */
  tls?: { key: string; cert: string };
  /** Never answer at this point: "greeting" (no 220) or "DATA" (no reply after the body). */
  stall?: "greeting" | "DATA";
}

/** One message the server accepted. */
export interface CapturedMessage {
  /** Envelope sender. */
  from: string;
  /** Envelope recipients. */
  to: string[];
  /** The message as received after DATA, dot-unstuffed, CRLF line endings. */
  raw: string;
  /** Whether the session was encrypted when the message arrived. */
  secure: boolean;
  /** The authenticated user, if any. */
  user: string | undefined;
  /** The SASL mechanism the client authenticated with, if any. */
  authMethod: string | undefined;
  /** The name the client gave in EHLO/HELO. */
  helo: string;
  /** The decoded view of `raw`. */
  parsed: ParsedMail;
}

/** A running test SMTP server. */
export interface TestSMTPServer {
  port: number;
  /** Messages received so far, in order. */
  messages: CapturedMessage[];
  /** Resolves with the first message (already received or future) that matches; the timeout is a safety net only. */
  waitForMessage(predicate?: (m: CapturedMessage) => boolean, timeoutMs?: number): Promise<CapturedMessage>;
  close(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** Starts a test SMTP server on 127.0.0.1 and an ephemeral port. */
export async function startSMTPServer(options: TestSMTPServerOptions = {}): Promise<TestSMTPServer> {
  const messages: CapturedMessage[] = [];
  const waiters = new Set<() => void>();
  const authMethods = new Map<string, string>();
  const failAt = (stage: string, done: (err?: Error | null) => void): void => {
    if (options.fail?.at === stage) done(smtpError(options.fail.code, `test server refuses ${stage}`));
    else done();
  };
  const server = new SMTPServer({
    logger: false,
    secure: options.secure === true,
    hideSTARTTLS: options.starttls !== true,
    ...(options.tls === undefined ? {} : { key: options.tls.key, cert: options.tls.cert }),
    allowInsecureAuth: true,
    authOptional: options.auth === undefined && options.refuseAuth !== true,
    ...(options.auth === undefined && options.refuseAuth !== true ? { disabledCommands: ["AUTH"] } : {}),
    ...(options.auth?.methods === undefined ? {} : { authMethods: options.auth.methods }),
    disableReverseLookup: true,
    onConnect(_session, done) {
      if (options.stall !== "greeting") done();
    },
    onAuth(auth, session, done) {
      const ok = options.refuseAuth !== true && auth.username === options.auth?.user && auth.password === options.auth?.pass;
      if (ok) authMethods.set(session.id, auth.method);
      if (ok) done(null, { user: auth.username });
      else done(smtpError(535, "Invalid username or password"));
    },
    onMailFrom: (_address, _session, done) => failAt("MAIL", done),
    onRcptTo: (_address, _session, done) => failAt("RCPT", done),
    onData(stream, session: SMTPServerSession, done) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (options.stall === "DATA") return;
        if (options.fail?.at === "DATA") return failAt("DATA", done);
        const raw = Buffer.concat(chunks).toString("utf8");
        const mailFrom = session.envelope.mailFrom;
        const user: unknown = session.user;
        messages.push({
          from: mailFrom === false ? "" : mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          secure: session.secure,
          user: typeof user === "string" ? user : undefined,
          authMethod: authMethods.get(session.id),
          helo: session.hostNameAppearsAs,
          parsed: parseMail(raw),
        });
        for (const wake of waiters) wake();
        done();
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  if (address === null || typeof address === "string") throw new Error("smtp test server: no port");
  return {
    port: address.port,
    messages,
    waitForMessage(predicate = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error("smtp test server: no matching message"))), timeoutMs);
        const check = (): void => {
          const found = messages.find(predicate);
          if (found === undefined) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      // End sessions through smtp-server itself: destroying the TCP socket under a TLS
      // wrap mid-handshake crashes Node (see SMTPServer.close in smtp-server).
      for (const c of server.connections) c.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A running silent server. */
export interface SilentServer {
  port: number;
  /** How many connections were accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A raw TCP server that accepts connections and never says a word, for
 * timeout and abort tests. `onConnection` runs for each accepted socket.
 */
export async function startSilentServer(onConnection: (s: Socket) => void = () => {}): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((s) => {
    accepted++;
    onConnection(s);
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("silent server: no port");
  return {
    port: address.port,
    connections: () => accepted,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
