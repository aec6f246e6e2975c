/*
 * The conformance suite on a TeamScoped resource (issue 38, 7): every case runs inside a team the suite makes through
 * the application's lib/teams routes (the invitations accepted with their mailed links), and team isolation is checked
 * on every route and tool: a stranger and a removed member get 404, a viewer's write 403 with nothing written. It runs
 * on the test's own `tasks` and on the demo's team task list (the starter's `tasks`, the demo's catalogs in 12 locales).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { isResourceView, mountResource, resourceSchema, type Resource } from "../../lib/manifest/index.ts";
import type { RenderFunc } from "../../lib/index.ts";
import { ORIGIN, startTeamsApp } from "../teams/harness.ts";
import { ROOT } from "../_support/docs.ts";
import { tasks } from "./team-world.ts";
import { tasks as demoTasks } from "../../examples/starter/tasks.ts";

const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};
const labels = ["tasks.title", "tasks.new", "tasks.done"];
const catalogs = new Map(BaseLocales().map((code) => [code, Object.fromEntries(labels.map((k) => [k, `${code} ${k}`]))]));
const DEMO_LOCALES = join(ROOT, "examples/demo/locales");
const demoCatalogs = new Map(
  BaseLocales().map((code) => [code, JSON.parse(readFileSync(join(DEMO_LOCALES, `${code}.json`), "utf8")) as Record<string, string>]),
);

for (const [resource, labelled] of [
  [tasks, catalogs],
  [demoTasks, demoCatalogs],
] as const)
  conformance(resource, labelled);

function conformance(tasks: Resource, catalogs: Map<string, Record<string, string>>): void {
  describeResourceConformance(tasks, async () => {
    const tools = new ToolRegistry();
    const cleanups: (() => unknown)[] = [];
    // The suite has no TestContext of its own here: the app's cleanups run in its close().
    const owner = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as TestContext;
    const app = await startTeamsApp(owner, {
      render,
      schema: resourceSchema(tasks),
      mount: (mux, auth, db, events, teams) => {
        mountResource(tasks, { db, mux, tools, events, origin: ORIGIN, requireSession: auth.RequireSession, ctxFrom, teams });
      },
    });
    return {
      base: app.base,
      origin: ORIGIN,
      tools,
      catalogs,
      signIn: async (subject) => (await app.signIn(subject)).header() ?? "",
      // The invitation mailed over SMTP: each address of the run is invited once.
      mailedLink: async (address) => {
        const mail = await app.smtp!.waitForMessage((m) => m.to.includes(address) && /\/teams\/join\?token=/.test(m.parsed.text ?? ""));
        return /https?:\/\/\S+\/teams\/join\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
      },
      close: async () => {
        await app.closeApp();
        for (const fn of cleanups.reverse()) await fn();
      },
    };
  });
}
