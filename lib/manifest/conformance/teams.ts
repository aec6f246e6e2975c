/*
 * Team isolation for a TeamScoped resource's conformance run (issue 38, 7): the suite makes its team as people do,
 * through the application's lib/teams routes and the mailed invitation links, then checks that the one membership
 * check answers every route and tool as README "Team resources" promises.
 */
import assert from "node:assert/strict";
import { humanActor } from "../../agent/index.ts";
import type { Resource } from "../resource.ts";
import type { ConformanceApp, Send } from "./app.ts";

/** A team of a run: its id, its member and viewer (address, Cookie header), and how the member is removed. */
export interface RunTeam {
  id: string;
  member: { address: string; cookie: string };
  viewer: { address: string; cookie: string };
  remove(): Promise<void>;
}

/** The run's team: made by `owner`'s person, with a member and a viewer who accepted their invitations; `remove` ends the member's membership. */
export async function teamFor(app: ConformanceApp, send: Send, owner: string): Promise<RunTeam> {
  const path = app.teamsPath ?? "/teams";
  const made = await send("POST", path, owner, { name: "Conformance" });
  const id = made.headers.location?.slice(path.length + 1) ?? "";
  assert.match(id, /^[A-Za-z0-9_-]+$/, `create a team: POST ${path} answered ${made.status} ${made.headers.location ?? ""}`);
  const join = async (address: string, role: "member" | "viewer"): Promise<string> => {
    const cookie = await app.signIn(address);
    assert.equal((await send("POST", `${path}/${id}/invitations`, owner, { email: address, role })).status, 303, `invite ${address}`);
    if (app.mailedLink === undefined) throw new Error("conformance: a TeamScoped resource needs ConformanceApp.mailedLink");
    const link = new URL(await app.mailedLink(address));
    const accepted = await send("POST", link.pathname, cookie, { token: link.searchParams.get("token") ?? "" });
    assert.equal(accepted.status, 303, `${address} accepts the invitation`);
    return cookie;
  };
  const member = { address: "conformance-cy@example.com", cookie: await join("conformance-cy@example.com", "member") };
  const viewer = { address: "conformance-dee@example.com", cookie: await join("conformance-dee@example.com", "viewer") };
  const remove = async (): Promise<void> => {
    assert.equal((await send("POST", `${path}/${id}/members/remove`, owner, { member: member.address })).status, 303, "remove");
  };
  return { id, member, viewer, remove };
}

/** What one of `resource`'s tools answers `subject` for `args`: 200, or the refusal's status. */
export async function toolStatus(
  app: ConformanceApp,
  resource: Resource,
  action: string,
  subject: string,
  args: Record<string, string>,
): Promise<number> {
  const def = app.tools.get(`${resource.Name}_${action}`);
  try {
    await def?.Run?.({ Args: new Map(Object.entries(args)), Actor: humanActor(), Subject: subject });
    return 200;
  } catch (e) {
    return (e as { status?: number }).status ?? 500;
  }
}
