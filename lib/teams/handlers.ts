/*
 * The handlers of a team's life and membership: create, rename, delete,
 * change a role, remove a member, leave. Each reads the form, checks the
 * asker's role through `may`/`mayChange` (roles.ts; `HandlerContext.post`
 * reads the form and checks `may`), and answers 303 to the team's page, or a
 * refusal naming the field (context.ts); a refusal writes nothing. A team always keeps one owner: the checks that keep it run in
 * the change's own transaction.
 */
import { readForm, seeOther, type HandlerFunc } from "../http/index.ts";
import type { Refusal } from "./config.ts";
import { BAD_ROLE, forbidden, notFound, type Asker, type HandlerContext } from "./context.ts";
import { isRole, mayChange, type Role } from "./roles.ts";

const LAST_OWNER: Refusal = {
  Status: 409,
  Field: "member",
  Code: "last_owner",
  Reason: "a team keeps at least one owner: make another member an owner first, or delete the team",
};

// Whether taking `role` away from one member leaves the team without an owner.
const lastOwner = (ctx: HandlerContext, team: string, role: Role, to: Role | undefined): boolean =>
  role === "owner" && to !== "owner" && ctx.store.owners(team) <= 1;

/** `POST TeamsPath`, field `name`: a new team, the asker its owner; 303 to its page. */
export function createHandler(ctx: HandlerContext): HandlerFunc {
  return async (req, res) => {
    const subject = ctx.subject(req);
    if (subject === undefined) return ctx.refuse(req, res, notFound());
    const name = ctx.name((await readForm(req)).get("name"));
    if (typeof name !== "string") return ctx.refuse(req, res, name);
    seeOther(res, ctx.teamPath(ctx.store.create(name, subject, ctx.now())));
  };
}

/** `POST <team>/rename`, field `name` (owners). */
export function renameHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("own", "rename it", (form, asker) => {
    const name = ctx.name(form.get("name"));
    if (typeof name !== "string") return name;
    ctx.store.rename(asker.team, name, asker.subject);
    return ctx.teamPath(asker.team, "renamed=1");
  });
}

/** `POST <team>/delete`, field `name`: the team's name typed to confirm (owners); its members and invitations go. */
export function deleteHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("own", "delete it", (form, asker) => {
    if ((form.get("name") ?? "").trim() !== ctx.store.name(asker.team)) {
      return { Status: 400, Field: "name", Code: "confirm", Reason: "type the team's name to delete it" };
    }
    ctx.store.delete(asker.team, asker.subject, () => ctx.invitations.revokeTeam(asker.team, ctx.now()));
    return `${ctx.config.TeamsPath}?deleted=1`;
  });
}

// The member a form names and their role, or the refusal: the same 404 for an unknown address as for an unknown team.
function target(ctx: HandlerContext, asker: Asker, value: string | null): { subject: string; role: Role } | Refusal {
  const subject = (value ?? "").trim().toLowerCase();
  const role = subject === "" ? undefined : ctx.store.roleOf(asker.team, subject);
  return role === undefined ? notFound("member") : { subject, role };
}

/** `POST <team>/members/role`, fields `member` (an address) and `role`: admins below owner, owners any. */
export function setRoleHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("read", "change roles", (form, asker) => {
    const to = form.get("role");
    if (!isRole(to)) return BAD_ROLE;
    return ctx.store.atomically(() => {
      const member = target(ctx, asker, form.get("member"));
      if (!("subject" in member)) return member;
      // OWASP ASVS 5.0 §8.2.1: function-level access: only roles that may manage a member change theirs.
      if (!mayChange(asker.role, member.role, to)) return forbidden(`make this member ${to}`);
      if (lastOwner(ctx, asker.team, member.role, to)) return LAST_OWNER;
      if (member.role !== to) ctx.store.setRole(asker.team, member.subject, to, asker.subject);
      return ctx.teamPath(asker.team, "role=1");
    });
  });
}

/** `POST <team>/members/remove`, field `member`: admins remove below owner, owners any; the last owner stays. */
export function removeHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("read", "remove members", (form, asker) =>
    ctx.store.atomically(() => {
      const member = target(ctx, asker, form.get("member"));
      if (!("subject" in member)) return member;
      const self = member.subject === asker.subject;
      // OWASP ASVS 5.0 §8.2.1: function-level access; leaving is every member's own right.
      if (!self && !mayChange(asker.role, member.role, undefined)) return forbidden("remove this member");
      if (lastOwner(ctx, asker.team, member.role, undefined)) return LAST_OWNER;
      ctx.store.remove(asker.team, member.subject, asker.subject, self ? "team.left" : "team.member_removed");
      return ctx.teamPath(asker.team, "removed=1");
    }),
  );
}

/** `POST <team>/leave`: the asker leaves; the last owner cannot. */
export function leaveHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("read", "leave", (_form, asker) =>
    ctx.store.atomically(() => {
      if (lastOwner(ctx, asker.team, asker.role, undefined)) return LAST_OWNER;
      ctx.store.remove(asker.team, asker.subject, asker.subject, "team.left");
      return `${ctx.config.TeamsPath}?left=1`;
    }),
  );
}
