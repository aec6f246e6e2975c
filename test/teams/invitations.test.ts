/*
 * Invitations over a real SMTP server: bound to the invited address,
 * single use, expiring, revocable, refused for a member, rate limited.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { INVITATION_TTL, INVITE_LIMITS } from "../../lib/teams/index.ts";
import { count } from "../_support/signin-app.ts";
import { startTeamsApp } from "./harness.ts";

describe("teams: invitations", () => {
  it("mails a link naming the team and inviter; the page shows them to the invited address alone", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const team = await app.createTeam(ann, "Support queue");
    const before = app.smtp!.messages.length;
    const token = await app.invite(ann, team, " Bob@Example.com ", "viewer");
    const mail = app.smtp!.messages.slice(before).find((m) => m.to.includes("bob@example.com"));
    assert.match(mail?.parsed.subject ?? "", /Support queue/);
    assert.match(mail?.parsed.text ?? "", /ann@example\.com invites you to the team Support queue as viewer/);
    assert.equal(count(app.db, "team_invitations", "token_hash = ?", token), 0, "only the token's hash is stored");
    // Not signed in: to sign in, and back here after.
    const away = await app.request("GET", `/teams/join?token=${token}`);
    assert.equal(away.location, `/signin?next=${encodeURIComponent(`/teams/join?token=${token}`)}`);
    const bob = await app.signIn("bob@example.com");
    const page = await app.request("GET", `/teams/join?token=${token}`, { jar: bob });
    assert.equal(page.status, 200);
    assert.deepEqual(JSON.parse(page.body), {
      Team: { ID: team, Name: "Support queue" },
      Inviter: "ann@example.com",
      Address: "bob@example.com",
      Role: "viewer",
      ExpiresAt: new Date(app.clock.now().getTime() + INVITATION_TTL).toISOString(),
    });
    assert.deepEqual(
      app.teams.view(team, "ann@example.com")?.Invitations.map((i) => [i.Address, i.Role, i.Inviter]),
      [["bob@example.com", "viewer", "ann@example.com"]],
    );
  });

  it("answers anyone else the 404 of a forged link, and accepts nothing", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const eve = await app.signIn("eve@example.com");
    const team = await app.createTeam(ann);
    const token = await app.invite(ann, team, "bob@example.com", "member");
    const forged = "A".repeat(43);
    for (const tok of [token, forged, "short"]) {
      assert.equal((await app.request("GET", `/teams/join?token=${tok}`, { jar: eve })).status, 404);
      const refused = await app.post(eve, "/teams/join", { token: tok });
      assert.equal(refused.status, 404);
      assert.match(refused.body, /^404 token:/);
    }
    // Even the inviter cannot spend it.
    assert.equal((await app.post(ann, "/teams/join", { token })).status, 404);
    assert.equal(count(app.db, "team_invitations", "accepted_at IS NOT NULL"), 0);
    assert.equal(count(app.db, "team_members"), 1);
    const bob = await app.signIn("bob@example.com");
    assert.equal((await app.post(bob, "/teams/join", { token })).status, 303);
  });

  it("is single use, revocable by admins, and expires after INVITATION_TTL (7 days)", async (t) => {
    assert.equal(INVITATION_TTL, 7 * 24 * 60 * 60 * 1000);
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const bob = await app.signIn("bob@example.com");
    const cy = await app.signIn("cy@example.com");
    const dee = await app.signIn("dee@example.com");
    const team = await app.createTeam(ann);
    // Used: the second time is a 404.
    const used = await app.invite(ann, team, "bob@example.com", "member");
    assert.equal((await app.post(bob, "/teams/join", { token: used })).status, 303);
    await app.post(bob, `/teams/${team}/leave`);
    assert.equal((await app.post(bob, "/teams/join", { token: used })).status, 404);
    // Revoked.
    const revoked = await app.invite(ann, team, "dee@example.com", "member");
    const id = app.teams.view(team, "ann@example.com")?.Invitations[0]?.ID ?? "";
    assert.equal((await app.post(ann, `/teams/${team}/invitations/revoke`, { invitation: id })).location, `/teams/${team}?revoked=1`);
    assert.equal((await app.post(dee, "/teams/join", { token: revoked })).status, 404);
    assert.equal((await app.post(ann, `/teams/${team}/invitations/revoke`, { invitation: id })).status, 404);
    assert.deepEqual(
      app
        .stream(team)
        .filter((e) => e.type === "team.invitation_revoked")
        .map((e) => [e.subject, e.data["member"]]),
      [["ann@example.com", "dee@example.com"]],
    );
    // Expired: still good a millisecond before INVITATION_TTL, gone at it.
    const late = await app.invite(ann, team, "cy@example.com", "member");
    app.clock.advance(INVITATION_TTL - 1);
    assert.equal((await app.request("GET", `/teams/join?token=${late}`, { jar: cy })).status, 200);
    app.clock.advance(1);
    assert.equal((await app.post(cy, "/teams/join", { token: late })).status, 404);
    assert.equal(app.teams.roleOf(team, "dee@example.com"), undefined);
  });

  it("refuses an address already a member (409), a malformed address or role (400), naming the field; nothing is written", async (t) => {
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const team = await app.createTeam(ann);
    const sent = app.smtp!.messages.length;
    for (const [form, status, field] of [
      [{ email: "ANN@example.com", role: "member" }, 409, "email"],
      [{ email: "not an address", role: "member" }, 400, "email"],
      [{ email: "bob@example.com", role: "boss" }, 400, "role"],
    ] as const) {
      const refused = await app.post(ann, `/teams/${team}/invitations`, form);
      assert.equal(refused.status, status);
      assert.match(refused.body, new RegExp(`^${status} ${field}:`));
    }
    assert.equal(count(app.db, "team_invitations"), 0);
    assert.equal(app.smtp!.messages.length, sent);
  });

  it("limits an inviter to INVITE_LIMITS.PerInviter (10) and a team to PerTeam (20) within an hour; 429 with Retry-After", async (t) => {
    assert.deepEqual(INVITE_LIMITS, { PerTeam: { Max: 20, Window: 3_600_000 }, PerInviter: { Max: 10, Window: 3_600_000 } });
    const app = await startTeamsApp(t);
    const ann = await app.signIn("ann@example.com");
    const ada = await app.signIn("ada@example.com");
    const al = await app.signIn("al@example.com");
    const team = await app.createTeam(ann);
    for (const [jar, who] of [
      [ada, "ada"],
      [al, "al"],
    ] as const) {
      await app.post(jar, "/teams/join", { token: await app.invite(ann, team, `${who}@example.com`, "admin") });
    }
    const send = (jar: typeof ann, n: number) =>
      app.post(jar, `/teams/${team}/invitations`, { email: `p${n}@example.com`, role: "viewer" });
    for (let n = 3; n <= INVITE_LIMITS.PerInviter.Max; n++) assert.equal((await send(ann, n)).status, 303);
    app.clock.advance(60_000);
    const inviter = await send(ann, 99);
    assert.equal(inviter.status, 429);
    assert.equal(inviter.headers["retry-after"], String(3_600_000 / 1000 - 60));
    // Ann's ten and ada's ten are the team's twenty: al is refused although he invited no one.
    for (let n = 1; n <= INVITE_LIMITS.PerInviter.Max; n++) assert.equal((await send(ada, 100 + n)).status, 303);
    const whole = await send(al, 200);
    assert.equal(whole.status, 429);
    assert.match(whole.body, /^429 email: too many invitations/);
    assert.equal(count(app.db, "team_invitations"), INVITE_LIMITS.PerTeam.Max);
    app.clock.advance(3_600_000);
    assert.equal((await send(al, 201)).status, 303);
  });
});
