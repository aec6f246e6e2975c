/*
 * The conformance suite (`latch/manifest/conformance`) on the guide's own
 * resource, as docs/guide.md step 6 tells an application to run it: the
 * guide's `expenses`, mounted by the guide's `mountExpenses`, rendered by
 * its `renderResource` in the starter's layout, in a real application
 * (the runtime's Handler, sign-in over a real SMTP server), checked
 * against the starter's catalogs in the 12 shipped locales.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { NewAssets } from "../../lib/assets/index.ts";
import { Schema as eventsSchema } from "../../lib/events/index.ts";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { describeResourceConformance } from "../../lib/manifest/conformance/index.ts";
import { expenses, mountExpenses, renderResource } from "../../examples/guide/expenses.ts";
import { LOCALES_DIR, STATIC_DIR } from "../../examples/starter/files.ts";
import { startSigninApp } from "../_support/signin-app.ts";

const ORIGIN = "http://guide.test";

/** Starts an application with the guide's resource mounted as its step 6 mounts it. */
async function startApp(): Promise<{
  base: string;
  signIn: (subject: string) => Promise<string>;
  tools: ToolRegistry;
  close: () => Promise<void>;
}> {
  const tools = new ToolRegistry();
  const cleanups: (() => unknown)[] = [];
  // The suite has no TestContext of its own here: the app's cleanups run in close().
  const owner = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as TestContext;
  const app = await startSigninApp(owner, {
    origin: ORIGIN,
    schema: eventsSchema, // as the guide's main.ts merges it
    render: renderResource(NewAssets([STATIC_DIR])),
    extend: (mux, auth, db) => mountExpenses({ db, mux, tools, auth, Origin: ORIGIN }),
  });
  return {
    base: app.base,
    tools,
    signIn: async (subject) => (await app.signIn(subject)).header() ?? "",
    close: async () => {
      for (const fn of cleanups.reverse()) await fn();
    },
  };
}

const catalogs = new Map(
  BaseLocales().map((code) => [code, JSON.parse(readFileSync(join(LOCALES_DIR, `${code}.json`), "utf8")) as Record<string, string>]),
);
describeResourceConformance(expenses, async () => ({ ...(await startApp()), origin: ORIGIN, catalogs }));
