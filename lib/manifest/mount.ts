/*
 * `mountResource`: a validated `Resource` becomes a working part of the application at boot: its schema steps applied
 * (drift refused), its store, its routes on the mux and its actions as tools in the registry.
 *
 *   GET  <Route>              list (search `q`, filters, sorting, keyset pages)
 *   GET  <Route>.csv          the list as CSV: every page, same query (csv.ts)
 *   GET  <Route>/new          create form
 *   POST <Route>              create            → 303 <Route>/<id>
 *   GET  <Route>/{id}         record, its edit form and its history (changes.ts); /{id}/history?before= its older changes
 *   POST <Route>/{id}         update (carries `version`) → 303 <Route>/<id>?saved=1
 *   POST <Route>/{id}/delete  delete            → 303 <Route>?deleted=1
 *   POST <Route>/bulk         delete, or set one field on, up to BULK_MAX records (bulk.ts) → 303 <Route>?bulk_deleted=<n>
 *   POST <Route>/{id}/files/{field}, GET the same: a File field's upload and download (files.ts)
 *   GET, POST <Route>/import, POST <Route>/import/confirm: the CSV import, with `options.imports` (import.ts)
 *
 * The handlers are in handlers.ts, bulk-form.ts and files.ts, what they share in mount-context.ts.
 * Every route requires a session; the owner is the session subject, or for a TeamScoped resource the team of the path
 * (`{team}`), which the person must be a member of (scope.ts `teamAccess`: 404 otherwise; 403 for a viewer's write).
 * Mutating routes also sit behind cross-origin protection here, whatever the app's `Wrap` does.
 */
import { actingFor } from "./acting.ts";
import { applySchema } from "../db/index.ts";
import { crossOriginProtection, type HandlerFunc } from "../http/index.ts";
import { appStore } from "./app-store.ts";
import { ManifestError } from "./errors.ts";
import { fileHandlers, fileStore, openAttachments } from "./files.ts";
import { attachTool } from "./files-tool.ts";
import { StoreKind } from "./kinds.ts";
import { liveFeed, liveHandler, liveStore, OpenStreams, tellLanded } from "./live.ts";
import { bulkWriter } from "./bulk.ts";
import { bulkHandler } from "./bulk-form.ts";
import { bulkTool } from "./bulk-tool.ts";
import { wording } from "./calls.ts";
import { References } from "./references.ts";
import type { Resource } from "./resource.ts";
import { ruleCheck } from "./rules.ts";
import { resourceSchema } from "./schema.ts";
import { isTeamScoped, viewerRefusal, voidTeamApprovals } from "./scope.ts";
import { exclusiveStore, mergeableStore, type Writer } from "./store.ts";
import { resourceTools, teamArgs } from "./tools.ts";
import { readHandlers, writeHandlers } from "./handlers.ts";
import type { MountOptions, MountedResource } from "./mount-config.ts";
import { mountContext } from "./mount-context.ts";
import { importHandlers } from "./import.ts";
import { importTool } from "./import-tool.ts";

export type { MountOptions, MountedResource, RenderCtx } from "./mount-config.ts";

/**
 * Mounts `resource` (validated here) on `options.mux`: applies its schema, builds its store, registers its routes and
 * tools. Throws `ManifestError` for an invalid resource or no event store, lib/db errors on schema drift, and lib/agent
 * errors when a tool name or route is taken.
 *
 * @example
 * mountResource(expenses, { db, mux, tools: registry, events, origin, requireSession: auth.RequireSession, ctxFrom });
 */
export function mountResource(resource: Resource, options: MountOptions): MountedResource {
  resource.Validate();
  const spec = resource;
  // SPEC §6.2: every change is an event with its actor, so every resource needs the event store.
  if (options.events === undefined) {
    throw new ManifestError("ERR_MANIFEST_INVALID_FIELD", { resource: spec.Name }, "a resource needs MountOptions.events");
  }
  if (isTeamScoped(spec) && options.teams === undefined) {
    throw new ManifestError("ERR_MANIFEST_INVALID_FIELD", { resource: spec.Name }, "a TeamScoped resource needs MountOptions.teams");
  }
  // A Reference's target must be mounted before it on this database (references.ts).
  const refs = new References(options.db, spec, options.events, options.clock);
  const schema = resourceSchema(spec);
  applySchema(options.db, schema);
  // Live pages: every write that lands tells the application's feed, whichever path made it (form, tool, MCP).
  const feed = liveFeed(options.events);
  // README "Rules across fields": weighed by the store in the write's transaction, on the record as it would be stored.
  const rules = ruleCheck(spec, (owner, values) => refs.reader(owner, values));
  const attachments = openAttachments(options.db, spec, options.files);
  const guarded = refs.guard(
    spec.Store === StoreKind.Mergeable
      ? mergeableStore(options.db, spec, options.events, options.clock, rules)
      : exclusiveStore(options.db, spec, options.events, options.clock, rules),
  );
  const store = fileStore(spec, liveStore(spec, guarded, feed), attachments);
  // README "Bulk changes": each record through the guarded store in one transaction; the feed and the attachments hear
  // of them once it committed, as a single write's do.
  const bulkApply = bulkWriter(options.db, spec, guarded, (who, done) => {
    tellLanded(feed, spec, who, done.id, done.change, done.version);
    if (done.change === "deleted") attachments?.removeOf(spec.Name, done.id);
  });
  const route = spec.Route;
  const context = mountContext(spec, options, refs, store);
  const { access, missing, refuse } = context;
  // OWASP ASVS 5.0 §8.2.2: a team resource's request is its member's, as their role allows, before anything is read.
  const gate = (action: "read" | "write", handler: HandlerFunc): HandlerFunc =>
    !isTeamScoped(spec)
      ? handler
      : (req, res) => {
          const allowed = access(req, action);
          if (allowed === 404) return missing(req, res);
          return allowed === 403 ? refuse(req, res, 403, viewerRefusal(spec.Name)) : handler(req, res);
        };
  const { list, exportCSV, blank, read, showList } = readHandlers(context);
  const { create, update, remove } = writeHandlers(context);

  const reading = options.mux.With(options.requireSession);
  // SPEC §4.2 (as for every mutating route): behind CSRF protection, here cross-origin refusal.
  const writing = options.mux.With(crossOriginProtection({ Origin: options.origin }), options.requireSession);
  reading.Handle(`GET ${route}`, gate("read", list));
  reading.Handle(`GET ${route}.csv`, gate("read", exportCSV));
  reading.Handle(`GET ${route}/new`, gate("write", blank));
  writing.Handle(`POST ${route}`, gate("write", create));
  reading.Handle(`GET ${route}/{id}`, gate("read", read));
  // The record's page from an older page of its history (`before`), and the route its history tool is bound to.
  reading.Handle(`GET ${route}/{id}/history`, gate("read", read));
  // More specific than `{id}`, and no id is "events" (ids are 12 base64url characters).
  const open = new OpenStreams();
  reading.Handle(`GET ${route}/events`, gate("read", liveHandler(spec, feed, context.subject, context.owner, open)));
  const bulk = bulkHandler(context, bulkApply, showList);
  writing.Handle(`POST ${route}/bulk`, gate("write", bulk));
  writing.Handle(`POST ${route}/{id}`, gate("write", update));
  writing.Handle(`POST ${route}/{id}/delete`, gate("write", remove));
  const files = attachments === undefined ? undefined : fileHandlers({ ...context, attachments });
  if (files !== undefined) writing.Handle(`POST ${route}/{id}/files/{field}`, gate("write", files.upload));
  if (files !== undefined) reading.Handle(`GET ${route}/{id}/files/{field}`, gate("read", files.download));

  // Application code reads and writes the values the tools give (app-store.ts); the pages and tools keep the stored ones.
  const shown = appStore(spec, store);
  const For = actingFor(spec, store, shown, context.scope, options.label);
  // README "Import": as a bulk change's, imported records go below the feed, which hears of each once its batch committed.
  const writes = {
    store: fileStore(spec, guarded, attachments),
    landed: (who: Writer, id: string, version: number) => tellLanded(feed, spec, who, id, "created", version),
  };
  const importing = options.imports === undefined ? undefined : importHandlers(context, options.imports, writes);
  if (importing !== undefined) {
    reading.Handle(`GET ${route}/import`, gate("write", importing.form));
    writing.Handle(`POST ${route}/import`, gate("write", importing.upload));
    writing.Handle(`POST ${route}/import/confirm`, gate("write", importing.confirm));
  }

  const handlers = { list, read, history: read, create, update, delete: remove };
  const tools = [
    ...resourceTools(spec, store, options.events, handlers, refs, options.label, context.scope),
    bulkTool({ spec, store, refs, scope: context.scope, t: wording(options.label), apply: bulkApply, handler: bulk }),
  ];
  // README "Attachments": agents attach a file through `<name>_attach`, bound to the upload route.
  if (files !== undefined && attachments !== undefined)
    tools.push(attachTool(spec, { ...context, attachments, upload: files.upload, t: wording(options.label) }));
  // README "Import": an agent's import is one approval showing the count and a sample.
  if (importing !== undefined)
    tools.push(
      importTool({
        ...context,
        writes,
        db: options.db,
        t: wording(options.label),
        team: teamArgs(spec),
        route: { route: `${route}/import`, handler: importing.upload },
      }),
    );
  for (const def of tools) options.tools.register(def);
  // OWASP ASVS 5.0 §8.2.2 (issue 38): a member removed, leaving, or whose team is deleted hears nothing more (their streams
  // end), and their agent's writes to the team waiting for approval can no longer be approved (voided).
  if (isTeamScoped(spec))
    options.teams?.onMembershipEnded((team, subject) => {
      open.close(team, subject);
      voidTeamApprovals(options, tools, team, subject);
    });
  return Object.freeze({ Resource: resource, Schema: schema, Store: shown, Tools: tools, For });
}
