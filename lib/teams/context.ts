/*
 * What the handlers share (teams.ts builds it once): the rows, the clock,
 * who is asking, the team a request names and the asker's role in it, and
 * the one way a refusal is answered (`Config.RefusalPage`, else plain text).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { EventStore } from "../events/index.ts";
import { newLogger, readForm, seeOther, systemClock, type Clock, type HandlerFunc, type Logger } from "../http/index.ts";
import { parseOrigin, writeText } from "../internal/index.ts";
import { newLogMailer, type Mailer } from "../mail/index.ts";
import type { Sessions } from "../session/index.ts";
import type { Config, InviteLimits, Refusal } from "./config.ts";
import { TeamsError } from "./errors.ts";
import { INVITATION_TTL, INVITE_LIMITS, InvitationRows } from "./invitations.ts";
import { may, type Role, type TeamAction } from "./roles.ts";
import { TEAM_ID_PATTERN, TeamStore } from "./store.ts";

/** The longest team name, in characters: 80. */
export const MAX_TEAM_NAME: number = 80;

/** The asker and their role in the team of the request's path. */
export interface Asker {
  readonly subject: string;
  readonly team: string;
  readonly role: Role;
}

/** The handlers' shared state. */
export class HandlerContext {
  readonly config: Config;
  readonly store: TeamStore;
  readonly invitations: InvitationRows;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly mailer: Mailer;
  readonly from: string;
  readonly ttl: number;
  readonly limits: InviteLimits;
  readonly #sessions: Sessions;

  constructor(config: Config) {
    for (const name of ["TeamsPath", "JoinPath", "SigninPath"] as const) {
      const path = config[name];
      // RFC 9110 §10.2.2: these go into Location; "//host" leaves the origin.
      if (typeof path !== "string" || !path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) {
        throw new TeamsError("ERR_TEAMS_INVALID_CONFIG", `teams: ${name} must be a local path ("/..." but not "//")`);
      }
    }
    if (parseOrigin(config.Origin) === undefined)
      throw new TeamsError("ERR_TEAMS_INVALID_CONFIG", "teams: Origin must be an http(s) origin");
    this.config = config;
    this.clock = config.Clock ?? systemClock;
    this.logger = config.Logger ?? newLogger();
    this.mailer = config.Mailer ?? newLogMailer(this.logger);
    this.from = config.MailFrom ?? `no-reply@${new URL(config.Origin).hostname}`;
    this.ttl = config.InvitationTTL ?? INVITATION_TTL;
    this.limits = config.InviteLimits ?? INVITE_LIMITS;
    this.store = new TeamStore(config.DB, config.Events ?? new EventStore(config.DB, { Clock: this.clock }));
    this.invitations = new InvitationRows(config.DB);
    this.#sessions = config.Sessions;
  }

  now(): number {
    return this.clock.now().getTime();
  }

  /** The signed-in person, or undefined. */
  subject(req: IncomingMessage): string | undefined {
    return this.#sessions.read(req)?.Subject;
  }

  /** The asker as a member of the path's team; undefined (after a 404) for no session, a malformed or unknown id and a non-member alike. */
  asker(req: IncomingMessage, res: ServerResponse): Asker | undefined {
    const subject = this.subject(req);
    const team = this.config.TeamFrom(req) ?? "";
    const role = subject === undefined || !TEAM_ID_PATTERN.test(team) ? undefined : this.store.roleOf(team, subject);
    // OWASP ASVS 5.0 §8.2.2 (data-specific access): a team one is not in is answered as one that does not exist.
    if (subject === undefined || role === undefined) return void this.refuse(req, res, notFound());
    return { subject, team, role };
  }

  /**
   * A team page's form post: reads the form, finds the asker (404 otherwise), refuses a role that may not `action`
   * (`what` words it), then runs `handle`, whose refusal is answered and whose path is where the 303 goes.
   */
  post(
    action: TeamAction,
    what: string,
    handle: (form: URLSearchParams, asker: Asker, req: IncomingMessage) => Refusal | string | Promise<Refusal | string>,
  ): HandlerFunc {
    return async (req, res) => {
      const form = await readForm(req);
      const asker = this.asker(req, res);
      if (asker === undefined) return;
      // OWASP ASVS 5.0 §8.2.1: function-level access, checked on the server before anything changes.
      if (!may(asker.role, action)) return this.refuse(req, res, forbidden(what));
      const outcome = await handle(form, asker, req);
      if (typeof outcome === "string") return seeOther(res, outcome);
      this.refuse(req, res, outcome);
    };
  }

  refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
    if (refusal.RetryAfter !== undefined) res.setHeader("Retry-After", String(refusal.RetryAfter));
    if (this.config.RefusalPage !== undefined) return this.config.RefusalPage(req, res, refusal);
    writeText(res, refusal.Status, `${refusal.Status} ${refusal.Field}: ${refusal.Reason}`);
  }

  teamPath(team: string, query = ""): string {
    return `${this.config.TeamsPath}/${team}${query === "" ? "" : `?${query}`}`;
  }

  /** The form's `name` field as a team name, or the refusal naming why not. */
  name(value: string | null): string | Refusal {
    const name = (value ?? "").trim();
    // SPEC §7: bad input is answered with the field and the reason; control characters would garble every list of names.
    if (name === "" || [...name].length > MAX_TEAM_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
      return { Status: 400, Field: "name", Code: "name", Reason: `must be 1-${MAX_TEAM_NAME} characters without control characters` };
    }
    return name;
  }
}

/** The one answer to a team, invitation or member one may not see. */
export function notFound(field = "team"): Refusal {
  return { Status: 404, Field: field, Code: "not_found", Reason: "no such team, member or invitation" };
}

/** A form's `role` that names no role. */
export const BAD_ROLE: Refusal = { Status: 400, Field: "role", Code: "role", Reason: "must be owner, admin, member or viewer" };

/** A role too low for the action. */
export function forbidden(action: string): Refusal {
  return { Status: 403, Field: "role", Code: "forbidden", Reason: `your role in this team may not ${action}` };
}
