/*
 * The oauth rows of a person (lib/db `AccountRows`): codes and refresh tokens name a grant by id, so they follow it on a
 * move, show nothing in an export (hashes of secrets), end with it on an undo, and go before agent's tokens on a deletion.
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
