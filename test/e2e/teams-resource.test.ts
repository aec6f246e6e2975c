/*
 * Issue 38 judged as a black box on the demo (`node dist/examples/demo/main.js`,
 * real SMTP, HTTP as a browser sends it): Ada creates a team and invites
 * Bob by email; Bob accepts through the emailed link; both see and edit
 * the team's tasks (`/teams/{team}/tasks`), each change attributed to its
 * author; Carol, in no team, gets 404 on every team route and tool, and a
 * forged invitation accepts nothing; Vera, a viewer, reads but cannot
 * write; a task Ada adds is told on Bob's open live stream, and removing
 * Bob ends that stream and his agent's access at once; the last owner
 * cannot leave. Nothing is written on a refusal.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { mintAgentToken, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar, type TestResponse } from "../_support/http-client.ts";

const versionIn = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";
const idsIn = (body: string): string[] => [...new Set([...body.matchAll(/data-record-id="([^"]+)"/g)].map((m) => m[1] ?? ""))];

describe("a team's shared tasks on the demo (issue 38)", () => {
  let demo: Demo;
  let db: Database.Database;
  const jars = new Map<string, CookieJar>();
  const as = (name: string): CookieJar => jars.get(name) ?? assert.fail(`${name} is not signed in`);
  const get = (who: string, path: string): Promise<TestResponse> => sendRequest(demo.origin, "GET", path, { jar: as(who) }, demo.origin);
  const post = (who: string, path: string, form: Record<string, string>): Promise<TestResponse> =>
    sendRequest(demo.origin, "POST", path, { jar: as(who), form }, demo.origin);
  const tokens = new Map<string, string>();
  const call = (who: string, tool: string, args: Record<string, unknown>): Promise<TestResponse> =>
    sendRequest(
      demo.origin,
      "POST",
      `/api/tools/${tool}`,
      { headers: { Authorization: `Bearer ${tokens.get(who) ?? ""}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
      demo.origin,
    );
  const count = (sql: string, ...params: unknown[]): number => (db.prepare(sql).get(...params) as { n: number }).n;
  let team = "";
  let task = "";

  /** `inviter` invites `address` with `role`; the invited person opens the emailed link and accepts. */
  async function inviteAndAccept(inviter: string, invited: string, role: string): Promise<void> {
    const before = demo.smtp.messages.length;
    const address = `${invited}@example.com`;
    assert.equal((await post(inviter, `/teams/${team}/invitations`, { email: address, role })).location, `/teams/${team}?invited=1`);
    const mail = await demo.smtp.waitForMessage(
      (m) => demo.smtp.messages.indexOf(m) >= before && m.to.includes(address) && /\/teams\/join\?token=/.test(m.parsed.text ?? ""),
    );
    const link = /\/teams\/join\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? assert.fail("no invitation link");
    const page = await get(invited, link);
    assert.equal(page.status, 200);
    assert.match(page.body, /Workshop/);
    assert.match(page.body, new RegExp(`${inviter}@example\\.com`));
    const token = new URL(link, demo.origin).searchParams.get("token") ?? "";
    assert.equal((await post(invited, "/teams/join", { token })).location, `/teams/${team}?joined=1`);
  }

  before(async () => {
    demo = await startDemo();
    for (const name of ["ada", "bob", "carol", "vera"]) jars.set(name, await signInOverHTTP(demo, `${name}@example.com`));
    for (const name of ["bob", "carol"]) tokens.set(name, await mintAgentToken(demo, as(name), `${name}-agent`, "write"));
    db = new Database(join(demo.stateDir, "demo.db"), { readonly: true });
  });
  after(async () => {
    db?.close();
    await demo?.close();
  });

  it("Ada creates a team; Bob (member) and Vera (viewer) join through the emailed links", async () => {
    const created = await post("ada", "/teams", { name: "Workshop" });
    team = /^\/teams\/([A-Za-z0-9_-]{12})$/.exec(created.location ?? "")?.[1] ?? assert.fail(`POST /teams: ${created.status}`);
    assert.match((await get("ada", `/teams/${team}`)).body, new RegExp(`href="/teams/${team}/tasks" data-team-tasks`));
    await inviteAndAccept("ada", "bob", "member");
    await inviteAndAccept("ada", "vera", "viewer");
    const members = db.prepare("SELECT subject, role FROM team_members WHERE team = ? ORDER BY subject").all(team);
    assert.deepEqual(members, [
      { subject: "ada@example.com", role: "owner" },
      { subject: "bob@example.com", role: "member" },
      { subject: "vera@example.com", role: "viewer" },
    ]);
  });

  it("both see and edit the team's tasks, each change attributed to its author", async () => {
    const created = await post("ada", `/teams/${team}/tasks`, { title: "Sharpen the chisels" });
    task =
      new RegExp(`^/teams/${team}/tasks/([A-Za-z0-9_-]+)$`).exec(created.location ?? "")?.[1] ?? assert.fail(`create: ${created.status}`);
    assert.deepEqual(idsIn((await get("bob", `/teams/${team}/tasks`)).body), [task]);
    const record = await get("bob", `/teams/${team}/tasks/${task}`);
    assert.equal(record.status, 200);
    const edited = await post("bob", `/teams/${team}/tasks/${task}`, {
      version: versionIn(record.body),
      title: "Sharpen the chisels",
      done: "1",
      assignee: "bob@example.com",
    });
    assert.equal(edited.status, 303, edited.body);
    assert.deepEqual(db.prepare("SELECT team, title, done, assignee FROM tasks WHERE id = ?").get(task), {
      team,
      title: "Sharpen the chisels",
      done: 1,
      assignee: "bob@example.com",
    });
    const history = db.prepare("SELECT type, actor, subject FROM events WHERE stream = ? ORDER BY seq").all(`tasks:${task}`);
    assert.deepEqual(history, [
      { type: "tasks.created", actor: "human", subject: "ada@example.com" },
      { type: "tasks.updated", actor: "human", subject: "bob@example.com" },
    ]);
    assert.match((await get("ada", `/teams/${team}/tasks`)).body, new RegExp(`data-record-id="${task}"`));
  });

  it("gives Carol, in no team, the 404 of an unknown id on every team route and tool, and a forged invitation accepts nothing", async () => {
    const tasksBefore = count("SELECT count(*) AS n FROM tasks");
    const base = `/teams/${team}`;
    for (const path of [
      base,
      `${base}/delete`,
      `${base}/tasks`,
      `${base}/tasks.csv`,
      `${base}/tasks/new`,
      `${base}/tasks/${task}`,
      `${base}/tasks/events`,
    ])
      assert.equal((await get("carol", path)).status, 404, `GET ${path}`);
    const writes: [string, Record<string, string>][] = [
      [`${base}/tasks`, { title: "Intrude" }],
      [`${base}/tasks/${task}`, { version: "1", title: "Intrude" }],
      [`${base}/tasks/${task}/delete`, {}],
      [`${base}/rename`, { name: "Mine" }],
      [`${base}/invitations`, { email: "carol@example.com", role: "owner" }],
      [`${base}/leave`, {}],
    ];
    for (const [path, form] of writes) assert.equal((await post("carol", path, form)).status, 404, `POST ${path}`);
    for (const [tool, args] of [
      ["tasks_list", { team }],
      ["tasks_read", { team, id: task }],
      ["tasks_create", { team, title: "Intrude" }],
      ["tasks_delete", { team, id: task }],
    ] as const)
      assert.equal((await call("carol", tool, args)).status, 404, tool);
    for (const token of ["forged-token-forged-token-forged-token-0000", ""]) {
      assert.equal((await get("carol", `/teams/join?token=${token}`)).status, 404);
      assert.equal((await post("carol", "/teams/join", { token })).status, 404);
    }
    assert.equal(count("SELECT count(*) AS n FROM tasks"), tasksBefore);
    assert.equal(count("SELECT count(*) AS n FROM team_members WHERE subject = 'carol@example.com'"), 0);
  });

  it("lets Vera, a viewer, read the tasks but not write them (403, nothing stored)", async () => {
    assert.deepEqual(idsIn((await get("vera", `/teams/${team}/tasks`)).body), [task]);
    const record = await get("vera", `/teams/${team}/tasks/${task}`);
    assert.equal(record.status, 200);
    const before = db.prepare("SELECT * FROM tasks WHERE id = ?").get(task);
    assert.equal((await post("vera", `/teams/${team}/tasks`, { title: "Viewer's" })).status, 403);
    assert.equal((await post("vera", `/teams/${team}/tasks/${task}`, { version: versionIn(record.body), title: "Viewer's" })).status, 403);
    assert.equal((await post("vera", `/teams/${team}/tasks/${task}/delete`, {})).status, 403);
    assert.deepEqual(db.prepare("SELECT * FROM tasks WHERE id = ?").get(task), before);
    assert.equal(count("SELECT count(*) AS n FROM tasks WHERE team = ?", team), 1);
  });

  // The timeout bounds only a regression's hang (a stream left open), never a measurement.
  it(
    "ends Bob's open live stream, his agent's access and his pending approval the moment he is removed",
    { timeout: 120_000 },
    async () => {
      assert.equal((await call("bob", "tasks_list", { team })).status, 200);
      const stream = await new Promise<import("node:http").IncomingMessage>((resolve, reject) => {
        const req = request(
          `${demo.origin}/teams/${team}/tasks/events`,
          { headers: { Cookie: as("bob").header() ?? "", Accept: "text/event-stream" } },
          resolve,
        );
        req.on("error", reject);
        req.end();
      });
      assert.equal(stream.statusCode, 200);
      assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
      // Bob's agent asks to write a task: it waits for Bob's approval.
      const asked = await call("bob", "tasks_create", { team, title: "Plane the edge" });
      assert.equal(asked.status, 202, asked.body);
      const approvalPath = new URL((JSON.parse(asked.body) as { approval_url: string }).approval_url).pathname;
      let received = "";
      let open = true;
      const ended = new Promise<void>((resolve) =>
        stream.on("close", () => {
          open = false;
          resolve();
        }),
      );
      // The stream is open: its first bytes (`retry:`) arrived and it did not end.
      await new Promise<void>((resolve) => stream.once("data", (chunk: Buffer) => resolve(void (received += chunk.toString()))));
      assert.match(received, /^retry: /m);
      assert.equal(open, true);
      const heard = new Promise<void>((resolve) =>
        stream.on("data", (chunk: Buffer) => {
          received += chunk.toString();
          if (/^event: change$/m.test(received)) resolve();
        }),
      );
      // Ada's new task is told on Bob's open stream: the audience of a team's records is the team.
      const added = await post("ada", `/teams/${team}/tasks`, { title: "Oil the plane" });
      const addedID = /\/tasks\/([A-Za-z0-9_-]+)$/.exec(added.location ?? "")?.[1] ?? assert.fail(`create: ${added.status}`);
      await heard;
      assert.match(received, new RegExp(`"id":"${addedID}","change":"created"`));
      assert.equal(
        (await post("ada", `/teams/${team}/members/remove`, { member: "bob@example.com" })).location,
        `/teams/${team}?removed=1`,
      );
      await ended; // the server closed it: no timer waits for it
      assert.equal((await call("bob", "tasks_list", { team })).status, 404);
      assert.equal((await call("bob", "tasks_read", { team, id: task })).status, 404);
      assert.equal((await get("bob", `/teams/${team}/tasks`)).status, 404);
      assert.equal((await get("bob", `/teams/${team}/tasks/${task}`)).status, 404);
      // The approval Bob had pending for the team is voided: its page says so, approving it writes nothing.
      const id = approvalPath.split("/").pop() ?? "";
      assert.equal((db.prepare("SELECT status FROM agent_approvals WHERE id = ?").get(id) as { status: string }).status, "voided");
      assert.match((await get("bob", approvalPath)).body, /data-outcome="voided"/);
      assert.match((await post("bob", approvalPath, { decision: "approve" })).body, /data-outcome="voided"/);
      assert.equal(count("SELECT count(*) AS n FROM tasks WHERE title = ?", "Plane the edge"), 0);
    },
  );

  it("refuses the last owner's leaving (409 last_owner), the team and its tasks untouched", async () => {
    const refused = await post("ada", `/teams/${team}/leave`, {});
    assert.equal(refused.status, 409);
    assert.match(refused.body, /data-refusal="last_owner"/);
    assert.equal(count("SELECT count(*) AS n FROM team_members WHERE team = ? AND subject = 'ada@example.com'", team), 1);
    assert.equal(count("SELECT count(*) AS n FROM tasks WHERE team = ?", team), 2);
  });
});
