/* The teams component's configuration and what its pages are given. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DB } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import type { Clock, Logger } from "../http/index.ts";
import type { Mailer } from "../mail/index.ts";
import type { Sessions } from "../session/index.ts";
import type { Role } from "./roles.ts";

/** Why a request was refused: the status, the form field at fault and a stable code (a page words it), and the reason in English. */
export interface Refusal {
  readonly Status: number;
  readonly Field: string;
  readonly Code:
    "name" | "confirm" | "email" | "role" | "member" | "already_member" | "last_owner" | "forbidden" | "not_found" | "rate" | "mail";
  readonly Reason: string;
  /** For a 429: the whole seconds until an attempt may succeed, sent as `Retry-After`. */
  readonly RetryAfter?: number;
}

/** An invitation as its accept page shows it. */
export interface Invitation {
  readonly Team: { readonly ID: string; readonly Name: string };
  readonly Inviter: string;
  readonly Address: string;
  readonly Role: Role;
  readonly ExpiresAt: Date;
}

/** The invitation limits: per team and per inviter (any team). */
export interface InviteLimits {
  readonly PerTeam: { readonly Max: number; readonly Window: number };
  readonly PerInviter: { readonly Max: number; readonly Window: number };
}

/** Configuration of `create`. */
export interface Config {
  /** The application's handle, the teams `Schema` applied (and the events `Schema`). */
  DB: DB;
  /** Sign-in's sessions (`Signin.Sessions`): who is asking. */
  Sessions: Sessions;
  /** The application's event store (its `OnAppend` runs for team events too). @default a new one on `DB` */
  Events?: EventStore;
  /** Public origin (scheme://host[:port]), for the link in an invitation. */
  Origin: string;
  /** The teams page; a team's page is `<TeamsPath>/<id>`, where its outcomes land. */
  TeamsPath: string;
  /** The path of the accept page (`Join`, `Accept`), linked from the invitation with `?token=`. */
  JoinPath: string;
  /** Where `Join` sends a browser without a session (`?next=` brings it back). */
  SigninPath: string;
  /** The team id of a request's path (e.g. `PathValue(req, "team")`). */
  TeamFrom: (req: IncomingMessage) => string | undefined;
  /** Renders the accept page of an invitation to the signed-in person. */
  JoinPage: (req: IncomingMessage, res: ServerResponse, invitation: Invitation) => void;
  /** Renders a refusal with `refusal.Status`. @default plain text: status, field and reason */
  RefusalPage?: (req: IncomingMessage, res: ServerResponse, refusal: Refusal) => void;
  /** Sends the invitations. @default a mailer that logs them */
  Mailer?: Mailer;
  /** @default no-reply@<origin host> */
  MailFrom?: string;
  /** How long an invitation can be accepted, in ms. @default INVITATION_TTL (7 days) */
  InvitationTTL?: number;
  /** @default INVITE_LIMITS */
  InviteLimits?: InviteLimits;
  Logger?: Logger;
  Clock?: Clock;
}
