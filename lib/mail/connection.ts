/*
 * One SMTP connection (plain, implicit TLS, or upgraded by STARTTLS) with a reply reader and a deadline
 * per wait. The first failure is kept as a `MailError`, the socket destroyed, and every later read
 * rejects with it, so the session code is a straight sequence of awaits.
 */
import { connect as connectTCP, isIP } from "node:net";
import type { Socket } from "node:net";
import { connect as connectTLS, TLSSocket } from "node:tls";
import type { ConnectionOptions } from "node:tls";
import { dotStuff } from "./encode.ts";
import { MailError } from "./errors.ts";
import { isFinalReplyLine, parseReply } from "./reply.ts";
import type { Reply } from "./reply.ts";

/** Longest reply line accepted, a safety limit (RFC 5321 §4.5.3.1.5 allows 512). */
export const MAX_REPLY_LINE = 4096;

/** How to open a connection. */
export interface ConnectOptions {
  host: string;
  port: number;
  /** Start TLS before the greeting (smtps). */
  implicitTLS: boolean;
  /** Merged into the TLS options. */
  tls: ConnectionOptions;
  /** The only certificate accepted, by its SHA-256 fingerprint (`AB:CD:…`). */
  pin: string | undefined;
  /** Deadline for TCP connect and, with implicit TLS, the handshake. */
  timeout: number;
  signal: AbortSignal | undefined;
}

function aborted(signal: AbortSignal): MailError {
  return new MailError("ERR_MAIL_ABORTED", "mail: send aborted", { cause: signal.reason, transient: false });
}

function tlsOptions(host: string, extra: ConnectionOptions, pin: string | undefined): ConnectionOptions {
  // RFC 6066 §3: SNI carries a host name, never an IP literal. RFC 6125 §6.2.1: an IP address is checked
  // against the certificate's IP addresses; node:tls checks `host` (after STARTTLS it would check "localhost").
  const options = isIP(host) === 0 ? { servername: host, ...extra } : { host, ...extra };
  // RFC 7469 §2.6 (pinning): a pinned certificate is verified by its fingerprint (checkPin), not by a CA.
  return pin === undefined ? options : { ...options, rejectUnauthorized: false };
}

/** Once `socket` is secure, refuses a certificate other than the pinned one (nothing is sent before), else calls `ready`. */
function afterPinCheck(socket: Socket, pin: string | undefined, ready: () => void): void {
  if (socket instanceof TLSSocket && pin !== undefined && socket.getPeerCertificate().fingerprint256 !== pin) {
    socket.destroy(new Error("the server's certificate is not the one pinned by certSHA256"));
    return;
  }
  socket.removeAllListeners("error");
  ready();
}

// Node's codes for a certificate chain it cannot verify (or a name it does not hold).
const UNTRUSTED = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** A failed handshake; an untrusted certificate names the settings that trust it. */
function handshakeFailure(host: string, e: Error, command: "STARTTLS" | undefined): MailError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code !== undefined && UNTRUSTED.has(code)
      ? `: the server's certificate is not trusted (${code}); trust it with the option caFile (its CA's PEM file) or certSHA256 (its SHA-256 fingerprint), never by turning verification off`
      : e.message.startsWith("the server's certificate")
        ? `: ${e.message}`
        : "";
  return new MailError("ERR_MAIL_CONNECT", `mail: TLS handshake with ${host} failed${why}`, {
    cause: e,
    transient: false,
    ...(command !== undefined && { command }),
  });
}

/** Runs `start` with a deadline, rejecting with `onTimeout()` and calling `cancel` if it passes or `signal` aborts. */
function withDeadline<T>(
  ms: number,
  signal: AbortSignal | undefined,
  onTimeout: () => MailError,
  cancel: () => void,
  start: (resolve: (v: T) => void, reject: (e: MailError) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const fail = (e: MailError): void => {
      done();
      cancel();
      reject(e);
    };
    const onAbort = (): void => fail(aborted(signal ?? AbortSignal.abort()));
    const timer = setTimeout(() => fail(onTimeout()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    start((v) => (done(), resolve(v)), fail);
  });
}

/** An open SMTP connection. */
export class SMTPConnection {
  #socket: Socket;
  #partial = "";
  #lines: string[] = [];
  #failure: MailError | undefined;
  #wake: () => void = () => {};
  #secure: boolean;
  #signal: AbortSignal | undefined;
  #onAbort = (): void => this.#fail(aborted(this.#signal ?? AbortSignal.abort()));

  private constructor(socket: Socket, secure: boolean, signal: AbortSignal | undefined) {
    this.#socket = socket;
    this.#secure = secure;
    this.#signal = signal;
    this.#listen(socket);
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Opens a connection to `o.host:o.port`. Rejects with `ERR_MAIL_CONNECT`, `ERR_MAIL_TIMEOUT` or `ERR_MAIL_ABORTED`. */
  static open(o: ConnectOptions): Promise<SMTPConnection> {
    if (o.signal?.aborted === true) return Promise.reject(aborted(o.signal));
    let socket: Socket | undefined;
    let tcpUp = false;
    return withDeadline<SMTPConnection>(
      o.timeout,
      o.signal,
      () => new MailError("ERR_MAIL_TIMEOUT", `mail: connect to ${o.host}:${o.port} timed out after ${o.timeout} ms`),
      () => socket?.destroy(),
      (resolve, reject) => {
        const s = o.implicitTLS
          ? connectTLS({ ...tlsOptions(o.host, o.tls, o.pin), host: o.host, port: o.port })
          : connectTCP({ host: o.host, port: o.port });
        socket = s;
        s.once("connect", () => (tcpUp = true));
        s.once(o.implicitTLS ? "secureConnect" : "connect", () =>
          afterPinCheck(s, o.pin, () => resolve(new SMTPConnection(s, o.implicitTLS, o.signal))),
        );
        s.once("error", (e) => {
          // A failure after TCP is up is a TLS handshake failure: retrying will not help.
          if (tcpUp && o.implicitTLS) reject(handshakeFailure(o.host, e, undefined));
          else reject(new MailError("ERR_MAIL_CONNECT", `mail: connect to ${o.host}:${o.port} failed`, { cause: e, transient: !tcpUp }));
        });
      },
    );
  }

  /** Reports whether the connection is encrypted. */
  get secure(): boolean {
    return this.#secure;
  }

  #listen(socket: Socket): void {
    socket.on("data", (chunk: Buffer) => {
      const parts = (this.#partial + chunk.toString("utf8")).split("\n");
      this.#partial = parts.pop() ?? "";
      for (const p of parts) this.#lines.push(p.endsWith("\r") ? p.slice(0, -1) : p);
      if (this.#partial.length > MAX_REPLY_LINE || this.#lines.length > 1000) {
        this.#fail(new MailError("ERR_MAIL_PROTOCOL", "mail: malformed reply: line or reply too long"));
      }
      this.#wake();
    });
    socket.on("error", (e) => this.#fail(new MailError("ERR_MAIL_CONNECT", "mail: connection failed", { cause: e })));
    socket.on("close", () => this.#fail(new MailError("ERR_MAIL_CONNECT", "mail: connection closed by server")));
  }

  #fail(e: MailError): void {
    this.#failure ??= e;
    this.#socket.destroy();
    this.#wake();
  }

  /** Takes one complete reply off the buffered lines, if there is one. */
  #take(): Reply | undefined {
    const end = this.#lines.findIndex(isFinalReplyLine);
    if (end < 0) return undefined;
    return parseReply(this.#lines.splice(0, end + 1));
  }

  /** Waits up to `timeout` ms for the next reply; `command` names what it answers, for errors. */
  read(command: string, timeout: number): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(new MailError("ERR_MAIL_TIMEOUT", `mail: no reply to ${command} within ${timeout} ms`, { command }));
      }, timeout);
      this.#wake = () => {
        let reply: Reply | undefined;
        try {
          reply = this.#take();
        } catch (e) {
          this.#fail(e instanceof MailError ? e : new MailError("ERR_MAIL_PROTOCOL", "mail: malformed reply", { cause: e }));
        }
        if (reply === undefined && this.#failure === undefined) return;
        clearTimeout(timer);
        this.#wake = () => {};
        if (reply !== undefined) resolve(reply);
        else reject(this.#failure);
      };
      this.#wake();
    });
  }

  /** Writes one command line; CRLF is appended. */
  write(line: string): void {
    if (this.#failure === undefined) this.#socket.write(line + "\r\n");
  }

  /** Writes `data` (which ends in CRLF) dot-stuffed and followed by the end-of-data line (RFC 5321 §4.1.1.4). */
  writeData(data: string): void {
    if (this.#failure === undefined) this.#socket.write(dotStuff(data) + ".\r\n");
  }

  /** Sends `line` and reads its reply. */
  command(line: string, verb: string, timeout: number): Promise<Reply> {
    this.write(line);
    return this.read(verb, timeout);
  }

  /** Upgrades to TLS after a 220 reply to STARTTLS, within `timeout` ms. */
  async upgrade(host: string, options: ConnectionOptions, pin: string | undefined, timeout: number): Promise<void> {
    // RFC 3207 §5 (and CVE-2011-0411): bytes that arrived before the handshake are untrusted; refuse them.
    if (this.#lines.length > 0 || this.#partial !== "") {
      this.#fail(new MailError("ERR_MAIL_PROTOCOL", "mail: data received before TLS handshake"));
      throw this.#failure;
    }
    if (this.#failure !== undefined) throw this.#failure;
    const plain = this.#socket;
    plain.removeAllListeners("data").removeAllListeners("error").removeAllListeners("close");
    const secured = connectTLS({ ...tlsOptions(host, options, pin), socket: plain });
    this.#socket = secured;
    await withDeadline<void>(
      timeout,
      this.#signal,
      () => new MailError("ERR_MAIL_TIMEOUT", `mail: TLS handshake with ${host} timed out after ${timeout} ms`, { command: "STARTTLS" }),
      () => secured.destroy(),
      (resolve, reject) => {
        secured.once("secureConnect", () => afterPinCheck(secured, pin, resolve));
        secured.once("error", (e) => reject(handshakeFailure(host, e, "STARTTLS")));
      },
    );
    this.#secure = true;
    this.#listen(secured);
  }

  /** Closes the connection politely (FIN after pending writes). */
  end(): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#socket.end();
  }

  /** Destroys the connection at once. */
  destroy(): void {
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#socket.destroy();
  }
}
