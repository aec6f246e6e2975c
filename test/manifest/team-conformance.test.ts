/*
 * The conformance suite on a TeamScoped resource (issue 38, 7): every case runs inside a team the suite makes through
 * the application's lib/teams routes (the invitations accepted with their mailed links), and team isolation is checked
 * on every route and tool: a stranger and a removed member get 404, a viewer's write 403 with nothing written. It runs
 * on the test's own `tasks` and on the demo's team task list (the starter's `tasks`, the demo's catalogs in 12 locales).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { ROOT } from "../_support/docs.ts";
import { teamApp } from "./conformance-apps.ts";
import { tasks } from "./team-world.ts";
import { tasks as demoTasks } from "../../examples/starter/tasks.ts";

const DEMO_LOCALES = join(ROOT, "examples/demo/locales");
const demoCatalogs = new Map(
  BaseLocales().map((code) => [code, JSON.parse(readFileSync(join(DEMO_LOCALES, `${code}.json`), "utf8")) as Record<string, string>]),
);

describeResourceConformance(tasks, teamApp([tasks]));
describeResourceConformance(demoTasks, teamApp([demoTasks], { catalogs: demoCatalogs }));
