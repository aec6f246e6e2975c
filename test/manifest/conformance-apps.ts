/*
 * Applications the conformance suite is run on in these tests: resources mounted in order (a reference's target
 * first) in the sign-in harness (the runtime's Handler, real sign-in over SMTP), or in the teams harness for
 * TeamScoped ones, with catalogs holding every label of the resources in the 12 base locales.
 */
import type { TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import * as events from "../../lib/events/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { ctxFrom, type RenderFunc } from "../../lib/index.ts";
import type { ConformanceApp } from "../../lib/manifest/conformance/index.ts";
import { isResourceView, mountResource, resourceSchema, type Resource } from "../../lib/manifest/index.ts";
import { startSigninApp } from "../_support/signin-app.ts";
import { ORIGIN, startTeamsApp } from "../teams/harness.ts";

/** Renders a resource page bare: its title and body. */
export const render: RenderFunc = (_req, res, _view, data) => {
  if (!isResourceView(data)) throw new Error("test render: not a resource view");
  res.statusCode = data.Status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(`<!doctype html><title>${data.Title}</title>${data.Body.toString()}`);
};

/** Catalogs in every base locale holding every label of `resources` (title, new, fields, help, choices). */
export function catalogsOf(resources: readonly Resource[]): Map<string, Record<string, string>> {
  const keys = resources.flatMap((r) => [
    `${r.Name}.title`,
    `${r.Name}.new`,
    ...r.Form.Fields.flatMap((f) => [f.Label, ...(f.Help ? [f.Help] : []), ...(f.Choices ?? []).map((c) => c.Label)]),
  ]);
  return new Map(BaseLocales().map((code) => [code, Object.fromEntries(keys.map((k) => [k, `${code} ${k}`]))]));
}

/** Options of the applications. */
export interface AppOptions {
  /** The resources whose tools go to a registry of their own (not the one the suite reads). */
  apartTools?: readonly string[];
  /** The catalogs the suite checks. @default catalogsOf(resources) */
  catalogs?: Map<string, Record<string, string>>;
}

// The suite has no TestContext of its own: the app's cleanups run in its close().
function cleanupOwner(): { owner: TestContext; cleanup: () => Promise<void> } {
  const cleanups: (() => unknown)[] = [];
  const owner = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as TestContext;
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) await fn();
  };
  return { owner, cleanup };
}

/** A `start` for the suite: an application with `resources` mounted in order (owner-scoped or unscoped). */
export function ownerApp(resources: readonly Resource[], options: AppOptions = {}): () => Promise<ConformanceApp> {
  const origin = "http://conformance.test";
  return async () => {
    const tools = new ToolRegistry();
    const { owner, cleanup } = cleanupOwner();
    const app = await startSigninApp(owner, {
      render,
      schema: [...events.Schema, ...resources.flatMap((r) => resourceSchema(r))],
      origin,
      extend: (mux, auth, db) => {
        const store = new EventStore(db);
        for (const resource of resources) {
          const registry = options.apartTools?.includes(resource.Name) === true ? new ToolRegistry() : tools;
          mountResource(resource, { db, mux, tools: registry, events: store, origin, requireSession: auth.RequireSession, ctxFrom });
        }
      },
    });
    return {
      base: app.base,
      origin: app.origin,
      tools,
      catalogs: options.catalogs ?? catalogsOf(resources),
      signIn: async (subject) => (await app.signIn(subject)).header() ?? "",
      close: async () => {
        await app.closeApp();
        await cleanup();
      },
    };
  };
}

/** A `start` for the suite: the teams harness with the TeamScoped (or unscoped) `resources` mounted in order. */
export function teamApp(resources: readonly Resource[], options: AppOptions = {}): () => Promise<ConformanceApp> {
  return async () => {
    const tools = new ToolRegistry();
    const { owner, cleanup } = cleanupOwner();
    const app = await startTeamsApp(owner, {
      render,
      schema: resources.flatMap((r) => resourceSchema(r)),
      mount: (mux, auth, db, events, teams) => {
        for (const resource of resources) {
          mountResource(resource, { db, mux, tools, events, origin: ORIGIN, requireSession: auth.RequireSession, ctxFrom, teams });
        }
      },
    });
    return {
      base: app.base,
      origin: ORIGIN,
      tools,
      catalogs: options.catalogs ?? catalogsOf(resources),
      signIn: async (subject) => (await app.signIn(subject)).header() ?? "",
      // The invitation mailed over SMTP: each address of the run is invited once.
      mailedLink: async (address) => {
        const mail = await app.smtp!.waitForMessage((m) => m.to.includes(address) && /\/teams\/join\?token=/.test(m.parsed.text ?? ""));
        return /https?:\/\/\S+\/teams\/join\?token=[A-Za-z0-9_-]+/.exec(mail.parsed.text ?? "")?.[0] ?? "";
      },
      close: async () => {
        await app.closeApp();
        await cleanup();
      },
    };
  };
}
