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
 *
 * Every route requires a session; the owner is the session subject, or for a TeamScoped resource the team of the path
 * (`{team}`), which the person must be a member of (scope.ts `teamAccess`: 404 otherwise; 403 for a viewer's write).
 * Mutating routes also sit behind cross-origin protection here, whatever the app's `Wrap` does.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { actingFor } from "./acting.ts";
import { actorFrom, isCredentialEnded, subjectFrom } from "../agent/index.ts";
import { applySchema } from "../db/index.ts";
import {
  crossOriginProtection,
  html,
  HTTPError,
  NewRef,
  queryParams,
  readForm,
  seeOther,
  type HandlerFunc,
  type SafeHTML,
} from "../http/index.ts";
import { admitDownload, credentialHeld, MAX_DOWNLOADS_PER_PERSON, writeErrorPage } from "../internal/index.ts";
import { LocaleFrom, T, Tf } from "../i18n/index.ts";
import { PathValue } from "../router/index.ts";
import { appStore } from "./app-store.ts";
import { writeCSV } from "./csv.ts";
import { CURSOR_RULE, parseCursor } from "./changes.ts";
import { ManifestError } from "./errors.ts";
import { fileHandlers, fileStore, filesHTML, openAttachments } from "./files.ts";
import { recordSectionsHTML } from "./history-view.ts";
import { StoreKind } from "./kinds.ts";
import { listHTML, parseListRequest, type ListReferences } from "./list.ts";
import { LIVE_POLL_SECONDS, liveFeed, liveHandler, liveNoticesHTML, liveStore, OpenStreams } from "./live.ts";
import { recordName, RecordReferenced, ReferenceRefused, References } from "./references.ts";
import type { Resource } from "./resource.ts";
import { ruleCheck, RuleRefused } from "./rules.ts";
import { resourceSchema } from "./schema.ts";
import { isTeamScoped, requestScope, routeIn, viewerRefusal, voidTeamApprovals } from "./scope.ts";
import { exclusiveStore, mergeableStore, type RecordStore, type UpdateOutcome, type Writer } from "./store.ts";
import { busyMessage, resourceTools } from "./tools.ts";
import { parseValues, hasUndeclaredName, type FieldProblem, type RecordValues } from "./values.ts";
import { enteredHTML, formHTML, inputValue, noticeHTML, type FormState, type ResourceView } from "./views.ts";

import type { MountOptions, MountedResource, RenderCtx } from "./mount-config.ts";

export type { MountOptions, MountedResource, RenderCtx } from "./mount-config.ts";

type Page = Omit<ResourceView, "Resource" | "Scripts">;

/** What a form shows, before its action and button. */
type FormInput = Omit<FormState, "action" | "submit">;

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
  const live = liveStore(
    spec,
    refs.guard(
      spec.Store === StoreKind.Mergeable
        ? mergeableStore(options.db, spec, options.events, options.clock, rules)
        : exclusiveStore(options.db, spec, options.events, options.clock, rules),
    ),
    feed,
  );
  const store = fileStore(spec, live, attachments);
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
  const { list, exportCSV, blank, read } = readHandlers(context);
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
  writing.Handle(`POST ${route}/{id}`, gate("write", update));
  writing.Handle(`POST ${route}/{id}/delete`, gate("write", remove));
  const files = attachments === undefined ? undefined : fileHandlers({ ...context, attachments });
  if (files !== undefined) writing.Handle(`POST ${route}/{id}/files/{field}`, gate("write", files.upload));
  if (files !== undefined) reading.Handle(`GET ${route}/{id}/files/{field}`, gate("read", files.download));

  const handlers = { list, read, history: read, create, update, delete: remove };
  const tools = resourceTools(spec, store, options.events, handlers, refs, options.label, context.scope);
  for (const def of tools) options.tools.register(def);
  // OWASP ASVS 5.0 §8.2.2 (issue 38): a member removed, leaving, or whose team is deleted hears nothing more (their streams
  // end), and their agent's writes to the team waiting for approval can no longer be approved (voided).
  if (isTeamScoped(spec))
    options.teams?.onMembershipEnded((team, subject) => {
      open.close(team, subject);
      voidTeamApprovals(options, tools, team, subject);
    });
  // Application code reads and writes the values the tools give (app-store.ts); the pages and tools keep the stored ones.
  const shown = appStore(spec, store);
  const For = actingFor(spec, store, shown, context.scope, options.label);
  return Object.freeze({ Resource: resource, Schema: schema, Store: shown, Tools: tools, For });
}

/** What a resource's handlers share: its store, who is asking, and its pages. */
function mountContext(spec: Resource, options: MountOptions, refs: References, store: RecordStore) {
  // SPEC §7: a generated action with nil Render answers a logged 500 (recoverPanics logs it with a reference).
  const renderer = (req: IncomingMessage): NonNullable<RenderCtx["Render"]> => {
    const render = options.ctxFrom(req)?.Render;
    if (render === undefined) throw new HTTPError("ERR_HTTP_NO_RENDER", `resource ${spec.Name}: Ctx.Render is not set`);
    return render;
  };
  const show = async (req: IncomingMessage, res: ServerResponse, page: Page): Promise<void> => {
    if (page.Status !== 200) res.statusCode = page.Status;
    // The list and a record follow their changes (live.js); the new-record form has nothing to follow.
    const view: ResourceView = { Resource: spec.Name, ...page, Scripts: page.View === "new" ? [] : ["live.js"] };
    await renderer(req)(req, res, `resource.${page.View}`, view);
  };
  // As the runtime's writeError (this module sits below the runtime, so both answer through lib/internal's writeErrorPage).
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, message: string): void =>
    writeErrorPage(req, res, status, `${status} ${message}`, options.ctxFrom(req), NewRef());
  // SPEC §7: another owner's record and an unknown id are the same 404.
  const missing = (req: IncomingMessage, res: ServerResponse): void => refuse(req, res, 404, `${spec.Name}: no such record`);
  const who = asking(spec, options);
  const { owner, at } = who;
  const events = options.events as NonNullable<MountOptions["events"]>;
  // A write whose session ended while it ran is answered by the app's session gate, as an expired session is (the
  // failed check unbound the request's session): a redirect to sign in, or 401.
  const ended = (req: IncomingMessage, res: ServerResponse): void | Promise<void> =>
    options.requireSession(() => refuse(req, res, 401, "unauthorized: sign in again"))(req, res);
  const entered = (form: URLSearchParams): Map<string, string> => new Map(spec.Form.Fields.map((f) => [f.Name, form.get(f.Name) ?? ""]));
  // A form showing `values` as stored, at `version`.
  const stored = (req: IncomingMessage, values: RecordValues, version: number): FormInput => ({
    entered: new Map(spec.Form.Fields.map((f) => [f.Name, inputValue(req, f, values[f.Name] ?? null)])),
    errors: new Map(),
    version,
  });
  const newForm = (req: IncomingMessage, state: FormInput, status: number): Page => {
    const route = at(req);
    return {
      View: "new",
      Title: T(req, `${spec.Name}.new`),
      Status: status,
      Body: html`<h1>${T(req, `${spec.Name}.new`)}</h1>
${state.errors.size > 0 ? noticeHTML(req, "invalid", false) : ""}
${formHTML(req, spec, { ...state, options: refs.formOptions(owner(req), state.entered), action: route, submit: T(req, "resource.create") })}
<p><a href="${route}">${T(req, "resource.back")}</a></p>`,
    };
  };
  // A record's page, headed by its name as stored (README "A record's name"), under the resource's title.
  const recordPage = (req: IncomingMessage, id: string, values: RecordValues, state: FormInput, status: number, notice: SafeHTML): Page => {
    const route = at(req);
    const name = recordName(spec, id, values);
    const { view, history } = recordSectionsHTML(req, { spec, refs, events, owner: owner(req), route }, id, values);
    return {
      View: "record",
      Title: name,
      Status: status,
      Body: html`<p><a href="${route}">${T(req, `${spec.Name}.title`)}</a></p>
<h1>${name}</h1>
${notice}
${view}
<section class="card" data-record-id="${id}" data-live="${route}/events" data-live-every="${LIVE_POLL_SECONDS}">
${liveNoticesHTML(req, spec)}
${formHTML(req, spec, { ...state, options: refs.formOptions(owner(req), state.entered), action: `${route}/${id}`, submit: T(req, "resource.save") })}
${filesHTML(req, spec, `${route}/${id}`, values)}
<form method="post" action="${route}/${id}/delete"><button class="danger" type="submit">${T(req, "resource.delete")}</button></form>
</section>
${history}
<p><a href="${route}">${T(req, "resource.back")}</a></p>`,
    };
  };
  return { spec, options, refs, store, renderer, show, refuse, missing, ...who, ended, entered, stored, newForm, recordPage };
}

/** Who asks, and for whose records: the session subject, the scope (the tools ask it too), the owner (the person, or the team of the path), its access, its route, the writer. */
function asking(spec: Resource, options: MountOptions) {
  const subject = (req: IncomingMessage): string => {
    const found = subjectFrom(req);
    if (found === undefined)
      throw new ManifestError(
        "ERR_MANIFEST_NO_SUBJECT",
        { resource: spec.Name },
        "a request reached the resource without a session subject; mount it behind RequireSession",
      );
    return found;
  };
  // SPEC §2.5 UserScoped: the owner is the session subject, never anything the client sends; TeamScoped: the team of the
  // path, whose membership `gate` checked before the handler ran.
  const scope = requestScope(spec, options.teams);
  const owner = (req: IncomingMessage): string => scope.owner(subject(req), PathValue(req, "team"));
  const access = (req: IncomingMessage, action: "read" | "write") => scope.access(subject(req), PathValue(req, "team"), action);
  // The route of `req`'s records: a team resource's holds the team.
  const at = (req: IncomingMessage): string => routeIn(spec, owner(req));
  // SPEC §2.3: the change is attributed to whoever made the request (the person, or an agent whose token the app's gate
  // verified), and its session is asked again inside the write's transaction (store.ts `storeBase`), so a change of address
  // or a deletion since commits nothing (lib/account README, "Writes in flight").
  // A team member removed while their write was read commits nothing either.
  const writer = (req: IncomingMessage): Writer => {
    const person = subject(req);
    return {
      owner: owner(req),
      person,
      actor: actorFrom(req),
      stillHeld: () => credentialHeld(req, person) && scope.access(person, PathValue(req, "team"), "write") === "ok",
    };
  };
  return { subject, scope, owner, access, at, writer };
}

type MountContext = ReturnType<typeof mountContext>;

/** The reading routes: the list, its CSV, the blank form, a record. */
function readHandlers(context: MountContext) {
  const { spec, options, refs, store, renderer, show, refuse, missing, owner, at, stored, newForm, recordPage } = context;
  const list: HandlerFunc = async (req, res) => {
    renderer(req);
    const parsed = parseListRequest(spec, queryParams(req), LocaleFrom(req));
    if ("bad" in parsed) return refuse(req, res, 400, `list ${spec.Name}: ${parsed.bad}`);
    const bad = parsed.errors.size > 0;
    const page = bad ? { records: [], next: undefined } : store.list(owner(req), parsed.query);
    const done = queryParams(req).has("deleted") ? noticeHTML(req, "deleted", true) : html``;
    // The names of the page's references, one query per Reference column, never one per cell.
    const shown = spec.Form.Fields.filter((f) => spec.List.Columns.some((c) => c.Field === f.Name));
    const links: ListReferences = {
      link: refs.links(owner(req), page.records, shown),
      options: (field) => refs.options(owner(req), field, parsed.entered.get(field.Name) ?? ""),
    };
    const body = listHTML(req, { ...spec, Route: at(req) }, parsed, page, done, links);
    await show(req, res, { View: "list", Title: T(req, `${spec.Name}.title`), Status: bad ? 400 : 200, Body: body });
  };
  const exportCSV: HandlerFunc = async (req, res) => {
    const parsed = parseListRequest(spec, queryParams(req), LocaleFrom(req));
    if ("bad" in parsed) return refuse(req, res, 400, `export ${spec.Name}: ${parsed.bad}`);
    for (const [name, problem] of parsed.errors)
      return refuse(req, res, 400, `export ${spec.Name}: ${name}: ${Tf(req, problem.key, problem.args)}`);
    // OWASP ASVS 5.0 §13.1.3: a person's downloads, exports and CSV together, are bounded (429 with Retry-After past them).
    if (!admitDownload(options.db, owner(req), res))
      return refuse(req, res, 429, `export ${spec.Name}: ${MAX_DOWNLOADS_PER_PERSON} downloads running already`);
    await writeCSV(res, spec, store, owner(req), parsed.query, refs);
  };
  const blank: HandlerFunc = async (req, res) => {
    renderer(req);
    await show(req, res, newForm(req, { entered: new Map(), errors: new Map() }, 200));
  };
  const read: HandlerFunc = async (req, res) => {
    renderer(req);
    const id = PathValue(req, "id") ?? "";
    const found = store.get(owner(req), id);
    if (found === undefined) return missing(req, res);
    if (parseCursor(queryParams(req).get("before")) === "bad") return refuse(req, res, 400, `read ${spec.Name}: ${CURSOR_RULE}`);
    const notice = queryParams(req).has("saved") ? noticeHTML(req, "saved", true) : html``;
    const values = found.record.values;
    await show(req, res, recordPage(req, id, values, stored(req, values, found.version), 200, notice));
  };
  return { list, exportCSV, blank, read };
}

/** The writing routes: create, update, delete. */
function writeHandlers(context: MountContext) {
  const { spec, store, renderer, show, refuse, missing, at, writer, ended, entered, stored, newForm, recordPage } = context;
  const create: HandlerFunc = async (req, res) => {
    renderer(req);
    const form = await readForm(req);
    if (hasUndeclaredName(spec, form.keys(), []))
      return refuse(req, res, 400, `create ${spec.Name}: a field is not declared or is repeated`);
    const values = parseValues(spec, entered(form), LocaleFrom(req));
    if (!values.ok) return show(req, res, newForm(req, { entered: entered(form), errors: values.errors }, 422));
    let created: { id: string };
    try {
      created = store.create(writer(req), values.values);
    } catch (e) {
      if (isCredentialEnded(e)) return ended(req, res);
      // A reference to a record that is unknown or someone else's, or a broken rule across fields: 422 beside each field
      // at fault, nothing stored (references.ts, rules.ts).
      if (!(e instanceof ReferenceRefused || e instanceof RuleRefused)) throw e;
      return show(req, res, newForm(req, { entered: entered(form), errors: e.problems }, 422));
    }
    seeOther(res, `${at(req)}/${created.id}`);
  };
  const update: HandlerFunc = async (req, res) => {
    renderer(req);
    const id = PathValue(req, "id") ?? "";
    const form = await readForm(req);
    if (hasUndeclaredName(spec, form.keys(), ["version"]))
      return refuse(req, res, 400, `update ${spec.Name}: a field is not declared or is repeated`);
    const versionText = form.get("version") ?? "";
    const version = /^[0-9]{1,15}$/.test(versionText) ? Number(versionText) : undefined;
    if (version === undefined) return refuse(req, res, 400, `update ${spec.Name}: version missing or malformed`);
    const who = writer(req);
    const existing = store.get(who.owner, id);
    if (existing === undefined) return missing(req, res);
    const invalid = (errors: ReadonlyMap<string, FieldProblem>): Promise<void> =>
      show(
        req,
        res,
        recordPage(req, id, existing.record.values, { entered: entered(form), errors, version }, 422, noticeHTML(req, "invalid", false)),
      );
    const values = parseValues(spec, entered(form), LocaleFrom(req));
    if (!values.ok) return invalid(values.errors);
    let outcome: UpdateOutcome;
    try {
      outcome = store.update(who, id, version, values.values);
    } catch (e) {
      if (isCredentialEnded(e)) return ended(req, res);
      if (!(e instanceof ReferenceRefused || e instanceof RuleRefused)) throw e;
      return invalid(e.problems);
    }
    switch (outcome.kind) {
      case "missing":
        return missing(req, res);
      case "bad_version":
        return refuse(req, res, 400, `update ${spec.Name}: unknown version`);
      case "busy":
        // RFC 6585 §4: 429 says when to come back.
        res.setHeader("Retry-After", String(outcome.retryAfter));
        return refuse(req, res, 429, busyMessage(spec.Name, outcome.retryAfter));
      case "stale": {
        const yours = html`<p>${T(req, "resource.stale.yours")}</p>${enteredHTML(req, spec, entered(form))}`;
        const state = stored(req, outcome.current.values, outcome.version);
        return show(req, res, recordPage(req, id, outcome.current.values, state, 409, noticeHTML(req, "stale", false, yours)));
      }
      case "conflict": {
        const state = { ...stored(req, outcome.merged, outcome.version), conflicts: outcome.conflicts };
        return show(req, res, recordPage(req, id, outcome.current.values, state, 409, noticeHTML(req, "conflict", false)));
      }
      case "ok":
        return seeOther(res, `${at(req)}/${id}?saved=1`);
    }
  };
  const remove: HandlerFunc = async (req, res) => {
    renderer(req);
    const id = PathValue(req, "id") ?? "";
    const form = await readForm(req);
    if (hasUndeclaredName({ ...spec, Form: { Fields: [] } }, form.keys(), ["version"]))
      return refuse(req, res, 400, `delete ${spec.Name}: unexpected field`);
    const who = writer(req);
    let deleted: boolean;
    try {
      deleted = store.delete(who, id);
    } catch (e) {
      if (isCredentialEnded(e)) return ended(req, res);
      if (!(e instanceof RecordReferenced)) throw e;
      // OnDelete "refuse": the record stays, and its page says which records refer to it (409, as a refused update).
      const found = store.get(who.owner, id);
      if (found === undefined) return missing(req, res);
      const which = html`<p><a href="${routeIn(e.resource, who.owner)}">${T(req, `${e.resource.Name}.title`)}</a></p>`;
      const values = found.record.values;
      return show(
        req,
        res,
        recordPage(req, id, values, stored(req, values, found.version), 409, noticeHTML(req, "referenced", false, which)),
      );
    }
    if (!deleted) return missing(req, res);
    seeOther(res, `${at(req)}?deleted=1`);
  };
  return { create, update, remove };
}
