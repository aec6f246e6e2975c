/* The account component's configuration. */
import type { IncomingMessage } from "node:http";
import type { DB } from "../db/index.ts";
import type { Clock, Logger } from "../http/index.ts";
import type { Mailer } from "../mail/index.ts";
import type { Passkey } from "../passkey/index.ts";
import type { AuthEventSink } from "../session/index.ts";
import type { Signin } from "../signin/index.ts";
import type { AccountRows } from "../db/index.ts";
import type { OtherEvents } from "./records.ts";

/** Configuration of `create`. */
export interface Config {
  /** The application's handle, every schema applied (the account `Schema` last). */
  DB: DB;
  /** The sign-in component: its sessions, and its emailed links for the confirmation. */
  Signin: Signin;
  /** The passkey component: deleting an account that has a passkey asks for an assertion. */
  Passkey?: Passkey;
  /** Public origin (scheme://host[:port]), for the links in mails. */
  Origin: string;
  /** The instance key (as sign-in's): seals the old address of a reversal, keys the pseudonym. */
  InstanceKey: string;
  /**
   * The rows of a person that modules account does not import hold, each module answering for its own tables:
   * lib/oauth's `accountRows(db, agentRows)` before lib/agent's `accountRows(db)` (OAuth codes name agent tokens),
   * lib/manifest's `accountRows(db, resources)` for the application's user-scoped resources. Sessions, sign-in,
   * passkeys and events account composes itself. Moved, exported and deleted in this order.
   */
  Rows?: readonly AccountRows[];
  /** Where the outcomes of a change, an export or a deletion asked from a session land (`?address=`, `?delete=`). */
  AccountPath: string;
  /** Where a deletion and a reversal land (`?account=`), their sessions ended. */
  SigninPath: string;
  /** Where a deletion of an account with a passkey sends a session not confirmed by one (`?next=AccountPath`). @default SigninPath */
  StalePath?: string;
  /** The path of the application's page that posts a reversal (`?token=`), linked from the old address's notice. */
  ReversePath: string;
  /** The path of `ConfirmLink`, linked from the new address's mail. */
  ConfirmPath: string;
  /** How long the old address can reverse a change, in ms. @default REVERSE_WINDOW (7 days) */
  ReverseWindow?: number;
  /** A deletion's treatment of the person's events in other streams. @default "pseudonymize" */
  OtherEvents?: OtherEvents;
  /** Sends the mails. @default a mailer that logs them */
  Mailer?: Mailer;
  /** @default no-reply@<origin host> */
  MailFrom?: string;
  /** Receives `address_changed`, `address_change_reversed`, `account_deleted`. @default one log line each */
  OnAuthEvent?: AuthEventSink;
  /** The client address of a request, as sign-in's. */
  ClientIP?: (req: IncomingMessage) => string;
  Logger?: Logger;
  Clock?: Clock;
}
