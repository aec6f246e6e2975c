/*
 * Agent tokens: a signed-in person mints a named token for an agent, with
 * access "read" or "write" (write includes read). The token is shown once:
 * only its SHA-256 (`HashToken`) is stored, so a read of the database opens
 * nothing. It acts for the person who minted it (the subject), as the actor
 * "agent:<name>", so its name follows `AGENT_NAME_PATTERN` and is unique
 * among that person's live tokens (two live "bot"s would share one audit
 * identity). Revoking keeps the row, marked, so the audit trail still names
 * it; a revoked token verifies as unknown.
 */
import type { DB, Statement } from "../db/index.ts";
import { cryptoRandom, systemClock, type Clock, type RandomReader } from "../http/index.ts";
import { HashToken, NewToken, TOKEN_PATTERN } from "../session/index.ts";
import { isAccess, type Access } from "./access.ts";
import { AGENT_NAME_PATTERN } from "./actor.ts";
import { AgentError } from "./errors.ts";

/** A token as listed to its owner: never the token itself. */
export interface AgentTokenInfo {
  readonly ID: string;
  /** The agent's name; its actor is "agent:<name>". */
  readonly Name: string;
  readonly Access: Access;
  readonly CreatedAt: Date;
  /** Last successful use; undefined when never used. */
  readonly LastUsedAt: Date | undefined;
}

/** What a verified token grants a request. */
export interface TokenGrant {
  readonly TokenID: string;
  /** The person who minted it; the subject every call is scoped to. */
  readonly Subject: string;
  readonly Name: string;
  readonly Access: Access;
}

/** The fields of `mint`. */
export interface MintInput {
  Subject: string;
  Name: string;
  /** "read" or "write" (an `Access`); checked, since it usually comes from a form. */
  Access: string;
}

/** Options of `AgentTokens`. */
export interface AgentTokensOptions {
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
}

interface Row {
  id: string;
  subject: string;
  name: string;
  access: string;
  created_at: number;
  last_used_at: number | null;
}

function toInfo(row: Row): AgentTokenInfo {
  return Object.freeze({
    ID: row.id,
    Name: row.name,
    Access: isAccess(row.access) ? row.access : "read",
    CreatedAt: new Date(row.created_at),
    LastUsedAt: row.last_used_at === null ? undefined : new Date(row.last_used_at),
  });
}

/**
 * The token store. Apply the agent `Schema` first.
 *
 * @example
 * const tokens = new AgentTokens(db);
 * const { Token } = tokens.mint({ Subject: "ada@example.com", Name: "claude", Access: ToolRead });
 * tokens.verify(Token)?.Subject; // "ada@example.com"
 */
export class AgentTokens {
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #insert: Statement;
  readonly #list: Statement<[string], Row>;
  readonly #revoke: Statement<[number, string, string]>;
  readonly #find: Statement<[string], Row>;
  readonly #touch: Statement<[number, string]>;

  constructor(db: DB, options: AgentTokensOptions = {}) {
    this.#clock = options.Clock ?? systemClock;
    this.#random = options.Random ?? cryptoRandom;
    this.#insert = db.prepare(
      `INSERT INTO agent_tokens (id, token_hash, subject, name, access, created_at) VALUES (@id, @hash, @subject, @name, @access, @now)`,
    );
    const live = "SELECT id, subject, name, access, created_at, last_used_at FROM agent_tokens WHERE revoked_at IS NULL";
    this.#list = db.prepare(`${live} AND subject = ? ORDER BY created_at DESC, id`);
    this.#revoke = db.prepare("UPDATE agent_tokens SET revoked_at = ? WHERE id = ? AND subject = ? AND revoked_at IS NULL");
    this.#find = db.prepare(`${live} AND token_hash = ?`);
    this.#touch = db.prepare("UPDATE agent_tokens SET last_used_at = ? WHERE id = ?");
  }

  /**
   * Mints a token and returns it with its listing; show `Token` once, it is
   * not stored. Throws `AgentError` ERR_AGENT_INVALID_TOKEN (400) for a bad
   * name, access or subject and ERR_AGENT_TOKEN_NAME_TAKEN (409) when the
   * subject has a live token of that name; nothing is stored then.
   */
  mint(input: MintInput): { Token: string; Info: AgentTokenInfo } {
    const invalid = (reason: string): never => {
      throw new AgentError("ERR_AGENT_INVALID_TOKEN", `mint agent token: ${reason}`, { status: 400 });
    };
    if (typeof input.Subject !== "string" || input.Subject === "") invalid("no subject");
    // SPEC §2.3: the name becomes the actor "agent:<name>" on every audit event; it must keep that form unambiguous.
    if (typeof input.Name !== "string" || !AGENT_NAME_PATTERN.test(input.Name)) {
      invalid("name must be 1-64 of a-z 0-9 . _ -, starting with a letter or digit");
    }
    if (!isAccess(input.Access)) invalid('access must be "read" or "write"');
    const token = NewToken(this.#random);
    const id = Buffer.from(this.#random.read(9)).toString("base64url");
    const now = this.#clock.now().getTime();
    try {
      this.#insert.run({ id, hash: HashToken(token), subject: input.Subject, name: input.Name, access: input.Access, now });
    } catch (err) {
      if (err instanceof Error && "code" in err && err.code === "SQLITE_CONSTRAINT_UNIQUE") {
        throw new AgentError("ERR_AGENT_TOKEN_NAME_TAKEN", "mint agent token: a live token already has this name", { status: 409 });
      }
      throw err;
    }
    const info = toInfo({ id, subject: input.Subject, name: input.Name, access: input.Access, created_at: now, last_used_at: null });
    return { Token: token, Info: info };
  }

  /** Returns `subject`'s live tokens, newest first. */
  list(subject: string): AgentTokenInfo[] {
    return this.#list.all(subject).map(toInfo);
  }

  /** Revokes `subject`'s token `id`; reports whether a live token was revoked (another person's id revokes nothing). */
  revoke(subject: string, id: string): boolean {
    return this.#revoke.run(this.#clock.now().getTime(), id, subject).changes === 1;
  }

  /**
   * Returns what a presented token grants, or undefined for a malformed,
   * unknown or revoked one (one indistinguishable answer), and records its
   * use. The lookup is by SHA-256, so no comparison runs on the secret.
   */
  verify(token: string): TokenGrant | undefined {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const row = this.#find.get(HashToken(token));
    if (row === undefined || !isAccess(row.access)) return undefined;
    this.#touch.run(this.#clock.now().getTime(), row.id);
    return Object.freeze({ TokenID: row.id, Subject: row.subject, Name: row.name, Access: row.access });
  }
}
