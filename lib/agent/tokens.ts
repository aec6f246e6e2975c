/*
 * Agent tokens: a person mints a named token with access "read" or "write", shown once and stored only as its SHA-256
 * (`HashToken`), acting as "agent:<name>" for that person until revoked or expired; an OAuth grant is a token too, used
 * only through its short-lived, resource-bound access tokens. Limits, lifetimes and what ends a token: README, Tokens.
 */
import { requireTables, type DB, type Statement } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import { cryptoRandom, systemClock, type Clock, type RandomReader } from "../http/index.ts";
import { HashToken, NewToken, TOKEN_PATTERN, type Sessions } from "../session/index.ts";
import { isAccess, type Access } from "./access.ts";
import { Actor, AGENT_NAME_PATTERN, humanActor } from "./actor.ts";
import { AgentError } from "./errors.ts";

/** How long a token lives when the mint does not say: 90 days. */
export const AGENT_TOKEN_TTL: number = 90 * 24 * 60 * 60 * 1000;

/** The longest `MintInput.TTL` accepted: 366 days. */
export const MAX_AGENT_TOKEN_TTL: number = 366 * 24 * 60 * 60 * 1000;

/** How many live tokens one person holds at most. */
export const MAX_AGENT_TOKENS = 20;

/** A token as listed to its owner: never the token itself. */
export interface AgentTokenInfo {
  readonly ID: string;
  /** The agent's name; its actor is "agent:<name>". */
  readonly Name: string;
  readonly Access: Access;
  readonly CreatedAt: Date;
  /** When the token stops working (show it: "expires on …"). */
  readonly ExpiresAt: Date;
  /** Last successful use; undefined when never used. */
  readonly LastUsedAt: Date | undefined;
  /** The OAuth client of a grant (its client_id, declared name, host); absent for a pasted token. */
  readonly Client?: OAuthGrantClient;
}

/** The client an OAuth grant goes to, as `/account/agents` names it. */
export interface OAuthGrantClient {
  readonly ID: string;
  readonly Name: string;
  readonly Host: string;
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
  /** Lifetime in ms, at most 366 days. @default 90 days (AGENT_TOKEN_TTL) */
  TTL?: number;
  /** Set by latch/oauth: the token is the grant of this client, used only through its access tokens. */
  Client?: OAuthGrantClient;
}

/** Options of `AgentTokens`. */
export interface AgentTokensOptions {
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
  /** The session store: its `RevokeAll(subject)` then revokes the subject's tokens too. */
  Sessions?: Sessions;
  /** The sign-in's admission gate (`signin` Config `Authorize`), asked on every verification. Unset: everyone is admitted. */
  Authorize?: (address: string) => boolean | Promise<boolean>;
  /** The event store (on the same handle): a mint or revoke then commits with its audit event (README, Tokens). */
  Events?: EventStore;
}

interface Row {
  id: string;
  subject: string;
  name: string;
  access: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  client_id: string | null;
  client_name: string | null;
  client_host: string | null;
}

function toInfo(row: Row): AgentTokenInfo {
  return Object.freeze({
    ID: row.id,
    Name: row.name,
    Access: isAccess(row.access) ? row.access : "read",
    CreatedAt: new Date(row.created_at),
    ExpiresAt: new Date(row.expires_at),
    LastUsedAt: row.last_used_at === null ? undefined : new Date(row.last_used_at),
    ...(row.client_id !== null && {
      Client: Object.freeze({ ID: row.client_id, Name: row.client_name ?? "", Host: row.client_host ?? "" }),
    }),
  });
}

/**
 * The token store. Apply the agent `Schema` first.
 *
 * @example
 * const tokens = new AgentTokens(db, { Sessions: auth.Sessions, Authorize });
 * const { Token } = tokens.mint({ Subject: "ada@example.com", Name: "claude", Access: ToolRead });
 * (await tokens.verify(Token))?.Subject; // "ada@example.com"
 */
export class AgentTokens {
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #authorize: ((address: string) => boolean | Promise<boolean>) | undefined;
  readonly #mint: (row: Row & { hash: string }) => void;
  readonly #list: Statement<[string, number], Row>;
  readonly #holds: Statement<[string, string, number], { one: number }>;
  readonly #revoke: (subject: string, id: string) => boolean;
  readonly #revokeAll: Statement<[number, string]>;
  readonly #find: Statement<[string, number], Row>;
  readonly #findAccess: Statement<[string, number, number], Row & { resource: string }>;
  readonly #issue: (row: { hash: string; token_id: string; resource: string; expires_at: number; now: number }) => boolean;
  readonly #touch: Statement<[number, string]>;
  readonly #grant: Statement<[string], Row>;
  readonly #dropAccess: Statement<[string, string]>;
  readonly #live: Statement<[string, number], { id: string }>;
  readonly #sweepAccess: Statement<[{ now: number; batch: number }]>;

  constructor(db: DB, options: AgentTokensOptions = {}) {
    requireTables(db, "agent tokens", "agent.Schema", ["agent_tokens"]);
    this.#clock = options.Clock ?? systemClock;
    this.#random = options.Random ?? cryptoRandom;
    this.#authorize = options.Authorize;
    const events = options.Events;
    const human = humanActor();
    // SPEC §6.2: a token change and its audit event commit together (lib/events README "A write and its event").
    const record = (subject: string, type: string, data: Record<string, string>): void => {
      events?.appendAudit({ Subject: subject, Actor: human, Type: type, Data: data });
    };
    const insert = db.prepare(
      `INSERT INTO agent_tokens (id, token_hash, subject, name, access, created_at, expires_at, client_id, client_name, client_host)
       VALUES (@id, @hash, @subject, @name, @access, @created_at, @expires_at, @client_id, @client_name, @client_host)`,
    );
    const counted = db.prepare<[string, number], { n: number }>(
      "SELECT count(*) AS n FROM agent_tokens WHERE subject = ? AND revoked_at IS NULL AND expires_at > ?",
    );
    const retire = db.prepare<[string, string, number]>(
      "UPDATE agent_tokens SET revoked_at = expires_at WHERE subject = ? AND name = ? AND revoked_at IS NULL AND expires_at <= ?",
    );
    // Counted and inserted in one transaction, so two mints at once cannot both take the last place.
    this.#mint = db.transaction((row: Row & { hash: string }) => {
      if ((counted.get(row.subject, row.created_at)?.n ?? 0) >= MAX_AGENT_TOKENS) {
        throw new AgentError(
          "ERR_AGENT_TOO_MANY_TOKENS",
          `mint agent token: a person holds at most ${MAX_AGENT_TOKENS} live tokens; revoke one first`,
          { status: 409 },
        );
      }
      // An expired token still holds its name in the unique index: mark it revoked (at its expiry) so the name is free.
      retire.run(row.subject, row.name, row.created_at);
      insert.run(row);
      record(row.subject, "agent.token_minted", { token: row.id, name: row.name, access: row.access });
    });
    const columns = "id, subject, name, access, created_at, expires_at, last_used_at, client_id, client_name, client_host";
    const live = `SELECT ${columns} FROM agent_tokens WHERE revoked_at IS NULL`;
    this.#list = db.prepare(`${live} AND subject = ? AND expires_at > ? ORDER BY created_at DESC, id`);
    // One token by its key: what a write asks in each of its transactions (request.ts), not the person's whole list.
    this.#holds = db.prepare("SELECT 1 AS one FROM agent_tokens WHERE id = ? AND subject = ? AND revoked_at IS NULL AND expires_at > ?");
    const revoke = db.prepare<[number, string, string]>(
      "UPDATE agent_tokens SET revoked_at = ? WHERE id = ? AND subject = ? AND revoked_at IS NULL",
    );
    this.#revoke = db.transaction((subject: string, id: string): boolean => {
      if (revoke.run(this.#clock.now().getTime(), id, subject).changes !== 1) return false;
      record(subject, "agent.token_revoked", { token: id });
      return true;
    });
    this.#revokeAll = db.prepare("UPDATE agent_tokens SET revoked_at = ? WHERE subject = ? AND revoked_at IS NULL");
    // A grant is never presented itself: only its access tokens are (below).
    this.#find = db.prepare(`${live} AND token_hash = ? AND expires_at > ? AND client_id IS NULL`);
    this.#findAccess = db.prepare(
      `SELECT t.${columns.split(", ").join(", t.")}, a.resource FROM agent_access_tokens a JOIN agent_tokens t ON t.id = a.token_id
       WHERE a.token_hash = ? AND a.expires_at > ? AND t.revoked_at IS NULL AND t.expires_at > ?`,
    );
    const grantLive = db.prepare<[string, number], { n: number }>(
      "SELECT count(*) AS n FROM agent_tokens WHERE id = ? AND revoked_at IS NULL AND expires_at > ? AND client_id IS NOT NULL",
    );
    const issue = db.prepare(
      "INSERT INTO agent_access_tokens (token_hash, token_id, resource, expires_at) VALUES (@hash, @token_id, @resource, @expires_at)",
    );
    const lapsed = db.prepare<[string, number]>("DELETE FROM agent_access_tokens WHERE token_id = ? AND expires_at <= ?");
    this.#issue = db.transaction((row: { hash: string; token_id: string; resource: string; expires_at: number; now: number }) => {
      if ((grantLive.get(row.token_id, row.now)?.n ?? 0) !== 1) return false;
      lapsed.run(row.token_id, row.now);
      issue.run({ hash: row.hash, token_id: row.token_id, resource: row.resource, expires_at: row.expires_at });
      return true;
    });
    this.#touch = db.prepare("UPDATE agent_tokens SET last_used_at = ? WHERE id = ?");
    this.#grant = db.prepare(`SELECT ${columns} FROM agent_tokens WHERE id = ?`);
    this.#dropAccess = db.prepare(
      "DELETE FROM agent_access_tokens WHERE token_hash = ? AND token_id IN (SELECT id FROM agent_tokens WHERE client_id = ?)",
    );
    this.#live = db.prepare(
      "SELECT t.id FROM json_each(?) j JOIN agent_tokens t ON t.id = j.value WHERE t.revoked_at IS NULL AND t.expires_at > ?",
    );
    this.#sweepAccess = db.prepare(
      `DELETE FROM agent_access_tokens WHERE rowid IN (SELECT a.rowid FROM agent_access_tokens a JOIN agent_tokens t ON t.id = a.token_id
       WHERE a.expires_at <= @now OR t.revoked_at IS NOT NULL OR t.expires_at <= @now LIMIT @batch)`,
    );
    options.Sessions?.onRevokeAll((subject) => this.revokeAll(subject));
  }

  /**
   * Mints a token and returns it with its listing; show `Token` once, it is not stored. Throws `AgentError`
   * ERR_AGENT_INVALID_TOKEN (400) for a bad or reserved (`Actor.System`'s) name, access, subject or TTL, ERR_AGENT_TOKEN_NAME_TAKEN (409) for a live
   * token's name, ERR_AGENT_TOO_MANY_TOKENS (409) past `MAX_AGENT_TOKENS`; nothing is stored then.
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
    // SPEC §6.2: "agent:system" is the application's scheduled work; a token of that name would pass for it.
    if (input.Name === Actor.System.Name) invalid(`name "${Actor.System.Name}" is reserved for the application's scheduled work`);
    if (!isAccess(input.Access)) invalid('access must be "read" or "write"');
    const ttl = input.TTL ?? AGENT_TOKEN_TTL;
    if (!Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_AGENT_TOKEN_TTL) {
      invalid(`TTL must be a whole number of ms from 1 to ${MAX_AGENT_TOKEN_TTL} (366 days)`);
    }
    const token = NewToken(this.#random);
    const id = Buffer.from(this.#random.read(9)).toString("base64url");
    const now = this.#clock.now().getTime();
    const client = input.Client;
    if (client !== undefined && [client.ID, client.Name, client.Host].some((v) => typeof v !== "string" || v === "")) {
      invalid("a grant's client needs an id, a name and a host");
    }
    const row = {
      id,
      subject: input.Subject,
      name: input.Name,
      access: input.Access,
      created_at: now,
      expires_at: now + ttl,
      last_used_at: null,
      client_id: client?.ID ?? null,
      client_name: client?.Name ?? null,
      client_host: client?.Host ?? null,
    };
    try {
      this.#mint({ ...row, hash: HashToken(token) });
    } catch (err) {
      if (err instanceof Error && "code" in err && err.code === "SQLITE_CONSTRAINT_UNIQUE") {
        throw new AgentError("ERR_AGENT_TOKEN_NAME_TAKEN", "mint agent token: a live token already has this name", { status: 409 });
      }
      throw err;
    }
    return { Token: token, Info: toInfo(row) };
  }

  /** Reports whether token `id` is one of `subject`'s live tokens (`list(subject)` holds it), reading that token alone. */
  holds(subject: string, id: string): boolean {
    return this.#holds.get(id, subject, this.#clock.now().getTime()) !== undefined;
  }

  /** Returns `subject`'s live tokens, newest first. */
  list(subject: string): AgentTokenInfo[] {
    return this.#list.all(subject, this.#clock.now().getTime()).map(toInfo);
  }

  /** Revokes `subject`'s token `id`; reports whether a live token was revoked (another person's id revokes nothing). */
  revoke(subject: string, id: string): boolean {
    return this.#revoke(subject, id);
  }

  /** Revokes every live token of `subject` (what `Sessions.RevokeAll` calls when wired); returns how many. */
  revokeAll(subject: string): number {
    return this.#revokeAll.run(this.#clock.now().getTime(), subject).changes;
  }

  /**
   * Issues an access token of the live OAuth grant `id`, bound to `resource`, living `ttl` ms; undefined when the grant is
   * revoked, expired or not a grant. The grant's lapsed access tokens are deleted on the way.
   */
  issueAccessToken(id: string, resource: string, ttl: number): { Token: string; ExpiresAt: Date } | undefined {
    const token = NewToken(this.#random);
    const now = this.#clock.now().getTime();
    const issued = this.#issue({ hash: HashToken(token), token_id: id, resource, expires_at: now + ttl, now });
    return issued ? { Token: token, ExpiresAt: new Date(now + ttl) } : undefined;
  }

  /** Returns token `id` (an OAuth grant's client too), live or not, or undefined when there is none. */
  grant(id: string): (TokenGrant & { readonly ClientID: string | undefined }) | undefined {
    const row = this.#grant.get(id);
    if (row === undefined || !isAccess(row.access)) return undefined;
    return Object.freeze({
      TokenID: row.id,
      Subject: row.subject,
      Name: row.name,
      Access: row.access,
      ClientID: row.client_id ?? undefined,
    });
  }

  /** Deletes the access token `token` if a grant of `clientID` issued it (RFC 7009 §2.1: it ends alone); reports whether one was. */
  revokeAccessToken(token: string, clientID: string): boolean {
    return this.#dropAccess.run(HashToken(token), clientID).changes === 1;
  }

  /** Returns those of `ids` that no longer live: revoked, expired or unknown (what latch/oauth's sweep deletes the rows of). */
  endedGrants(ids: readonly string[], now: Date): string[] {
    const live = new Set(this.#live.all(JSON.stringify(ids), now.getTime()).map((r) => r.id));
    return ids.filter((id) => !live.has(id));
  }

  /** Deletes at most `batch` access tokens expired or of an ended grant; returns how many. */
  sweepAccessTokens(now: Date, batch: number): number {
    return this.#sweepAccess.run({ now: now.getTime(), batch }).changes;
  }

  /**
   * Returns what a presented token grants and records its use; undefined, one answer, for a malformed, unknown, revoked
   * or expired token or one whose person `Authorize` refuses. An OAuth access token is accepted only at `resource`, the
   * one it was issued for. The lookup is by SHA-256, so no comparison runs on the secret.
   */
  async verify(token: string, resource?: string): Promise<TokenGrant | undefined> {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const now = this.#clock.now().getTime();
    const hash = HashToken(token);
    let row: Row | undefined = this.#find.get(hash, now);
    if (row === undefined) {
      const access = this.#findAccess.get(hash, now, now);
      // RFC 8707 §2 / MCP 2025-11-25 authorization §Token Audience Binding: a token issued for another resource is refused.
      row = access !== undefined && resource !== undefined && access.resource === resource ? access : undefined;
    }
    if (row === undefined || !isAccess(row.access)) return undefined;
    // SPEC §2.6: Authorize is the admission gate; a token acts for its person only while the gate admits them.
    if (this.#authorize !== undefined && !(await this.#authorize(row.subject))) return undefined;
    this.#touch.run(now, row.id);
    return Object.freeze({ TokenID: row.id, Subject: row.subject, Name: row.name, Access: row.access });
  }
}
