/*
 * latch/teams over HTTP with a real SMTP server: a team's life, the roles
 * matrix, the last owner, and the bad input refused with its field.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_TEAM_NAME } from "../../lib/teams/index.ts";
import { count } from "../_support/signin-app.ts";
import { startTeamsApp } from "./harness.ts";

describe("teams: a team's life", () => {
  it("creates a team with its maker as owner, and every change appends an attributed event to team:<id>", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const bob = await app.signIn("bob@example.com");
    const team = await app.createTeam(ann);
    assert.equal(app.teams.roleOf(team, "ann@example.com"), "owner");
    assert.equal(app.teams.roleOf(team, "bob@example.com"), undefined);
    const token = await app.invite(ann, team, "bob@example.com", "member");
    assert.equal((await app.post(bob, "/teams/join", { token })).location, `/teams/${team}?joined=1`);
    assert.equal(app.teams.roleOf(team, "bob@example.com"), "member");
    assert.equal((await app.post(ann, `/teams/${team}/members/role`, { member: "bob@example.com", role: "admin" })).status, 303);
    assert.equal((await app.post(ann, `/teams/${team}/rename`, { name: "Loans" })).location, `/teams/${team}?renamed=1`);
    assert.equal((await app.post(bob, `/teams/${team}/leave`)).location, "/teams?left=1");
    assert.deepEqual(
      app.stream(team).map((e) => [e.type, e.actor, e.subject, e.data["member"]]),
      [
        ["team.created", "human", "ann@example.com", "ann@example.com"],
        ["team.invited", "human", "ann@example.com", "bob@example.com"],
        ["team.joined", "human", "bob@example.com", "bob@example.com"],
        ["team.role_changed", "human", "ann@example.com", "bob@example.com"],
        ["team.renamed", "human", "ann@example.com", undefined],
        ["team.left", "human", "bob@example.com", "bob@example.com"],
      ],
    );
    assert.deepEqual(app.teams.teamsOf("ann@example.com"), [{ ID: team, Name: "Loans", Role: "owner" }]);
  });

  it("deletes a team only with its name typed: the rows go, the stream stays and ends with team.deleted", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const team = await app.createTeam(ann, "Clinic");
    await app.invite(ann, team, "cy@example.com", "viewer");
    const wrong = await app.post(ann, `/teams/${team}/delete`, { name: "clinic" });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body, /^400 name: type the team's name/);
    assert.equal(app.teams.roleOf(team, "ann@example.com"), "owner");
    assert.equal((await app.post(ann, `/teams/${team}/delete`, { name: "Clinic" })).location, "/teams?deleted=1");
    assert.equal(count(app.db, "teams"), 0);
    assert.equal(count(app.db, "team_members"), 0);
    assert.equal(count(app.db, "team_invitations", "revoked_at IS NULL"), 0);
    assert.equal(app.stream(team).at(-1)?.type, "team.deleted");
    assert.equal((await app.post(ann, `/teams/${team}/rename`, { name: "Back" })).status, 404);
  });

  it(`refuses a name that is empty, of control characters or longer than MAX_TEAM_NAME (${MAX_TEAM_NAME}), naming the field; nothing is written`, async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    for (const name of ["", "   ", "a\u0007b", "x".repeat(81)]) {
      const refused = await app.post(ann, "/teams", { name });
      assert.equal(refused.status, 400, JSON.stringify(name));
      assert.match(refused.body, /^400 name: must be 1-80 characters/);
    }
    assert.equal(count(app.db, "teams"), 0);
    assert.equal(count(app.db, "events"), 0);
    await app.createTeam(ann, "x".repeat(80));
  });
});

describe("teams: roles", () => {
  it("lets each role do what the roles table says, and answers a non-member 404 on every route", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const ada = await app.signIn("ada@example.com");
    const max = await app.signIn("max@example.com");
    const vic = await app.signIn("vic@example.com");
    const eve = await app.signIn("eve@example.com");
    const team = await app.createTeam(ann);
    for (const [jar, who, role] of [
      [ada, "ada", "admin"],
      [max, "max", "member"],
      [vic, "vic", "viewer"],
    ] as const) {
      const token = await app.invite(ann, team, `${who}@example.com`, role);
      assert.equal((await app.post(jar, "/teams/join", { token })).status, 303);
    }
    const path = (p: string): string => `/teams/${team}/${p}`;
    // Viewer and member: no invitations, no role changes, no rename.
    for (const jar of [vic, max]) {
      assert.equal((await app.post(jar, path("invitations"), { email: "new@example.com", role: "viewer" })).status, 403);
      assert.equal((await app.post(jar, path("members/role"), { member: "vic@example.com", role: "member" })).status, 403);
      assert.equal((await app.post(jar, path("rename"), { name: "Mine" })).status, 403);
    }
    // Admin: re-roles and removes below owner, never an owner, and cannot make one.
    assert.equal((await app.post(ada, path("members/role"), { member: "vic@example.com", role: "member" })).status, 303);
    assert.equal((await app.post(ada, path("members/role"), { member: "max@example.com", role: "owner" })).status, 403);
    assert.equal((await app.post(ada, path("members/role"), { member: "ann@example.com", role: "admin" })).status, 403);
    assert.equal((await app.post(ada, path("members/remove"), { member: "ann@example.com" })).status, 403);
    assert.equal((await app.post(ada, path("invitations"), { email: "o@example.com", role: "owner" })).status, 403);
    assert.equal((await app.post(ada, path("rename"), { name: "Mine" })).status, 403);
    assert.equal((await app.post(ada, path("members/remove"), { member: "vic@example.com" })).status, 303);
    assert.equal(app.teams.roleOf(team, "vic@example.com"), undefined);
    // A non-member (and the removed one): the same 404 as an unknown team, everywhere.
    for (const jar of [eve, vic]) {
      for (const p of ["rename", "delete", "invitations", "invitations/revoke", "members/role", "members/remove", "leave"]) {
        const refused = await app.post(jar, path(p), {
          name: "Workshop",
          email: "x@example.com",
          role: "viewer",
          member: "ann@example.com",
        });
        assert.equal(refused.status, 404, p);
        assert.equal((await app.post(jar, `/teams/AAAAAAAAAAAA/${p}`, { name: "x" })).status, 404, p);
      }
    }
    assert.equal(app.teams.view(team, "eve@example.com"), undefined);
    assert.deepEqual(app.teams.view(team, "max@example.com")?.Invitations, []);
  });

  it("keeps a last owner: cannot leave, be demoted or removed (409); with a second owner each works", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const bob = await app.signIn("bob@example.com");
    const team = await app.createTeam(ann);
    const path = (p: string): string => `/teams/${team}/${p}`;
    const leave = await app.post(ann, path("leave"));
    assert.equal(leave.status, 409);
    assert.match(leave.body, /at least one owner/);
    assert.equal((await app.post(ann, path("members/role"), { member: "ann@example.com", role: "admin" })).status, 409);
    assert.equal((await app.post(ann, path("members/remove"), { member: "ann@example.com" })).status, 409);
    assert.equal(app.teams.roleOf(team, "ann@example.com"), "owner");
    assert.equal(app.stream(team).length, 1);
    const token = await app.invite(ann, team, "bob@example.com", "owner");
    await app.post(bob, "/teams/join", { token });
    assert.equal((await app.post(ann, path("members/role"), { member: "ann@example.com", role: "admin" })).status, 303);
    assert.equal((await app.post(bob, path("members/remove"), { member: "ann@example.com" })).status, 303);
    assert.equal((await app.post(bob, path("leave"))).status, 409);
  });
});

describe("teams: a change and its event commit together", () => {
  it("writes no team when its event is refused (a trigger injects the failure)", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    app.db.exec(
      "CREATE TRIGGER refuse_team_event BEFORE INSERT ON events WHEN NEW.type LIKE 'team.%' BEGIN SELECT RAISE(ABORT, 'injected'); END",
    );
    assert.equal((await app.post(ann, "/teams", { name: "Workshop" })).status, 500);
    assert.equal(count(app.db, "teams"), 0);
    assert.equal(count(app.db, "team_members"), 0);
  });
});
