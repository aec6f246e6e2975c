/* Options of the SMTP mailer, checked at construction so a bad configuration fails at startup, not on the first email. */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { hostname } from "node:os";
import type { ConnectionOptions } from "node:tls";
import { cryptoRandom, discardLogger, systemClock } from "../http/index.ts";
import { durationProblem } from "../internal/index.ts";
import type { Clock, Logger, RandomReader } from "../http/index.ts";
import { isHostname } from "./address.ts";
import type { AuthMethod } from "./auth.ts";
import { MailError } from "./errors.ts";

/** Default deadline to open the TCP connection (and the implicit TLS handshake), in ms. */
export const DEFAULT_CONNECT_TIMEOUT = 10_000;
/** Default deadline for each command's reply (and the greeting and STARTTLS handshake), in ms. */
export const DEFAULT_COMMAND_TIMEOUT = 30_000;
/** Default deadline from sending the message body to the server's final reply, in ms. */
export const DEFAULT_DATA_TIMEOUT = 60_000;

/** Options of `newSMTPMailer`. */
export interface SMTPOptions {
  /** The EHLO name: the application's host name, or an IP address (as a literal). @default os.hostname() if valid, else "localhost" */
  helo?: string;
  /** Merged into the node:tls connection options. @default {} */
  tls?: ConnectionOptions;
  /** A PEM file of the CA (or self-signed certificate) that verifies the server, read at construction. @default the system's CAs */
  caFile?: string;
  /** The only server certificate accepted, by SHA-256 fingerprint as `openssl x509 -noout -fingerprint -sha256` prints it. @default none */
  certSHA256?: string;
  /** Deadline to connect, in ms. @default DEFAULT_CONNECT_TIMEOUT (10 s) */
  connectTimeout?: number;
  /** Deadline for each reply, in ms. @default DEFAULT_COMMAND_TIMEOUT (30 s) */
  commandTimeout?: number;
  /** Deadline for the reply to the message body, in ms. @default DEFAULT_DATA_TIMEOUT (60 s) */
  dataTimeout?: number;
  /** The one AUTH mechanism to use. @default PLAIN, else LOGIN, whichever the server offers first */
  authMethod?: AuthMethod;
  /** Continue without TLS when a non-loopback `smtp://` server offers no STARTTLS (credentials are still never sent). @default false */
  allowPlaintext?: boolean;
  /** Receives a debug line per message sent. @default discardLogger */
  logger?: Logger;
  /** Source of the Date header. @default systemClock */
  clock?: Clock;
  /** Source of Message-ID and boundary bytes. @default cryptoRandom */
  random?: RandomReader;
  /** Right-hand side of Message-ID. @default the domain of each message's From */
  messageIdDomain?: string;
}

/** `SMTPOptions` with every default applied. */
export interface ResolvedSMTPOptions {
  helo: string;
  tls: ConnectionOptions;
  /** The pinned fingerprint as node:tls prints it (`AB:CD:…`), or undefined. */
  pin: string | undefined;
  connectTimeout: number;
  commandTimeout: number;
  dataTimeout: number;
  authMethod: AuthMethod | undefined;
  allowPlaintext: boolean;
  logger: Logger;
  clock: Clock;
  random: RandomReader;
  messageIdDomain: string | undefined;
}

function invalid(reason: string): MailError {
  return new MailError("ERR_MAIL_INVALID_OPTIONS", `mail: invalid SMTP options: ${reason}`);
}

/** Returns `os.hostname()` reduced to a valid EHLO hostname, or "localhost". */
export function defaultHelo(): string {
  const h = hostname()
    .toLowerCase()
    .replace(/[^a-z0-9.-]/g, "")
    .replace(/^[.-]+|[.-]+$/g, "");
  return isHostname(h) ? h : "localhost";
}

// RFC 5321 §4.1.1.1 and §4.1.3: EHLO takes a domain or an address literal.
const ADDRESS_LITERAL = /^\[(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|IPv6:[0-9A-Fa-f:.]+)\]$/;

/** An IP address as RFC 5321 §4.1.3's address literal; anything else as it is. */
function addressLiteral(name: string): string {
  const bare = name.replace(/^\[(.*)\]$/, "$1");
  if (isIP(bare) === 4) return `[${bare}]`;
  if (isIP(bare) === 6) return `[IPv6:${bare}]`;
  return name;
}

function timeout(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const why = durationProblem(value);
  if (why !== undefined) throw invalid(`${name} ${why}`);
  return value;
}

function readCA(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw invalid(`caFile ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
}

function pinOf(fingerprint: string): string {
  const hex = fingerprint.replaceAll(":", "").toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw invalid("certSHA256 must be 64 hex digits (colons allowed), as `openssl x509 -noout -fingerprint -sha256` prints");
  }
  return (hex.match(/../g) ?? []).join(":");
}

/** Applies defaults and checks `o`. Throws `ERR_MAIL_INVALID_OPTIONS`. */
export function resolveSMTPOptions(o: SMTPOptions): ResolvedSMTPOptions {
  const helo = addressLiteral(o.helo ?? defaultHelo());
  if (!isHostname(helo) && !ADDRESS_LITERAL.test(helo)) throw invalid("helo must be a hostname or address literal");
  if (o.authMethod !== undefined && o.authMethod !== "PLAIN" && o.authMethod !== "LOGIN") {
    throw invalid("authMethod must be PLAIN or LOGIN");
  }
  if (o.messageIdDomain !== undefined && !isHostname(o.messageIdDomain)) throw invalid("messageIdDomain must be a hostname");
  return {
    helo,
    tls: { ...o.tls, ...(o.caFile !== undefined && { ca: readCA(o.caFile) }) },
    pin: o.certSHA256 === undefined ? undefined : pinOf(o.certSHA256),
    connectTimeout: timeout(o.connectTimeout, DEFAULT_CONNECT_TIMEOUT, "connectTimeout"),
    commandTimeout: timeout(o.commandTimeout, DEFAULT_COMMAND_TIMEOUT, "commandTimeout"),
    dataTimeout: timeout(o.dataTimeout, DEFAULT_DATA_TIMEOUT, "dataTimeout"),
    authMethod: o.authMethod,
    allowPlaintext: o.allowPlaintext ?? false,
    logger: o.logger ?? discardLogger,
    clock: o.clock ?? systemClock,
    random: o.random ?? cryptoRandom,
    messageIdDomain: o.messageIdDomain,
  };
}
