/* SMTP AUTH (RFC 4954), PLAIN (RFC 4616) or LOGIN: errors name mechanism and reply code, never the payload or server text. */
import type { SMTPConnection } from "./connection.ts";
import { MailError } from "./errors.ts";
import type { Reply } from "./reply.ts";

/** A SASL mechanism the client can use. */
export type AuthMethod = "PLAIN" | "LOGIN";

/** The mechanisms in the order tried when the caller states no preference. */
export const AUTH_METHODS: readonly AuthMethod[] = ["PLAIN", "LOGIN"];

/** A username and password. */
export interface Credentials {
  username: string;
  password: string;
}

function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}

/**
 * Picks the mechanism to use from the EHLO AUTH parameters: `preferred` if
 * given (and offered), else the first of `AUTH_METHODS` offered. Throws
 * `ERR_MAIL_AUTH` when there is none.
 */
export function chooseAuthMethod(offered: readonly string[], preferred: AuthMethod | undefined): AuthMethod {
  const upper = new Set(offered.map((m) => m.toUpperCase()));
  const candidates = preferred === undefined ? AUTH_METHODS : [preferred];
  const method = candidates.find((m) => upper.has(m));
  if (method === undefined) {
    throw new MailError("ERR_MAIL_AUTH", `mail: server offers no usable AUTH mechanism (wanted ${candidates.join(" or ")})`, {
      command: "AUTH",
      transient: false,
    });
  }
  return method;
}

/** Authenticates on `conn` with `method`; throws `ERR_MAIL_AUTH` unless the server answers 235. */
export async function authenticate(conn: SMTPConnection, method: AuthMethod, creds: Credentials, timeout: number): Promise<void> {
  let reply: Reply;
  if (method === "PLAIN") {
    // RFC 4616 §2: message = [authzid] NUL authcid NUL passwd; sent as the initial response (RFC 4954 §4).
    reply = await conn.command(`AUTH PLAIN ${b64(`\0${creds.username}\0${creds.password}`)}`, "AUTH", timeout);
  } else {
    reply = await conn.command("AUTH LOGIN", "AUTH", timeout);
    if (reply.code === 334) reply = await conn.command(b64(creds.username), "AUTH", timeout);
    if (reply.code === 334) reply = await conn.command(b64(creds.password), "AUTH", timeout);
  }
  // RFC 4954 §6: 235 is the only success.
  if (reply.code !== 235)
    throw new MailError("ERR_MAIL_AUTH", `mail: AUTH ${method} refused with ${reply.code}`, { replyCode: reply.code, command: "AUTH" });
}
