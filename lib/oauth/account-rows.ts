/*
 * The OAuth server's rows of a person (lib/db `AccountRows`, which
 * lib/account composes): codes and refresh tokens name the person's grant,
 * an agent token, by id only (schema.ts), so they follow the token on a
 * move, hold nothing an export shows (hashes of secrets), and an undo ends
 * them by revoking the token (lib/agent). A deletion deletes them before
 * lib/agent deletes the tokens: compose these rows before agent's.
 */
import type { DB } from "../db/index.ts";
import type { AccountRows } from "../db/index.ts";

/** The codes and refresh tokens of a person's grants, found through lib/agent's `tokenIDs`. */
export function accountRows(db: DB, agent: { tokenIDs(subject: string): string[] }): AccountRows {
  const codes = db.prepare("DELETE FROM oauth_codes WHERE token_id = ?");
  const refresh = db.prepare("DELETE FROM oauth_refresh_tokens WHERE token_id = ?");
  return {
    move: () => undefined,
    export: () => [],
    erase(subject) {
      for (const id of agent.tokenIDs(subject)) {
        codes.run(id);
        refresh.run(id);
      }
    },
  };
}
