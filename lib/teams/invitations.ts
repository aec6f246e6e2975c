/*
 * Invitations by email, with sign-in's machinery (README "Invitations"):
 * a token from lib/session's `NewToken`, stored only as its `HashToken`,
 * single use, bound to the invited address, expiring after
 * `INVITATION_TTL`, revocable. The rows are also the log of the
 * invitation limits (lib/internal's limiter, a `LimitLog` over this table:
 * an invitation is the take), so a revoked one still counts.
 */
import { randomBytes } from "node:crypto";
import type { DB } from "../db/index.ts";
import type { LimitLog } from "../internal/index.ts";
import { HashToken, NewToken, TOKEN_PATTERN } from "../session/index.ts";
import type { Invitation, InviteLimits } from "./config.ts";
import type { Role } from "./roles.ts";

/** How long an invitation can be accepted: 7 days. */
export const INVITATION_TTL: number = 7 * 24 * 60 * 60 * 1000;

const HOUR = 60 * 60 * 1000;

/** Invitations at most: 20 per team and 10 per inviter (all teams) within any hour. */
export const INVITE_LIMITS: InviteLimits = {
  PerTeam: { Max: 20, Window: HOUR },
  PerInviter: { Max: 10, Window: HOUR },
};

/** A pending invitation, as a team's admins see it. */
export interface PendingInvitation {
  readonly ID: string;
  readonly Address: string;
  readonly Role: Role;
  readonly Inviter: string;
  readonly ExpiresAt: Date;
}

interface Row {
  id: string;
  team: string;
  name: string;
  address: string;
  role: Role;
  inviter: string;
  expires_at: number;
}

/** The SQL of `team_invitations`. */
export class InvitationRows {
  readonly #sql;
  /** The limits' logs: invitations by team, by inviter. */
  readonly byTeam: LimitLog;
  readonly byInviter: LimitLog;

  constructor(db: DB) {
    const nth = (column: string) =>
      db.prepare<[string, number, number], { at: number }>(
        `SELECT created_at AS at FROM team_invitations WHERE ${column} = ? AND created_at > ? ORDER BY created_at DESC LIMIT 1 OFFSET ?`,
      );
    const team = nth("team");
    const inviter = nth("inviter");
    this.byTeam = { newest: (key, since, n) => team.get(key, since, n - 1)?.at };
    this.byInviter = { newest: (key, since, n) => inviter.get(key, since, n - 1)?.at };
    const live = "accepted_at IS NULL AND revoked_at IS NULL AND expires_at > @now";
    this.#sql = {
      insert: db.prepare(
        `INSERT INTO team_invitations (id, token_hash, team, address, role, inviter, created_at, expires_at)
         VALUES (@id, @hash, @team, @address, @role, @inviter, @now, @expires)`,
      ),
      byHash: db.prepare<{ hash: string; now: number }, Row>(
        `SELECT i.id, i.team, t.name, i.address, i.role, i.inviter, i.expires_at FROM team_invitations i JOIN teams t ON t.id = i.team
         WHERE i.token_hash = @hash AND ${live}`,
      ),
      pending: db.prepare<{ team: string; now: number }, Omit<Row, "name">>(
        `SELECT id, team, address, role, inviter, expires_at FROM team_invitations WHERE team = @team AND ${live} ORDER BY created_at, id`,
      ),
      accept: db.prepare<{ id: string; now: number }>(`UPDATE team_invitations SET accepted_at = @now WHERE id = @id AND ${live}`),
      revoke: db.prepare<{ id: string; team: string; now: number }, { address: string }>(
        `UPDATE team_invitations SET revoked_at = @now WHERE id = @id AND team = @team AND ${live} RETURNING address`,
      ),
      revokeFor: db.prepare<{ team: string; address: string; now: number }>(
        `UPDATE team_invitations SET revoked_at = @now WHERE team = @team AND address = @address AND ${live}`,
      ),
      revokeTeam: db.prepare<{ team: string; now: number }>(`UPDATE team_invitations SET revoked_at = @now WHERE team = @team AND ${live}`),
      sweep: db.prepare("DELETE FROM team_invitations WHERE rowid IN (SELECT rowid FROM team_invitations WHERE expires_at <= ? LIMIT ?)"),
    };
  }

  /** Stores a new invitation (inside the caller's transaction; an earlier pending one to the address is revoked); returns its id and token. */
  insert(team: string, address: string, role: Role, inviter: string, now: number, ttl: number): { id: string; token: string } {
    const token = NewToken();
    const id = randomBytes(9).toString("base64url");
    this.#sql.revokeFor.run({ team, address, now });
    this.#sql.insert.run({ id, hash: HashToken(token), team, address, role, inviter, now, expires: now + ttl });
    return { id, token };
  }

  /** The live invitation of `token` (undefined: forged, expired, used, revoked, or its team deleted). */
  find(token: string, now: number): (Invitation & { ID: string }) | undefined {
    if (!TOKEN_PATTERN.test(token)) return undefined;
    const row = this.#sql.byHash.get({ hash: HashToken(token), now });
    if (row === undefined) return undefined;
    return {
      ID: row.id,
      Team: { ID: row.team, Name: row.name },
      Inviter: row.inviter,
      Address: row.address,
      Role: row.role,
      ExpiresAt: new Date(row.expires_at),
    };
  }

  pending(team: string, now: number): PendingInvitation[] {
    return this.#sql.pending
      .all({ team, now })
      .map((r) => ({ ID: r.id, Address: r.address, Role: r.role, Inviter: r.inviter, ExpiresAt: new Date(r.expires_at) }));
  }

  /** Spends invitation `id`: false when it was spent, revoked or expired meanwhile. */
  accept(id: string, now: number): boolean {
    return this.#sql.accept.run({ id, now }).changes === 1;
  }

  /** Revokes pending invitation `id` of `team`; returns its address, or undefined when there is none. */
  revoke(id: string, team: string, now: number): string | undefined {
    return this.#sql.revoke.get({ id, team, now })?.address;
  }

  /** Revokes every pending invitation of `team` (it is deleted). */
  revokeTeam(team: string, now: number): void {
    this.#sql.revokeTeam.run({ team, now });
  }

  /** Deletes up to `limit` expired invitations; returns how many. */
  sweep(now: number, limit: number): number {
    return this.#sql.sweep.run(now, limit).changes;
  }
}
