/*
 * What a mounted resource's handlers share (mount.ts builds it once per resource): who is asking and for whose
 * records, how a refusal is answered, and the resource's new-record and record pages.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { actorFrom, subjectFrom } from "../agent/index.ts";
import { html, HTTPError, NewRef, type SafeHTML } from "../http/index.ts";
import { credentialHeld, writeErrorPage } from "../internal/index.ts";
import { T } from "../i18n/index.ts";
import { PathValue } from "../router/index.ts";
import { ManifestError } from "./errors.ts";
import { filesHTML } from "./files.ts";
import { recordSectionsHTML } from "./history-view.ts";
import { LIVE_POLL_SECONDS, liveNoticesHTML } from "./live.ts";
import { recordName, References } from "./references.ts";
import type { Resource } from "./resource.ts";
import { requestScope, routeIn } from "./scope.ts";
import { type RecordStore, type Writer } from "./store.ts";
import { type RecordValues } from "./values.ts";
import { formHTML, inputValue, noticeHTML, type FormState, type ResourceView } from "./views.ts";

import type { RequestScope } from "./scope.ts";
import type { MountOptions, RenderCtx } from "./mount-config.ts";

/** What a form shows, before its action and button. */
export type FormInput = Omit<FormState, "action" | "submit">;

/** A resource's page, before the runtime adds its name and scripts. */
export type Page = Omit<ResourceView, "Resource" | "Scripts">;

type Req = IncomingMessage;
type Res = ServerResponse;

/** What a resource's handlers share: its store, who is asking (`asking`), and its pages. */
export interface MountContext {
  readonly spec: Resource;
  readonly options: MountOptions;
  readonly refs: References;
  readonly store: RecordStore;
  /** The application's renderer; a logged 500 when `Ctx.Render` is not set (SPEC §7). */
  readonly renderer: (req: Req) => NonNullable<RenderCtx["Render"]>;
  readonly show: (req: Req, res: Res, page: Page) => Promise<void>;
  readonly refuse: (req: Req, res: Res, status: number, message: string) => void;
  /** SPEC §7: another owner's record and an unknown id are the same 404. */
  readonly missing: (req: Req, res: Res) => void;
  readonly subject: (req: Req) => string;
  readonly scope: RequestScope;
  readonly owner: (req: Req) => string;
  readonly access: (req: Req, action: "read" | "write") => "ok" | 403 | 404;
  /** The route of the request's records: a team resource's holds the team. */
  readonly at: (req: Req) => string;
  readonly writer: (req: Req) => Writer;
  /** A write whose session ended while it ran: answered by the app's session gate. */
  readonly ended: (req: Req, res: Res) => void | Promise<void>;
  readonly entered: (form: URLSearchParams) => Map<string, string>;
  /** A form showing `values` as stored, at `version`. */
  readonly stored: (req: Req, values: RecordValues, version: number) => FormInput;
  readonly newForm: (req: Req, state: FormInput, status: number) => Page;
  readonly recordPage: (req: Req, id: string, values: RecordValues, state: FormInput, status: number, notice: SafeHTML) => Page;
}

/** What a resource's handlers share: its store, who is asking, and its pages. */
export function mountContext(spec: Resource, options: MountOptions, refs: References, store: RecordStore): MountContext {
  // SPEC §7: a generated action with nil Render answers a logged 500 (recoverPanics logs it with a reference).
  const renderer = (req: IncomingMessage): NonNullable<RenderCtx["Render"]> => {
    const render = options.ctxFrom(req)?.Render;
    if (render === undefined) throw new HTTPError("ERR_HTTP_NO_RENDER", `resource ${spec.Name}: Ctx.Render is not set`);
    return render;
  };
  const show = async (req: IncomingMessage, res: ServerResponse, page: Page): Promise<void> => {
    if (page.Status !== 200) res.statusCode = page.Status;
    // The list and a record follow their changes (live.js); the new-record form and the import pages have nothing to follow.
    const still = page.View === "new" || page.View === "import";
    const view: ResourceView = { Resource: spec.Name, ...page, Scripts: still ? [] : ["live.js"] };
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
