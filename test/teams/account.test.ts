/*
 * The teams' rows in a person's account life (lib/account with
 * `teams.accountRows`): the deletion of a team's only owner is refused and
 * deletes nothing; the export holds the memberships; a deletion removes
 * them and leaves the team's stream naming the person by a key that maps to
 * no one; a change of address carries them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { accountRows } from "../../lib/teams/index.ts";
import { count } from "../_support/signin-app.ts";
import { startTeamsApp } from "./harness.ts";

describe("teams: account life", () => {
  it("refuses to delete the account of a team's only owner and deletes nothing; an owner among two is deleted", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const bob = await app.signIn("bob@example.com");
    const team = await app.createTeam(ann);
    await app.post(bob, "/teams/join", { token: await app.invite(ann, team, "bob@example.com", "member") });
    const refused = await app.post(ann, "/account/delete", { email: "ann@example.com" });
    assert.equal(refused.location, "/account/security?delete=team_owner");
    assert.equal(app.teams.roleOf(team, "ann@example.com"), "owner");
    assert.equal(count(app.db, "sessions", "subject = ?", "ann@example.com") > 0, true, "still signed in");
    assert.equal(count(app.db, "signin_accounts", "address = ?", "ann@example.com"), 1);
    // Bob, a member, leaves nothing orphaned: his deletion removes his membership.
    assert.equal((await app.post(bob, "/account/delete", { email: "bob@example.com" })).location, "/signin?account=deleted");
    assert.equal(app.teams.roleOf(team, "bob@example.com"), undefined);
    assert.equal(count(app.db, "team_invitations", "address = ?", "bob@example.com"), 0);
    // The team's stream still tells of his invitation and join, but no longer who he was: the key it names maps to no one,
    // and his own events' subject is the deletion's pseudonym.
    assert.equal(app.stream(team).filter((e) => e.type === "team.invited" || e.type === "team.joined").length, 2);
    assert.doesNotMatch(app.raw(team), /bob@example\.com/);
    assert.equal(count(app.db, "team_people", "subject = ?", "bob@example.com"), 0);
    assert.equal(count(app.db, "events", "stream = ? AND subject = ?", `team:${team}`, "bob@example.com"), 0);
    // With the team deleted, nothing stops Ann's deletion.
    await app.post(ann, `/teams/${team}/delete`, { name: "Workshop" });
    assert.equal((await app.post(ann, "/account/delete", { email: "ann@example.com" })).location, "/signin?account=deleted");
  });

  it("exports the memberships and invitations without a token's hash", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const team = await app.createTeam(ann, "Invoices");
    await app.invite(ann, team, "cy@example.com", "viewer");
    const got = await app.request("GET", "/account/export", { jar: ann });
    assert.equal(got.status, 200);
    const doc = JSON.parse(got.body) as { tables: Record<string, Record<string, unknown>[]> };
    assert.deepEqual(
      doc.tables["team_members"]?.map((r) => [r["team"], r["role"]]),
      [[team, "owner"]],
    );
    assert.deepEqual(
      doc.tables["team_invitations"]?.map((r) => [r["team"], r["address"], r["inviter"]]),
      [[team, "cy@example.com", "ann@example.com"]],
    );
    assert.doesNotMatch(got.body, /token_hash/);
  });

  it("moves memberships and sent invitations with a change of address; invitations to the old address are dropped", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const team = await app.createTeam(ann);
    await app.invite(ann, team, "bob@example.com", "member");
    const other = await app.createTeam(await app.signIn("zed@example.com"), "Other");
    await app.post(await app.signIn("zed@example.com"), `/teams/${other}/invitations`, { email: "ann@example.com", role: "viewer" });
    const rows = accountRows(app.db);
    app.db.transaction(() => rows.move("ann@example.com", "ann@new.example", false))();
    assert.equal(app.teams.roleOf(team, "ann@new.example"), "owner");
    assert.equal(app.teams.roleOf(team, "ann@example.com"), undefined);
    assert.equal(count(app.db, "team_invitations", "inviter = ?", "ann@new.example"), 1);
    assert.equal(count(app.db, "team_invitations", "address = ?", "ann@example.com"), 0);
    assert.equal(rows.refuseErasure?.("ann@new.example"), "team_owner");
    assert.equal(rows.refuseErasure?.("bob@example.com"), undefined);
  });
});
