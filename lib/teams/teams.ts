/*
 * The teams component (README): teams, their members and roles, and
 * invitations by email. `roleOf` is the one answer to "is this person in
 * this team, and as what" that pages, and later team-scoped resources,
 * ask before they read a team's rows; `may` says what a role allows. The
 * handlers answer form posts with 303 to the team's page, or a refusal
 * (`Config.RefusalPage`) naming the field; the application renders pages.
 */
import { sweepInSteps } from "../db/index.ts";
import type { HandlerFunc } from "../http/index.ts";
import type { Config } from "./config.ts";
import { HandlerContext } from "./context.ts";
import { createHandler, deleteHandler, leaveHandler, removeHandler, renameHandler, setRoleHandler } from "./handlers.ts";
import { acceptHandler, inviteHandler, joinHandler, revokeHandler } from "./invite-handlers.ts";
import type { PendingInvitation } from "./invitations.ts";
import { may, type Role } from "./roles.ts";
import { TEAM_ID_PATTERN, type Member, type MembershipEnded, type TeamSummary } from "./store.ts";

/** A team as one of its members sees it; pending invitations only for those who may invite. */
export interface TeamView {
  readonly ID: string;
  readonly Name: string;
  /** The viewer's role. */
  readonly Role: Role;
  readonly Members: readonly Member[];
  readonly Invitations: readonly PendingInvitation[];
}

/**
 * Creates the teams component. Throws `TeamsError` ERR_TEAMS_INVALID_CONFIG
 * for a path that is not local or an Origin that is not http(s).
 *
 * @example
 * const teams = create({ DB: db, Sessions: auth.Sessions, Events: events, Origin, Mailer: mailer,
 *   TeamsPath: "/teams", JoinPath: "/teams/join", SigninPath: "/signin",
 *   TeamFrom: (req) => PathValue(req, "team"), JoinPage: (req, res, invitation) => page(req, res, invitation) });
 */
export function create(config: Config): Teams {
  return new Teams(config);
}

/** The teams component: who belongs to which team, and its handlers. */
export class Teams {
  readonly #ctx: HandlerContext;

  constructor(config: Config) {
    this.#ctx = new HandlerContext(config);
    const ctx = this.#ctx;
    this.Create = createHandler(ctx);
    this.Rename = renameHandler(ctx);
    this.Delete = deleteHandler(ctx);
    this.SetRole = setRoleHandler(ctx);
    this.Remove = removeHandler(ctx);
    this.Leave = leaveHandler(ctx);
    this.Invite = inviteHandler(ctx);
    this.Revoke = revokeHandler(ctx);
    this.Join = joinHandler(ctx);
    this.Accept = acceptHandler(ctx);
  }

  /** `POST TeamsPath`, field `name`: a new team with the asker as owner. */
  readonly Create: HandlerFunc;
  /** `POST <team>/rename`, field `name` (owners). */
  readonly Rename: HandlerFunc;
  /** `POST <team>/delete`, field `name` typed to confirm (owners). */
  readonly Delete: HandlerFunc;
  /** `POST <team>/members/role`, fields `member` and `role`. */
  readonly SetRole: HandlerFunc;
  /** `POST <team>/members/remove`, field `member`. */
  readonly Remove: HandlerFunc;
  /** `POST <team>/leave`. */
  readonly Leave: HandlerFunc;
  /** `POST <team>/invitations`, fields `email` and `role` (admins). */
  readonly Invite: HandlerFunc;
  /** `POST <team>/invitations/revoke`, field `invitation` (admins). */
  readonly Revoke: HandlerFunc;
  /** `GET JoinPath?token=`: the accept page (`Config.JoinPage`). */
  readonly Join: HandlerFunc;
  /** `POST JoinPath`, field `token`. */
  readonly Accept: HandlerFunc;

  /**
   * `subject`'s role in `team`, or undefined: an unknown team and a
   * non-member answer alike, and the caller answers 404 for both. The one
   * membership check; `may(role, action)` says what the role allows.
   */
  roleOf(team: string, subject: string): Role | undefined {
    return TEAM_ID_PATTERN.test(team) ? this.#ctx.store.roleOf(team, subject) : undefined;
  }

  /**
   * Calls `listener(team, subject)` each time a membership ends (a member removed, a member leaving, the team deleted:
   * once per member), after the change committed; a live page or a pending approval of that member ends with it.
   */
  onMembershipEnded(listener: MembershipEnded): void {
    this.#ctx.store.onEnded(listener);
  }

  /** The teams `subject` belongs to, by name. */
  teamsOf(subject: string): TeamSummary[] {
    return this.#ctx.store.teamsOf(subject);
  }

  /** Team `team` as member `subject` sees it, or undefined for a non-member (answer 404). */
  view(team: string, subject: string): TeamView | undefined {
    const role = this.roleOf(team, subject);
    if (role === undefined) return undefined;
    const store = this.#ctx.store;
    const invitations = may(role, "invite") ? this.#ctx.invitations.pending(team, this.#ctx.now()) : [];
    return { ID: team, Name: store.name(team) ?? "", Role: role, Members: store.members(team), Invitations: invitations };
  }

  /** Deletes expired invitations in `sweepInSteps`' bounded steps; resolves with how many. */
  async Sweep(now: Date): Promise<number> {
    const { invitations } = await sweepInSteps(this.#ctx.config.DB, {
      invitations: (limit) => this.#ctx.invitations.sweep(now.getTime(), limit),
    });
    return invitations;
  }
}
