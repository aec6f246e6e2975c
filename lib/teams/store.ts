/*
 * The teams' rows and their events: the one place that reads a membership
 * (`roleOf`) and the one writer of `teams` and `team_members`. Every change
 * runs in one IMMEDIATE transaction with the event it appends to the
 * team's own stream `team:<id>` (README "Events"): the event names the
 * person who acted (`Subject`, actor "human") and, in `Data.member` (and a
 * join's `Data.inviter`), the person affected by their key in `team_people`,
 * never their address: a deletion empties the key's row, and what the team's
 * stream says of the person is then a pseudonym (the erasure pseudonymises
 * `Subject`). Nothing here updates or deletes an event; deleting a team
 * appends `team.deleted`, and its rows go.
 */
import { randomBytes } from "node:crypto";
import type { DB } from "../db/index.ts";
import type { ActorLike, EventStore } from "../events/index.ts";
import type { Role } from "./roles.ts";

/** The fields of a team event's data that name a person: written as the person's key (`team_people`). */
const PERSON_FIELDS = ["member", "inviter"] as const;

/** The actor of every change made through a page: a person. */
export const HUMAN: ActorLike = { String: () => "human" };

/** The event stream of team `id`. */
export function teamStream(id: string): string {
  return `team:${id}`;
}

/** A team id: 12 base64url characters (9 random bytes). */
export const TEAM_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{12}$/;

/** One of a person's teams, with their role in it. */
export interface TeamSummary {
  readonly ID: string;
  readonly Name: string;
  readonly Role: Role;
}

/** A member of a team. */
export interface Member {
  readonly Subject: string;
  readonly Role: Role;
  readonly JoinedAt: Date;
}

/** Told that `subject` is no longer a member of `team` (removed, left, or the team deleted), after it committed. */
export type MembershipEnded = (team: string, subject: string) => void;

/** The SQL of the teams' rows, and their events. */
export class TeamStore {
  readonly #db: DB;
  readonly #events: EventStore;
  readonly #sql;
  readonly #listeners = new Set<MembershipEnded>();
  // The memberships ended by the transaction running, told once it commits (nothing when it rolls back).
  #ended: [string, string][] = [];

  constructor(db: DB, events: EventStore) {
    this.#db = db;
    this.#events = events;
    this.#sql = {
      role: db.prepare<[string, string], { role: Role }>("SELECT role FROM team_members WHERE team = ? AND subject = ?"),
      name: db.prepare<[string], { name: string }>("SELECT name FROM teams WHERE id = ?"),
      teamsOf: db.prepare<[string], { id: string; name: string; role: Role }>(
        "SELECT t.id, t.name, m.role FROM team_members m JOIN teams t ON t.id = m.team WHERE m.subject = ? ORDER BY t.name, t.id",
      ),
      members: db.prepare<[string], { subject: string; role: Role; joined_at: number }>(
        "SELECT subject, role, joined_at FROM team_members WHERE team = ? ORDER BY joined_at, subject",
      ),
      owners: db.prepare<[string], { n: number }>("SELECT count(*) AS n FROM team_members WHERE team = ? AND role = 'owner'"),
      soleOwned: db.prepare<[string], { name: string }>(
        `SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team WHERE m.subject = ? AND m.role = 'owner'
         AND NOT EXISTS (SELECT 1 FROM team_members o WHERE o.team = m.team AND o.role = 'owner' AND o.subject <> m.subject) LIMIT 1`,
      ),
      insertTeam: db.prepare("INSERT INTO teams (id, name, created_at) VALUES (?, ?, ?)"),
      renameTeam: db.prepare("UPDATE teams SET name = ? WHERE id = ?"),
      deleteTeam: db.prepare("DELETE FROM teams WHERE id = ?"),
      deleteMembers: db.prepare("DELETE FROM team_members WHERE team = ?"),
      putMember: db.prepare("INSERT OR IGNORE INTO team_members (team, subject, role, joined_at) VALUES (?, ?, ?, ?)"),
      setRole: db.prepare("UPDATE team_members SET role = ? WHERE team = ? AND subject = ?"),
      removeMember: db.prepare("DELETE FROM team_members WHERE team = ? AND subject = ?"),
      putPerson: db.prepare("INSERT OR IGNORE INTO team_people (subject, key) VALUES (?, ?)"),
      personKey: db.prepare<[string], { key: string }>("SELECT key FROM team_people WHERE subject = ?"),
    };
  }

  /** `subject`'s role in `team`, or undefined: an unknown team and a non-member read the same. */
  roleOf(team: string, subject: string): Role | undefined {
    return this.#sql.role.get(team, subject)?.role;
  }

  name(team: string): string | undefined {
    return this.#sql.name.get(team)?.name;
  }

  teamsOf(subject: string): TeamSummary[] {
    return this.#sql.teamsOf.all(subject).map((r) => ({ ID: r.id, Name: r.name, Role: r.role }));
  }

  members(team: string): Member[] {
    return this.#sql.members.all(team).map((r) => ({ Subject: r.subject, Role: r.role, JoinedAt: new Date(r.joined_at) }));
  }

  owners(team: string): number {
    return this.#sql.owners.get(team)?.n ?? 0;
  }

  /** The name of a team whose only owner is `subject`, if any. */
  soleOwnerOf(subject: string): string | undefined {
    return this.#sql.soleOwned.get(subject)?.name;
  }

  /** Appends `type` to the team's stream at its end, inside the caller's transaction. */
  record(team: string, type: string, by: string, data: Record<string, unknown>): void {
    for (const field of PERSON_FIELDS) {
      const person = data[field];
      if (typeof person === "string") data = { ...data, [field]: this.#keyOf(person) };
    }
    const stream = teamStream(team);
    this.#events.append({ Stream: stream, Expected: this.#events.version(stream), Type: type, Data: data, Actor: HUMAN, Subject: by });
  }

  // The person's key in team events (made on first use), inside the caller's transaction.
  #keyOf(subject: string): string {
    this.#sql.putPerson.run(subject, randomBytes(12).toString("base64url"));
    return this.#sql.personKey.get(subject)?.key ?? "";
  }

  /** Runs `fn` in one IMMEDIATE transaction with the events it appends; then tells `onEnded`'s listeners what it ended. */
  atomically<T>(fn: () => T): T {
    if (this.#db.inTransaction) return this.#events.transaction(fn);
    this.#ended = [];
    const result = this.#events.transaction(fn);
    const ended = this.#ended;
    this.#ended = [];
    for (const [team, subject] of ended) for (const listener of this.#listeners) listener(team, subject);
    return result;
  }

  /** Adds `listener`, told of each membership that ends, after its transaction committed. */
  onEnded(listener: MembershipEnded): void {
    this.#listeners.add(listener);
  }

  create(name: string, owner: string, now: number): string {
    const id = randomBytes(9).toString("base64url");
    this.atomically(() => {
      this.#sql.insertTeam.run(id, name, now);
      this.#sql.putMember.run(id, owner, "owner", now);
      this.record(id, "team.created", owner, { name, member: owner, role: "owner" });
    });
    return id;
  }

  rename(team: string, name: string, by: string): void {
    this.atomically(() => {
      this.#sql.renameTeam.run(name, team);
      this.record(team, "team.renamed", by, { name });
    });
  }

  /** Deletes the team and its memberships (its invitations are revoked by the caller, in the same transaction). */
  delete(team: string, by: string, also: () => void): void {
    this.atomically(() => {
      const members = this.members(team);
      this.record(team, "team.deleted", by, { name: this.name(team) ?? "", members: members.length });
      this.#ended.push(...members.map((m): [string, string] => [team, m.Subject]));
      this.#sql.deleteMembers.run(team);
      this.#sql.deleteTeam.run(team);
      also();
    });
  }

  /** Adds `subject` with `role` (inside the caller's transaction); false when they were a member already. */
  join(team: string, subject: string, role: Role, now: number): boolean {
    return this.#sql.putMember.run(team, subject, role, now).changes === 1;
  }

  setRole(team: string, subject: string, role: Role, by: string): void {
    this.atomically(() => {
      this.#sql.setRole.run(role, team, subject);
      this.record(team, "team.role_changed", by, { member: subject, role });
    });
  }

  /** Removes `subject`: `type` team.member_removed (by another) or team.left. */
  remove(team: string, subject: string, by: string, type: "team.member_removed" | "team.left"): void {
    this.atomically(() => {
      this.#sql.removeMember.run(team, subject);
      this.record(team, type, by, { member: subject });
      this.#ended.push([team, subject]);
    });
  }
}
