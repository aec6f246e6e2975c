/*
 * The conformance suite an application runs on its own mounted resources with `node --test` (README "Conformance"):
 * node:test cases that drive the application over HTTP as two people and check what the contract promises. It lives
 * in its own package entry, `latch/manifest/conformance`, never loaded at runtime.
 */
import assert from "node:assert/strict";
import { after, describe, it, type TestContext } from "node:test";
import { isOwned, isTeamScoped } from "../scope.ts";
import type { Resource } from "../resource.ts";
import { expectStatus, expectThat, prefix } from "./answers.ts";
import type { ConformanceApp } from "./app.ts";
import { inputCases, ruleCase, writeCases } from "./cases.ts";
import { created, ids, startRun, versionOf, type Case, type Ready, type Run } from "./run.ts";
import { toolStatus } from "./teams.ts";

/**
 * Registers the conformance cases of `resource` (mounted in the app that
 * `start` returns). Call it at the top level of a test file.
 *
 * @example
 * describeResourceConformance(expenses, async () => ({ base, origin, signIn, tools, catalogs }));
 */
export function describeResourceConformance(resource: Resource, start: () => Promise<ConformanceApp>): void {
  describe(`resource ${resource.Name} (conformance)`, () => {
    let started: ConformanceApp | undefined;
    let running: Promise<Run> | undefined;
    // Started once, by the first case that runs (none, when every case is filtered out): a start that failed (a sign-in,
    // a referenced record) fails every case with its reason, and `started` is closed even then.
    const ready = async (t: TestContext): Promise<Case> => {
      const asking = { resource: resource.Name, case: t.name };
      running ??= (async () => startRun(resource, (started = await start())))();
      try {
        return { ...(await running), asking };
      } catch (e) {
        return assert.fail(`${prefix(asking)}: the run did not start: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
    after(async () => started?.close?.());
    scopeCase(resource, ready);
    if (isTeamScoped(resource)) teamCase(resource, ready);
    inputCases(resource, ready);
    ruleCase(resource, ready);
    writeCases(resource, ready);
  });
}

// Always run: a resource names its Scope (docs/spec.md §2.5), and each scope promises something checkable.
function scopeCase(resource: Resource, ready: Ready): void {
  if (!isOwned(resource) && !isTeamScoped(resource)) {
    it("shares every record: unscoped means every signed-in person lists and reads another's record", async (t) => {
      const c = await ready(t);
      const { route, ada, bob, send, listed, asking } = c;
      const id = await created(c, ada, "shared");
      expectThat(asking, (await listed(ada)).includes(id), `record ${id} is missing from its creator's list, GET ${route}`);
      expectThat(asking, (await listed(bob)).includes(id), `record ${id} is missing from the other person's list, GET ${route}`);
      expectStatus(asking, await send("GET", `${route}/${id}`, bob), 200, `the other person reads it: GET ${route}/${id}`);
    });
    return;
  }
  it("isolates owners: another person cannot list, read, edit, delete or reference a record (the same 404 as an unknown id)", async (t) => {
    const c = await ready(t);
    const { route, ada, bob, send, listed, asking } = c;
    const id = await created(c, ada, "isolation");
    const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
    expectThat(asking, (await listed(ada)).includes(id), `record ${id} is missing from its owner's list, GET ${route}`);
    expectThat(asking, !(await listed(bob)).includes(id), `record ${id} is in another person's list, GET ${route}`);
    const unknown = "AAAAAAAAAAAA";
    for (const [method, path, form] of [
      ["GET", `${route}/${id}`, undefined],
      ["POST", `${route}/${id}`, { ...c.fill("taken"), version }],
      ["POST", `${route}/${id}/delete`, {}],
    ] as const) {
      const foreign = await send(method, path, bob, form);
      expectStatus(asking, foreign, 404, `another person's ${method} ${path}`);
      const missing = path.replace(id, unknown);
      expectStatus(asking, await send(method, missing, bob, form), 404, `${method} ${missing} (an unknown id)`);
      expectThat(asking, !foreign.body.includes(id), `another person's ${method} ${path}: the answer echoes the id`);
    }
    const own = await send("GET", `${route}/${id}`, ada);
    expectStatus(asking, own, 200, `its owner reads it again: GET ${route}/${id}`);
    expectThat(
      asking,
      versionOf(own.body) === version,
      `another person's writes changed record ${id} (version ${version} → ${versionOf(own.body)})`,
    );
  });
}

// A team's records answer its members as their role allows (README "Team resources"); others get an unknown id's 404.
function teamCase(resource: Resource, ready: Ready): void {
  const actions = ["list", "read", "create", "update", "delete"];
  it("isolates teams: a stranger and a removed member get 404 on every route and tool, a viewer's write 403, a member writes", async (t) => {
    const c = await ready(t);
    const { app, route, ada, bob, send, listed, team, asking } = c;
    const { member, viewer, remove } = team!;
    const id = await created(c, ada, "team");
    const mine = await created(c, member.cookie, "member");
    const seen = await send("GET", route, member.cookie);
    expectThat(asking, ids(seen.body).includes(mine), `a member's record ${mine} is missing from the team's list`, seen);
    const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
    const form = { ...c.fill("taken"), version };
    const writes: [string, string, Record<string, string>?][] = [
      ["GET", `${route}/new`],
      ["POST", route, form],
      ["POST", `${route}/${id}`, form],
      ["POST", `${route}/${id}/delete`, {}],
    ];
    const routes = [
      ["GET", route],
      ["GET", `${route}.csv`],
      ["GET", `${route}/${id}`],
      ["GET", `${route}/events`],
      ...writes,
    ] as typeof writes;
    // A list or create names no record: a stranger's call is refused for the team alone, before its other arguments are read.
    const args = (action: string) => (action === "list" || action === "create" ? { team: team!.id } : { team: team!.id, id, version });
    const before = await listed(ada);
    const refused = async (cookie: string, subject: string, status: number, tried: typeof writes, tools: string[]) => {
      for (const [method, path, body] of tried)
        expectStatus(asking, await send(method, path, cookie, body), status, `${subject}: ${method} ${path}`);
      for (const action of tools) {
        const got = await toolStatus(app, resource, action, subject, args(action));
        expectThat(asking, got === status, `${subject}: the ${resource.Name}_${action} tool answered ${got}, expected ${status}`);
      }
    };
    await refused(bob, "conformance-bob@example.com", 404, routes, actions);
    await refused(viewer.cookie, viewer.address, 403, writes, actions.slice(2));
    await remove();
    await refused(member.cookie, member.address, 404, routes, actions);
    expectThat(asking, JSON.stringify(await listed(ada)) === JSON.stringify(before), "refused writes changed the team's list");
    expectThat(asking, versionOf((await send("GET", `${route}/${id}`, ada)).body) === version, `refused writes changed record ${id}`);
  });
}
