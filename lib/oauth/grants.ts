/*
 * Every SQL statement on `oauth_codes` and `oauth_refresh_tokens`. The grant itself is latch/agent's, asked through
 * `AgentTokens`, never read from agent's tables (a module's tables are its own: docs/handbook.md).
 */
import { Actor, type AgentTokens } from "../agent/index.ts";
import type { DB } from "../db/index.ts";
import type { AuthorizationRequest } from "./authorize-request.ts";

/** Grants one refresh-token sweep step asks `AgentTokens.endedGrants` about: 500 ids, one bounded query. */
const SWEEP_GRANT_WINDOW = 500;

/** A code as stored, with the access of its grant. */
export interface CodeRow {
  token_id: string;
  client_id: string;
  redirect_uri: string;
  challenge: string;
  resource: string;
  expires_at: number;
  access: string;
}

/** A refresh token as stored, with its grant's client and access. */
export interface RefreshRow {
  token_id: string;
  resource: string;
  client_id: string | undefined;
  access: string;
}

/** The code and refresh-token rows of grants. */
export interface GrantRows {
  /** Stores a new code (lapsed ones are deleted on the way). */
  insertCode(row: Omit<CodeRow, "access"> & { code_hash: string }, now: number): void;
  findCode(hash: string): CodeRow | undefined;
  /** Marks the code used; reports whether it was unused until now. */
  spendCode(hash: string, now: number): boolean;
  insertRefresh(hash: string, grantID: string, resource: string, now: number): void;
  findRefresh(hash: string): RefreshRow | undefined;
  /** Marks the refresh token used; reports whether it was unused until now. */
  spendRefresh(hash: string, now: number): boolean;
  /** Ends grant `id`: its access tokens stop at the next request, its refresh tokens at the next use (audited as a revocation). */
  end(id: string): void;
  /** One sweep step: deletes at most `limit` codes lapsed or of an ended grant, among a window of SWEEP_GRANT_WINDOW grants. */
  sweepCodes(now: Date, limit: number): number;
  /** One sweep step: deletes at most `limit` refresh tokens of ended grants, among a window of SWEEP_GRANT_WINDOW grants. */
  sweepRefreshTokens(now: Date, limit: number): number;
}

/** Returns the code and refresh-token rows of grants over `db`; `tokens` answers for the grants. */
export function grantRows(db: DB, tokens: AgentTokens): GrantRows {
  const insertCode = db.prepare(
    `INSERT INTO oauth_codes (code_hash, token_id, client_id, redirect_uri, challenge, resource, expires_at)
     VALUES (@code_hash, @token_id, @client_id, @redirect_uri, @challenge, @resource, @expires_at)`,
  );
  const lapsedCodes = db.prepare<[number]>("DELETE FROM oauth_codes WHERE expires_at <= ?");
  const findCode = db.prepare<[string], Omit<CodeRow, "access">>(
    "SELECT token_id, client_id, redirect_uri, challenge, resource, expires_at FROM oauth_codes WHERE code_hash = ?",
  );
  const spendCode = db.prepare<[number, string]>("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL");
  const insertRefresh = db.prepare<[string, string, string, number]>(
    "INSERT INTO oauth_refresh_tokens (token_hash, token_id, resource, created_at) VALUES (?, ?, ?, ?)",
  );
  const findRefresh = db.prepare<[string], { token_id: string; resource: string }>(
    "SELECT token_id, resource FROM oauth_refresh_tokens WHERE token_hash = ?",
  );
  const spendRefresh = db.prepare<[number, string]>("UPDATE oauth_refresh_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL");
  const dropRefresh = db.prepare<[string]>("DELETE FROM oauth_refresh_tokens WHERE token_id = ?");
  const dropCodes = db.prepare<[string]>("DELETE FROM oauth_codes WHERE token_id = ?");
  // The grants holding codes, and refresh tokens, a window at a time.
  const codeGrants = db.prepare<[string, number], { id: string }>(
    "SELECT DISTINCT token_id AS id FROM oauth_codes WHERE token_id > ? ORDER BY token_id LIMIT ?",
  );
  const refreshGrants = db.prepare<[string, number], { id: string }>(
    "SELECT DISTINCT token_id AS id FROM oauth_refresh_tokens WHERE token_id > ? ORDER BY token_id LIMIT ?",
  );
  // A sweep step over the ended grants (a JSON array for `step`) among a window of `holders`, from where the last step
  // stopped; the window is done once a step deletes less than it may, and the next step (or the next Sweep) looks on.
  const overEndedGrants = (holders: typeof codeGrants) => {
    let from = "";
    return (now: Date, limit: number, step: (ended: string) => number): number => {
      const ids = holders.all(from, SWEEP_GRANT_WINDOW).map((r) => r.id);
      const deleted = step(JSON.stringify(tokens.endedGrants(ids, now)));
      if (deleted < limit) from = ids.length < SWEEP_GRANT_WINDOW ? "" : (ids.at(-1) ?? "");
      return deleted;
    };
  };
  const codesStep = overEndedGrants(codeGrants);
  const refreshStep = overEndedGrants(refreshGrants);
  const ofEnded = "token_id IN (SELECT value FROM json_each(@ended))";
  const sweepCodes = db.prepare<[{ now: number; ended: string; limit: number }]>(
    `DELETE FROM oauth_codes WHERE rowid IN (SELECT rowid FROM oauth_codes WHERE expires_at <= @now OR ${ofEnded} LIMIT @limit)`,
  );
  const sweepRefresh = db.prepare<[{ ended: string; limit: number }]>(
    `DELETE FROM oauth_refresh_tokens WHERE rowid IN (SELECT rowid FROM oauth_refresh_tokens WHERE ${ofEnded} LIMIT @limit)`,
  );

  return {
    insertCode(row, now) {
      lapsedCodes.run(now);
      insertCode.run(row);
    },
    findCode(hash) {
      const row = findCode.get(hash);
      const grant = row === undefined ? undefined : tokens.grant(row.token_id);
      return row === undefined || grant === undefined ? undefined : { ...row, access: grant.Access };
    },
    spendCode: (hash, now) => spendCode.run(now, hash).changes === 1,
    insertRefresh(hash, grantID, resource, now) {
      insertRefresh.run(hash, grantID, resource, now);
    },
    findRefresh(hash) {
      const row = findRefresh.get(hash);
      const grant = row === undefined ? undefined : tokens.grant(row.token_id);
      return row === undefined || grant === undefined ? undefined : { ...row, client_id: grant.ClientID, access: grant.Access };
    },
    spendRefresh: (hash, now) => spendRefresh.run(now, hash).changes === 1,
    end(id) {
      const subject = tokens.grant(id)?.Subject;
      if (subject !== undefined) tokens.revoke(subject, id);
      // Nothing of an ended family stays: a token of it presented again is unknown, refused all the same.
      dropRefresh.run(id);
      dropCodes.run(id);
    },
    sweepCodes: (now, limit) => codesStep(now, limit, (ended) => sweepCodes.run({ now: now.getTime(), ended, limit }).changes),
    sweepRefreshTokens: (now, limit) => refreshStep(now, limit, (ended) => sweepRefresh.run({ ended, limit }).changes),
  };
}

/** Returns the agent name of a client: `client_name` lowercased to `AGENT_NAME_PATTERN`, "client" when nothing is left. */
export function agentNameOf(clientName: string): string {
  const name = clientName
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[._-]+/, "")
    .slice(0, 56)
    .replace(/[._-]+$/, "");
  return name === "" ? "client" : name;
}

/** Mints the grant: an agent token named after the client, unique among the person's live tokens and never `Actor.System`'s (-2, -3, …). */
export function mintGrant(
  tokens: AgentTokens,
  subject: string,
  request: AuthorizationRequest,
): string | { status: number; message: string } {
  // The name of the application's scheduled work (`Actor.System`) is never a grant's: a client called "System" gets "system-2".
  const taken = new Set([Actor.System.Name, ...tokens.list(subject).map((t) => t.Name)]);
  const base = agentNameOf(request.client.Name);
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  try {
    const { Info } = tokens.mint({
      Subject: subject,
      Name: name,
      Access: request.access,
      Client: { ID: request.client.ClientID, Name: request.client.Name, Host: request.client.Host },
    });
    return Info.ID;
  } catch (err) {
    if (err instanceof Error && "status" in err && typeof err.status === "number") return { status: err.status, message: err.message };
    throw err;
  }
}
