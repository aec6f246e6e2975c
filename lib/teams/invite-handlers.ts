/*
 * The handlers of invitations: invite (admins), revoke (admins), the
 * accept page and the acceptance. An invitation is accepted only by a
 * session of the invited address: anyone else, and a forged, expired,
 * used or revoked link, get the same 404 and nothing is spent.
 */
import { awaitDurable } from "../db/index.ts";
import { NewRef, queryParams, readForm, seeOther, type HandlerFunc } from "../http/index.ts";
import { awayAndBack, limitWait, requestTarget } from "../internal/index.ts";
import { normalizeAddress } from "../signin/index.ts";
import { BAD_ROLE, forbidden, notFound, type HandlerContext } from "./context.ts";
import { inviteMessage } from "./mail.ts";
import { isRole, mayChange } from "./roles.ts";

const DAY = 24 * 60 * 60 * 1000;

/** `POST <team>/invitations`, fields `email` and `role` (admins; an owner alone invites an owner): mails a single-use link. */
export function inviteHandler(ctx: HandlerContext): HandlerFunc {
  // OWASP ASVS 5.0 §8.2.1: only admins and owners invite (`post` checks "invite").
  return ctx.post("invite", "invite", async (form, asker, req) => {
    const address = normalizeAddress(form.get("email") ?? "");
    if (address === undefined) return { Status: 400, Field: "email", Code: "email", Reason: "must be an email address" };
    const role = form.get("role");
    if (!isRole(role)) return BAD_ROLE;
    if (!mayChange(asker.role, "viewer", role)) return forbidden(`invite an ${role}`);
    if (ctx.store.roleOf(asker.team, address) !== undefined) {
      return { Status: 409, Field: "email", Code: "already_member", Reason: "this address is a member already" };
    }
    const now = ctx.now();
    // OWASP ASVS 5.0 §2.4.1 (anti-automation): a team, and an inviter across teams, mail a bounded number of invitations.
    const wait = Math.max(
      limitWait(ctx.invitations.byTeam, asker.team, ctx.limits.PerTeam, now),
      limitWait(ctx.invitations.byInviter, asker.subject, ctx.limits.PerInviter, now),
    );
    // RFC 6585 §4: the 429 says when to try again (`Retry-After`, set by the refusal).
    if (wait > 0)
      return { Status: 429, Field: "email", Code: "rate", Reason: `too many invitations; try again in ${wait} s`, RetryAfter: wait };
    const made = ctx.store.atomically(() => {
      const { id, token } = ctx.invitations.insert(asker.team, address, role, asker.subject, now, ctx.ttl);
      ctx.store.record(asker.team, "team.invited", asker.subject, { member: address, role, invitation: id });
      return { id, token };
    });
    await awaitDurable(ctx.config.DB);
    const link = `${new URL(ctx.config.Origin).origin}${ctx.config.JoinPath}?token=${made.token}`;
    const team = ctx.store.name(asker.team) ?? "";
    const days = Math.round(ctx.ttl / DAY);
    try {
      await ctx.mailer.Send(inviteMessage(req, { from: ctx.from, to: address, team, inviter: asker.subject, role, link, days }));
    } catch (err) {
      // An invitation that could not be mailed is withdrawn: no link to it exists anywhere.
      ctx.store.atomically(() => {
        if (ctx.invitations.revoke(made.id, asker.team, ctx.now()) !== undefined) {
          ctx.store.record(asker.team, "team.invitation_revoked", asker.subject, { member: address, invitation: made.id, reason: "mail" });
        }
      });
      ctx.logger.error("teams: sending an invitation failed", { ref: NewRef(), error: err });
      return { Status: 502, Field: "email", Code: "mail", Reason: "the invitation could not be mailed" };
    }
    return ctx.teamPath(asker.team, "invited=1");
  });
}

/** `POST <team>/invitations/revoke`, field `invitation` (its id; admins). */
export function revokeHandler(ctx: HandlerContext): HandlerFunc {
  return ctx.post("invite", "revoke invitations", (form, asker) => {
    const id = form.get("invitation") ?? "";
    const revoked = ctx.store.atomically(() => {
      const address = ctx.invitations.revoke(id, asker.team, ctx.now());
      if (address !== undefined)
        ctx.store.record(asker.team, "team.invitation_revoked", asker.subject, { member: address, invitation: id });
      return address !== undefined;
    });
    return revoked ? ctx.teamPath(asker.team, "revoked=1") : notFound("invitation");
  });
}

/** `GET JoinPath?token=`: the accept page, for the invited address's session; without a session, to sign in and back. */
export function joinHandler(ctx: HandlerContext): HandlerFunc {
  return (req, res) => {
    // RFC 9110 §9.3.2: HEAD is safe; a mail scanner's probe learns nothing.
    if (req.method === "HEAD") {
      res.setHeader("Cache-Control", "no-store");
      return void res.end();
    }
    const subject = ctx.subject(req);
    if (subject === undefined) return seeOther(res, awayAndBack(res, ctx.config.Origin, ctx.config.SigninPath, requestTarget(req)));
    const invitation = ctx.invitations.find(queryParams(req).get("token") ?? "", ctx.now());
    // Bound to the invited address: opened by anyone else, the link shows nothing (the same 404 as a forged one).
    if (invitation === undefined || invitation.Address !== subject) return ctx.refuse(req, res, notFound("token"));
    const { ID: _id, ...shown } = invitation;
    ctx.config.JoinPage(req, res, shown);
  };
}

/** `POST JoinPath`, field `token`: joins the team with the invitation's role; 303 to the team's page. */
export function acceptHandler(ctx: HandlerContext): HandlerFunc {
  return async (req, res) => {
    const form = await readForm(req);
    const subject = ctx.subject(req);
    if (subject === undefined) return seeOther(res, ctx.config.SigninPath);
    const now = ctx.now();
    const outcome = ctx.store.atomically(() => {
      const invitation = ctx.invitations.find(form.get("token") ?? "", now);
      if (invitation === undefined || invitation.Address !== subject) return notFound("token");
      const team = invitation.Team.ID;
      if (!ctx.store.join(team, subject, invitation.Role, now)) {
        return { Status: 409, Field: "token", Code: "already_member", Reason: "you are a member of this team already" } as const;
      }
      ctx.invitations.accept(invitation.ID, now);
      ctx.store.record(team, "team.joined", subject, { member: subject, role: invitation.Role, inviter: invitation.Inviter });
      return team;
    });
    if (typeof outcome !== "string") return ctx.refuse(req, res, outcome);
    seeOther(res, ctx.teamPath(outcome, "joined=1"));
  };
}
