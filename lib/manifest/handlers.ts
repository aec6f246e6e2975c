/*
 * A mounted resource's form routes (mount.ts lists them): the list, its CSV, the blank form and a record's page; its
 * create, update and delete.
 */
import { isCredentialEnded } from "../agent/index.ts";
import { html, queryParams, readForm, seeOther, type HandlerFunc } from "../http/index.ts";
import { admitDownload, MAX_DOWNLOADS_PER_PERSON } from "../internal/index.ts";
import { LocaleFrom, T, Tf } from "../i18n/index.ts";
import { PathValue } from "../router/index.ts";
import { bulkDoneHTML, type ShowList } from "./bulk-form.ts";
import { writeCSV } from "./csv.ts";
import { CURSOR_RULE, parseCursor } from "./changes.ts";
import { listHTML, parseListRequest, type ListReferences } from "./list.ts";
import { RecordReferenced, ReferenceRefused } from "./references.ts";
import { RuleRefused } from "./rules.ts";
import { routeIn } from "./scope.ts";
import { type UpdateOutcome } from "./store.ts";
import { busyMessage } from "./tools.ts";
import { parseValues, hasUndeclaredName, type FieldProblem } from "./values.ts";
import { enteredHTML, noticeHTML } from "./views.ts";

import type { MountContext } from "./mount-context.ts";

/** The reading routes: the list, its CSV, the blank form, a record; and the list page a refused bulk change shows. */
export function readHandlers(context: MountContext): Record<"list" | "exportCSV" | "blank" | "read", HandlerFunc> & { showList: ShowList } {
  const { spec, options, refs, store, renderer, show, refuse, missing, owner, at, stored, newForm, recordPage } = context;
  const list: HandlerFunc = (req, res) => {
    const done = queryParams(req).has("deleted") ? noticeHTML(req, "deleted", true) : bulkDoneHTML(req);
    return showList(req, res, done);
  };
  const showList: ShowList = async (req, res, done, status = 200) => {
    renderer(req);
    const parsed = parseListRequest(spec, queryParams(req), LocaleFrom(req));
    if ("bad" in parsed) return refuse(req, res, 400, `list ${spec.Name}: ${parsed.bad}`);
    const bad = parsed.errors.size > 0;
    const page = bad ? { records: [], next: undefined } : store.list(owner(req), parsed.query);
    // The names of the page's references, one query per Reference column, never one per cell.
    const shown = spec.Form.Fields.filter((f) => spec.List.Columns.some((c) => c.Field === f.Name));
    const links: ListReferences = {
      link: refs.links(owner(req), page.records, shown),
      options: (field) => refs.options(owner(req), field, parsed.entered.get(field.Name) ?? ""),
    };
    const body = listHTML(req, { ...spec, Route: at(req) }, parsed, page, done, links, options.imports !== undefined);
    await show(req, res, { View: "list", Title: T(req, `${spec.Name}.title`), Status: bad ? 400 : status, Body: body });
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
  return { list, exportCSV, blank, read, showList };
}

/** The writing routes: create, update, delete. */
export function writeHandlers(context: MountContext): Record<"create" | "update" | "remove", HandlerFunc> {
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
