/*
 * A conformance run (README "Conformance"): the application started once for all of a resource's cases, the people
 * and the team it is driven as, the records its references point to, and what the cases do most.
 */
import { isTeamScoped, routeIn } from "../scope.ts";
import type { Resource } from "../resource.ts";
import type { TestContext } from "node:test";
import { expectStatus, expectThat, type Asking } from "./answers.ts";
import { exchange, type ConformanceApp, type Send } from "./app.ts";
import { referencedRecords } from "./references.ts";
import { sample } from "./samples.ts";
import { teamFor, type RunTeam } from "./teams.ts";

/** The ids of the records a list page shows (`data-record-id`). */
export const ids = (body: string): string[] => [...new Set([...body.matchAll(/data-record-id="([^"]+)"/g)].map((m) => m[1] ?? ""))];
/** The version a record's form carries. */
export const versionOf = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";

/**
 * The running application the cases drive, the two people they drive it as (a team resource: inside Ada's team, Bob a
 * stranger), the records its Reference fields point to (made in Ada's scope or team: references.ts), and what they do most.
 */
export interface Run {
  resource: Resource;
  app: ConformanceApp;
  /** Cookie headers of Ada (who makes the records, and the team) and Bob (a stranger to both). */
  ada: string;
  bob: string;
  team: RunTeam | undefined;
  /** The resource's route (in the team, for a TeamScoped one). */
  route: string;
  send: Send;
  /** A valid value for every field, the resource's comparison rules holding: the form a create or an update posts, `tag` in its texts. */
  fill(tag: string): Record<string, string>;
  /** The ids the list shows the person of `cookie`. */
  listed(cookie: string): Promise<string[]>;
}

/** Starts the run of `resource` on the started `app`: signs its people in, makes its team and its referenced records. */
export async function startRun(resource: Resource, app: ConformanceApp): Promise<Run> {
  const send: Send = (method, path, cookie, form, origin = app.origin) => {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers: Record<string, string> = { Cookie: cookie, "Accept-Language": "en" };
    if (method !== "GET") headers["Origin"] = origin;
    if (body !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
    return exchange(app.base, method, path, headers, body);
  };
  const [ada, bob] = [await app.signIn("conformance-ada@example.com"), await app.signIn("conformance-bob@example.com")];
  const team = isTeamScoped(resource) ? await teamFor(app, send, ada) : undefined;
  const route = team === undefined ? resource.Route : routeIn(resource, team.id);
  const refs = await referencedRecords({ app, send, cookie: ada, team: team?.id }, resource.Name, resource.Form.Fields);
  return {
    resource,
    app,
    ada,
    bob,
    team,
    route,
    send,
    fill: (tag) => sample(resource.Form.Fields, tag, refs, resource.Rules),
    listed: async (cookie) => ids((await send("GET", route, cookie)).body),
  };
}

/** A run as one case drives it: the run, and the case's name for its messages. */
export type Case = Run & { asking: Asking };

/** What a case awaits first: its run. */
export type Ready = (t: TestContext) => Promise<Case>;

/** Creates a record of `fill(tag)` values as the person of `cookie`; returns its id. */
export async function created(c: Case, cookie: string, tag: string): Promise<string> {
  const form = c.fill(tag);
  const res = await c.send("POST", c.route, cookie, form);
  expectStatus(c.asking, res, 303, `create: POST ${c.route} with ${given(form)}`);
  const id = res.headers.location?.slice(c.route.length + 1) ?? "";
  expectThat(
    c.asking,
    /^[A-Za-z0-9_-]+$/.test(id),
    `create: POST ${c.route} redirected to ${res.headers.location}, not to ${c.route}/<id>`,
  );
  return id;
}

/** The fields of a form as a message names them: name="value", each. */
export function given(form: Record<string, string>): string {
  const fields = Object.entries(form).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return fields.length === 0 ? "no fields" : fields.join(", ");
}
