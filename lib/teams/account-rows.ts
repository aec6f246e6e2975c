/*
 * The teams module's rows of a person (lib/db `AccountRows`, which
 * lib/account composes): memberships follow a change of address; an
 * invitation to the old address is dropped (its link was mailed there and
 * binds that address); invitations the person sent follow them. The export
 * shows memberships, and invitations to or from the person without their
 * tokens' hashes, and the person's key in team events (deleted with them). A deletion is refused while the person is the only owner
 * of a team: its members would be left with no one to manage it.
 */
import type { DB } from "../db/index.ts";
import { keysetPages, tableRows, type AccountRows } from "../db/index.ts";
import { EventStore } from "../events/index.ts";
import { TeamStore } from "./store.ts";

/** What lib/account's deletion answers when the person is the only owner of a team (`refuseErasure`). */
export const SOLE_OWNER = "team_owner";

/** The person's team rows as lib/account moves, exports and erases them, and refuses a deletion that would orphan a team. */
export function accountRows(db: DB): AccountRows {
  const members = tableRows(db, [
    { table: "team_members", column: "subject", onMove: "move", exported: ["team", "role", "joined_at"], account: false },
  ]);
  const store = new TeamStore(db, new EventStore(db));
  const dropTo = db.prepare("DELETE FROM team_invitations WHERE address = ?");
  const moveFrom = db.prepare("UPDATE team_invitations SET inviter = ? WHERE inviter = ?");
  const dropFrom = db.prepare("DELETE FROM team_invitations WHERE inviter = ?");
  // The person's key in team events follows them; an address moved to (one invited, never an account) takes the mover's.
  const moveKey = db.prepare("UPDATE OR REPLACE team_people SET subject = ? WHERE subject = ?");
  const dropKey = db.prepare("DELETE FROM team_people WHERE subject = ?");
  return {
    move(from, to, merge) {
      members.move(from, to, merge);
      dropTo.run(from);
      moveFrom.run(to, from);
      moveKey.run(to, from);
    },
    export: (subject) => [
      ...members.export(subject),
      keysetPages(db, {
        table: "team_invitations",
        columns: "team, address, role, inviter, created_at, expires_at, accepted_at, revoked_at",
        where: "address = @s OR inviter = @s",
        params: { s: subject },
      }),
      keysetPages(db, { table: "team_people", columns: "key", where: "subject = @s", params: { s: subject } }),
    ],
    erase(subject) {
      members.erase(subject);
      dropTo.run(subject);
      dropFrom.run(subject);
      // What the team streams say of the person keeps only this key, which now names no one.
      dropKey.run(subject);
    },
    refuseErasure: (subject) => (store.soleOwnerOf(subject) === undefined ? undefined : SOLE_OWNER),
  };
}
