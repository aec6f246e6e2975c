/*
 * The roles of a team and what each may do (README "Roles"): the one place
 * that answers whether a role allows an action. A viewer reads the team's
 * records; a member also writes them; an admin also invites, revokes
 * invitations, removes and re-roles members below owner; an owner also
 * renames and deletes the team and makes owners.
 */

/** The roles, from the most to the least trusted. */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;

/** A member's role in a team. */
export type Role = (typeof ROLES)[number];

/** What a member may be allowed to do: read or write the team's records, invite (and revoke, remove, re-role), own. */
export type TeamAction = "read" | "write" | "invite" | "own";

const RANK: Readonly<Record<Role, number>> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const LEAST: Readonly<Record<TeamAction, Role>> = { read: "viewer", write: "member", invite: "admin", own: "owner" };

/** Reports whether `role` (undefined: not a member) allows `action`. */
export function may(role: Role | undefined, action: TeamAction): boolean {
  return role !== undefined && RANK[role] >= RANK[LEAST[action]];
}

/** Whether `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * Whether a member of role `actor` may give `to` (undefined: remove) to a
 * member of role `target`: owners anything; admins only below owner, on
 * both sides.
 */
export function mayChange(actor: Role, target: Role, to: Role | undefined): boolean {
  if (actor === "owner") return true;
  return may(actor, "invite") && target !== "owner" && to !== "owner";
}
