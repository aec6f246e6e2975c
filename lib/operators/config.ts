/* The operators component's configuration, and its checks. */
import type { AccountRows, DB } from "../db/index.ts";
import { requireTables } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import { isLocalPath, type Clock, type HandlerFunc, type Logger } from "../http/index.ts";
import { durationProblem, parseOrigin } from "../internal/index.ts";
import type { Mailer } from "../mail/index.ts";
import type { Sessions } from "../session/index.ts";
import { normalizeAddress } from "../signin/index.ts";
import { OperatorsError } from "./errors.ts";

/** Configuration of `create`. */
export interface Config {
  /** The application's handle, every schema applied (the operators `Schema` among them). */
  DB: DB;
  /**
   * Who is an operator: their addresses, from the application's configuration (the demo reads `OPERATORS`). Never data:
   * no page, form or operator can add one. Empty: nobody, and every operator route answers 404.
   */
  Operators: readonly string[];
  /** The session store (sign-in's `Sessions`): an operator's session, and what suspension ends (`RevokeAll`, with its hooks). */
  Sessions: Sessions;
  /** The audit streams every operator action is appended to: the operator's and the person's. */
  Events: EventStore;
  /**
   * The rows of a person that modules operators does not import hold: lib/agent's `accountRows(db)` (agent tokens and
   * OAuth grants revoked, approvals declined by its `endAccess`; tokens and grants shown), lib/teams' (memberships
   * shown). Sessions, sign-in and passkeys operators composes itself.
   */
  Rows?: readonly AccountRows[];
  /** Public origin (scheme://host[:port]). */
  Origin: string;
  /** Where the operator pages live (`<OperatorsPath>/person?address=`): where every action answers 303. */
  OperatorsPath: string;
  /** Where a session that is not fresh or not confirmed by a passkey is sent (`?next=`): the application's step-up page. */
  StalePath: string;
  /** How recent an operator's passkey confirmation must be, in ms. @default 5 minutes */
  FreshFor?: number;
  /** Answers anyone who is not an operator (the application's 404 page). @default a plain-text 404 */
  NotFound?: HandlerFunc;
  /** Sends the notices to the person. @default a mailer that logs them */
  Mailer?: Mailer;
  /** @default no-reply@<origin host> */
  MailFrom?: string;
  Logger?: Logger;
  Clock?: Clock;
}

/** The operators' freshness window when `FreshFor` is unset: 5 minutes, sign-in's and passkey's default. */
export const DEFAULT_FRESH_FOR: number = 5 * 60 * 1000;

/** Checks `config`; returns the operators' addresses as sign-in stores subjects. Throws `OperatorsError` naming the field. */
export function checkConfig(config: Config): ReadonlySet<string> {
  const invalid = (why: string): OperatorsError => new OperatorsError("ERR_OPERATORS_INVALID_CONFIG", `operators: ${why}`);
  requireTables(config.DB, "operators", "operators.Schema", ["operator_suspensions"]);
  if (parseOrigin(config.Origin) === undefined) throw invalid("Origin must be an http or https URL");
  for (const field of ["OperatorsPath", "StalePath"] as const) {
    if (!isLocalPath(config[field])) throw invalid(`${field} must be a local path ("/...")`);
  }
  const fresh = config.FreshFor === undefined ? undefined : durationProblem(config.FreshFor);
  if (fresh !== undefined) throw invalid(`FreshFor ${fresh}`);
  if (!Array.isArray(config.Operators)) throw invalid("Operators must be a list of addresses");
  const operators = new Set<string>();
  for (const entry of config.Operators) {
    const address = typeof entry === "string" ? normalizeAddress(entry) : undefined;
    // An operator is a session subject: a list entry no sign-in could produce would silently grant nobody.
    if (address === undefined || !/^[^@\s]+@[^@\s]+$/.test(address))
      throw invalid(`Operators holds ${JSON.stringify(entry)}, not an email address`);
    operators.add(address);
  }
  return operators;
}
