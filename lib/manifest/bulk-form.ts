/*
 * A list page's bulk changes (README "Bulk changes"): a checkbox per row (`input[name=ids]`, `data-bulk-select`), one
 * for them all (`data-bulk-all`, live.js), and the form they belong to (`form#bulk-<name>`, `data-bulk`): a field, its
 * value typed as the form reads it, and two buttons, "set" and "delete". `POST <Route>/bulk` reads it (bulk.ts), answers
 * 303 to the list with the count changed, or shows the list again, nothing changed, with every refused record named.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { isCredentialEnded } from "../agent/index.ts";
import { html, queryParams, readForm, seeOther, type HandlerFunc, type SafeHTML } from "../http/index.ts";
import { LocaleFrom, T, Tf } from "../i18n/index.ts";
import { BULK_MAX, bulkFields, BulkRefused, readBulk, weighBulk, type BulkApply } from "./bulk.ts";
import type { MountContext } from "./mount-context.ts";
import type { ResourceSpec } from "./spec.ts";
import type { StoredRecord } from "./table.ts";
import { noticeHTML } from "./views.ts";

/** Shows the list page `req` asks for, headed by `notice`, at `status` unless a filter is refused (400). */
export type ShowList = (req: IncomingMessage, res: ServerResponse, notice: SafeHTML, status?: number) => Promise<void>;

/** The names a bulk form posts. */
const BULK_FORM_NAMES = ["action", "ids", "field", "value"];

/** The query parameter of the list a bulk change lands on, by its action, holding how many records it changed. */
const DONE_PARAMS = { delete: "bulk_deleted", set: "bulk_updated" } as const;

/** The notice of a bulk change that landed (`?bulk_deleted=3`), or nothing. */
export function bulkDoneHTML(req: IncomingMessage): SafeHTML {
  const params = queryParams(req);
  for (const [action, param] of Object.entries(DONE_PARAMS)) {
    const count = params.get(param) ?? "";
    // Only a count a bulk change can have: anything else in the address shows nothing.
    if (/^[1-9][0-9]{0,2}$/.test(count) && Number(count) <= BULK_MAX)
      return noticeHTML(req, `bulk.${action === "delete" ? "deleted" : "updated"}`, true, html``, { count: Number(count) });
  }
  return html``;
}

/** The id of the bulk form of `spec`'s list, which each row's checkbox names (`form=`). */
function formID(spec: ResourceSpec): string {
  return `bulk-${spec.Name}`;
}

/** The header cell selecting every row (live.js checks them all; without scripts, each row is checked by hand). */
export function bulkAllHTML(req: IncomingMessage): SafeHTML {
  return html`<th scope="col"><input type="checkbox" data-bulk-all aria-label="${T(req, "resource.bulk.select_all")}"></th>`;
}

/** A row's checkbox, labelled by the record's name. */
export function bulkSelectHTML(req: IncomingMessage, spec: ResourceSpec, record: StoredRecord, name: string): SafeHTML {
  const label = Tf(req, "resource.bulk.select", { name });
  return html`<td><input type="checkbox" name="ids" value="${record.id}" form="${formID(spec)}" data-bulk-select aria-label="${label}"></td>`;
}

/** The bulk form under a list: the field and value to set, and the buttons. */
export function bulkFormHTML(req: IncomingMessage, spec: ResourceSpec): SafeHTML {
  const id = formID(spec);
  return html`<form id="${id}" class="card bulk" method="post" action="${spec.Route}/bulk" data-bulk>
<fieldset><legend>${Tf(req, "resource.bulk.legend", { max: BULK_MAX })}</legend>
<div class="row">
<div class="field"><label for="${id}-field">${T(req, "resource.bulk.field")}</label>
<select id="${id}-field" name="field">${bulkFields(spec).map((f) => html`<option value="${f.Name}">${T(req, f.Label)}</option>`)}</select></div>
<div class="field"><label for="${id}-value">${T(req, "resource.bulk.value")}</label>
<input id="${id}-value" name="value" type="text"></div>
</div>
<div class="row"><button type="submit" name="action" value="set" data-bulk-action="set">${T(req, "resource.bulk.set")}</button>
<button class="danger" type="submit" name="action" value="delete" data-bulk-action="delete">${T(req, "resource.bulk.delete")}</button></div>
</fieldset>
</form>`;
}

/** The handler of `POST <Route>/bulk`: a bulk change from the list page. */
export function bulkHandler(context: MountContext, apply: BulkApply, showList: ShowList): HandlerFunc {
  const { spec, refs, store, renderer, refuse, at, writer, ended } = context;
  return async (req, res) => {
    renderer(req);
    const form = await readForm(req);
    const names = [...form.keys()];
    // Bad input is a 400 naming it, before anything is read (docs/style.md): only the form's names, each once but the ids.
    const stray = names.find((n) => !BULK_FORM_NAMES.includes(n) || (n !== "ids" && form.getAll(n).length > 1));
    if (stray !== undefined) return refuse(req, res, 400, `bulk ${spec.Name}: unexpected or repeated field ${stray}`);
    const t = (key: string): string => T(req, key);
    const who = writer(req);
    try {
      const input = {
        action: form.get("action") ?? "",
        ids: form.getAll("ids"),
        field: form.get("field") ?? "",
        value: form.get("value") ?? "",
      };
      const change = readBulk(spec, input, LocaleFrom(req), t);
      weighBulk({ spec, store, refs }, who.owner, change, t);
      const done = apply(who, change, t);
      seeOther(res, `${at(req)}?${DONE_PARAMS[change.action]}=${done.length}`);
    } catch (e) {
      if (isCredentialEnded(e)) return ended(req, res);
      if (!(e instanceof BulkRefused)) throw e;
      const reasons = html`<ul>${e.reasons.map((r) => html`<li data-bulk-refused>${r}</li>`)}</ul>`;
      return showList(req, res, noticeHTML(req, "bulk.refused", false, reasons), e.status);
    }
  };
}
