/*
 * The owner scope (SPEC §2.5 ScopeKind; README "Owner in SQL", "Team resources"): whose records a statement, a live
 * stream or a search row reaches. Every rule that tells one owner's records from another's asks here, and a resource's
 * SQL is built with the helpers beside it (`where`, `limitSQL`, `preparer`). The "owner" the store and table take is the scope's
 * key: the person (UserScoped), the team (TeamScoped), or ignored (Unscoped).
 */
import { AgentError, ToolWrite, type Approvals, type StandingApprovals, type ToolDef } from "../agent/index.ts";
import type { DB, Statement } from "../db/index.ts";
import { remembered } from "../internal/index.ts";
import { may, type Teams } from "../teams/index.ts";
import { ScopeKind } from "./kinds.ts";
import type { ResourceSpec } from "./spec.ts";

type Scoped = Pick<ResourceSpec, "Scope">;

/** The path value a TeamScoped resource's Route holds: the team's id. */
export const TEAM_SEGMENT = "{team}";

/** Reports whether each record of `spec` belongs to one owner, kept in its `owner` column (UserScoped). */
export function isOwned(spec: Scoped): boolean {
  return spec.Scope === ScopeKind.UserScoped;
}

/** Reports whether each record of `spec` belongs to one team, kept in its `team` column, its creator in `author` (TeamScoped). */
export function isTeamScoped(spec: Scoped): boolean {
  return spec.Scope === ScopeKind.TeamScoped;
}

/** The column holding whose records they are: `owner` (UserScoped), `team` (TeamScoped), none (Unscoped). */
export function scopeColumn(spec: Scoped): "owner" | "team" | undefined {
  return isOwned(spec) ? "owner" : isTeamScoped(spec) ? "team" : undefined;
}

/** Whose records a record of `spec` written under `key` belongs to: `key` when scoped, undefined when everyone signed in shares it. */
export function ownerOf(spec: Scoped, key: string): string | undefined {
  return scopeColumn(spec) === undefined ? undefined : key;
}

/** The conditions keeping `key`'s records of `spec`, with their parameters: `owner = ?` or `team = ?`, none when unscoped. */
export function ownerClauses(spec: Scoped, key: string): { clauses: string[]; params: unknown[] } {
  const column = scopeColumn(spec);
  return column === undefined ? { clauses: [], params: [] } : { clauses: [`${column} = ?`], params: [key] };
}

/**
 * What `subject` may do in `team` for `action` on a TeamScoped resource: "ok", 404 (unknown team, malformed id, not a
 * member: alike, as an unknown id) or 403 (a member whose role does not allow it: a viewer's write). `teams.roleOf` is
 * the one membership check (lib/teams README "One place decides membership").
 */
export function teamAccess(teams: Teams, team: string, subject: string, action: "read" | "write"): "ok" | 403 | 404 {
  const role = teams.roleOf(team, subject);
  // OWASP ASVS 5.0 §8.2.2: data-specific access; a team's records answer its members only, and as their role allows.
  if (!may(role, "read")) return 404;
  return may(role, action) ? "ok" : 403;
}

/** Whose records a request reaches and what it may do there, asked by the routes and the tools alike. */
export interface RequestScope {
  /** The owner key of `subject`'s request naming `team` (a path value or a tool's argument): the team, else the person. */
  owner(subject: string, team: string): string;
  /** "ok", 404 or 403 as `teamAccess` answers for a team resource; "ok" for a person's or everyone's records. */
  access(subject: string, team: string, action: "read" | "write"): "ok" | 403 | 404;
}

/** The `RequestScope` of `spec`; `teams` answers membership for a TeamScoped one. */
export function requestScope(spec: Scoped, teams: Teams | undefined): RequestScope {
  const members = isTeamScoped(spec) ? teams : undefined;
  return {
    owner: (subject, team) => (members === undefined ? subject : team),
    access: (subject, team, action) => (members === undefined ? "ok" : teamAccess(members, team, subject, action)),
  };
}

/** A call refused with `status` (ERR_AGENT_INVALID_CALL): a tool call's, or a job's through `MountedResource.For`. */
export function refusedCall(status: number, message: string): AgentError {
  return new AgentError("ERR_AGENT_INVALID_CALL", message, { status });
}

/** SPEC §7: another owner's record, an unknown id and a team one is not in are the same 404. */
export function noSuchRecord(spec: Pick<ResourceSpec, "Name">): AgentError {
  return refusedCall(404, `${spec.Name}: no such record`);
}

/**
 * The owner key `subject` reaches naming `team` for `action`, asked again on every call (a removed member's: 404); throws
 * the refusal a form request gets, as a call's: 404 as an unknown record, 403 for a viewer's write (`viewerRefusal`).
 */
export function reachedOwner(
  spec: Pick<ResourceSpec, "Name">,
  scope: RequestScope,
  subject: string,
  team: string,
  action: "read" | "write",
): string {
  const allowed = scope.access(subject, team, action);
  // OWASP ASVS 5.0 §8.2.2: data-specific access; a team's records answer its members only, and as their role allows.
  if (allowed === 404) throw noSuchRecord(spec);
  if (allowed === 403) throw refusedCall(403, viewerRefusal(spec.Name));
  return scope.owner(subject, team);
}

/** Why a member's pending approval of a team's write was voided, on its page. */
export const MEMBERSHIP_ENDED = "voided: your membership of the team it writes to ended";

/**
 * Voids `subject`'s pending approvals of a write among `tools` naming `team`, and ends their standing approvals of
 * those tools in that team's context, once their membership ended (issue 38: a removal takes effect at once); returns
 * how many requests were voided. The tool's run asks `roleOf` again anyway: voiding is what the person sees, a request
 * that can no longer be approved, saying why, and a standing approval gone from beside the token.
 */
export function voidTeamApprovals(
  agents: { approvals?: Approvals | undefined; standing?: StandingApprovals | undefined },
  tools: readonly ToolDef[],
  team: string,
  subject: string,
): number {
  const writes = new Set(tools.filter((def) => def.Tool.Access === ToolWrite).map((def) => def.Name));
  agents.standing?.end(subject, (s) => writes.has(s.Tool) && s.Context === team, MEMBERSHIP_ENDED);
  return agents.approvals?.voidPending(subject, (a) => writes.has(a.Tool) && a.Args["team"] === team, MEMBERSHIP_ENDED) ?? 0;
}

/** The reason a viewer's write is refused (403), for the route's page and the tool's caller. */
export function viewerRefusal(resource: string): string {
  return `${resource}: your role in this team reads its records but does not change them (a viewer); ask an admin for the member role`;
}

/** `spec`'s Route with the team's id in place of `{team}` (other scopes' routes hold no path value). */
export function routeIn(spec: Pick<ResourceSpec, "Route">, team: string): string {
  return spec.Route.replace(TEAM_SEGMENT, team);
}

/** " WHERE a AND b", or nothing. */
export function where(clauses: readonly string[]): string {
  return clauses.length === 0 ? "" : ` WHERE ${clauses.join(" AND ")}`;
}

/**
 * A LIMIT written into the SQL, never bound: SQLite (3.53, the one the driver builds) marks a bound LIMIT as steering the plan and
 * prepares its statement again each time it is bound (`sqlite3ExprIsInteger`), so a list's query was planned anew on every
 * page, a third of its time (BENCHMARKS.md (o)). `rows` is a whole number the caller checked, written as digits.
 */
export function limitSQL(rows: number): string {
  if (!Number.isInteger(rows) || rows < 1 || rows > 2 ** 62) throw new RangeError(`LIMIT must be a whole number from 1, got ${rows}`);
  return `LIMIT ${rows}`;
}

/**
 * Statements a resource keeps prepared. Each shape of its lists (the filters given, the sort, the direction, the first
 * page or a later one) and each page size is one; an application asking many sizes would add one each, so past this
 * many the cache starts again (lib/internal `remembered`).
 */
const STATEMENTS_KEPT = 4096;

/** Returns `db.prepare` preparing each statement once, on first use (so a store may be built before its schema is applied). */
export function preparer(db: DB): (sql: string) => Statement {
  // The SQL is built from manifest names and page sizes only (values are bound).
  const statements = new Map<string, Statement>();
  return (sql) => remembered(statements, sql, () => db.prepare(sql), STATEMENTS_KEPT);
}
