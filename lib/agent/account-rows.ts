/*
 * The agent rows of a person (lib/db `AccountRows`): tokens and grants, grants' access tokens, approvals, standing
 * approvals, the time of the last waiting-call notice; deleted approvals, standing approvals and access tokens first.
 * lib/oauth's rows name tokens by id too: they ask `tokenIDs` and go before these.
 */
import type { DB } from "../db/index.ts";
import { tableRows, type AccountRows } from "../db/index.ts";

/** The agent module's `AccountRows`, and the ids of every token of a person (for the rows that name them by id). */
export interface AgentRows extends AccountRows {
  tokenIDs(subject: string): string[];
}

/** The person's agent tokens, grants and approvals as lib/account moves, exports and erases them. */
export function accountRows(db: DB): AgentRows {
  const tables = tableRows(db, [
    // The time of the person's last waiting-call mail (notices.ts): it follows the address, so the hour holds.
    { table: "agent_approval_notices", column: "subject", onMove: "move", exported: ["noticed_at"], account: false },
    {
      table: "agent_approvals",
      column: "subject",
      onMove: "move",
      exported: ["id", "token_id", "tool", "args", "status", "created_at", "expires_at"],
      account: true,
    },
    {
      table: "agent_standing_approvals",
      column: "subject",
      onMove: "move",
      exported: ["id", "token_id", "tool", "context", "record", "fields", "args", "remaining", "created_at", "expires_at", "ended"],
      account: true,
    },
    {
      table: "agent_tokens",
      column: "subject",
      onMove: "move",
      exported: ["id", "name", "access", "created_at", "last_used_at", "revoked_at", "expires_at"],
      account: true,
    },
  ]);
  const ids = db.prepare<[string], string>("SELECT id FROM agent_tokens WHERE subject = ?").pluck();
  const dropAccess = db.prepare("DELETE FROM agent_access_tokens WHERE token_id IN (SELECT id FROM agent_tokens WHERE subject = ?)");
  // An undo ends what the tokens let act: a request not yet answered, or an approval not yet spent, declined; every token
  // revoked (a grant's access and refresh tokens stop with it: tokens.ts, lib/oauth).
  const decline = db.prepare(
    "UPDATE agent_approvals SET status = 'declined', expires_at = @now WHERE subject = @subject AND status IN ('pending', 'approved')",
  );
  const revoke = db.prepare("UPDATE agent_tokens SET revoked_at = @now WHERE subject = @subject AND revoked_at IS NULL");
  const declineAll = db.prepare(
    "UPDATE agent_approvals SET status = 'declined', expires_at = @now WHERE status IN ('pending', 'approved')",
  );
  const revokeAll = db.prepare("UPDATE agent_tokens SET revoked_at = @now WHERE revoked_at IS NULL");
  return {
    ...tables,
    tokenIDs: (subject) => ids.all(subject),
    endAccess: (subject, now) => decline.run({ subject, now }).changes + revoke.run({ subject, now }).changes,
    endEveryone: (now) => declineAll.run({ now }).changes + revokeAll.run({ now }).changes,
    erase(subject) {
      dropAccess.run(subject);
      tables.erase(subject);
    },
  };
}
