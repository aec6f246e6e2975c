/*
 * The import's pages (import.ts; README "Import"): the upload form, and an upload's preview (the header mapped to the
 * fields, the first rows mapped to them, every row with errors by its line as a spreadsheet numbers it) or, once its
 * job ran, its outcome.
 */
import type { IncomingMessage } from "node:http";
import { html, type SafeHTML } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import type { CSVRefused } from "./csv-read.ts";
import type { CheckedRow, ImportOutcome, ImportPreview, RowError } from "./import-rows.ts";
import type { ResourceSpec } from "./spec.ts";
import { problemArgs } from "./values.ts";

/** What the page shows of an upload. */
export interface UploadView {
  readonly id: string;
  readonly preview: ImportPreview;
  readonly state: "ready" | "running" | "done";
  readonly outcome?: ImportOutcome | undefined;
}

const heading = (req: IncomingMessage, spec: ResourceSpec, route: string): SafeHTML =>
  html`<p><a href="${route}">${T(req, `${spec.Name}.title`)}</a></p>
<h1>${Tf(req, "resource.import.title", { resource: T(req, `${spec.Name}.title`) })}</h1>`;

/** The upload form: one CSV file; after a file that could not be read, why. */
export function uploadFormHTML(req: IncomingMessage, spec: ResourceSpec, route: string, refused?: CSVRefused): SafeHTML {
  const why = refused === undefined ? "" : Tf(req, `resource.import.refused.${refused.reason}`, refused.args);
  return html`${heading(req, spec, route)}
${refused === undefined ? "" : html`<p class="notice bad" role="alert" data-import-refused="${refused.reason}">${why}</p>`}
<form class="card" method="post" enctype="multipart/form-data" action="${route}/import" data-import-upload>
<p class="muted">${T(req, "resource.import.help")}</p>
<label>${T(req, "resource.import.file")} <input type="file" name="file" accept=".csv,.tsv,.txt,text/csv" required></label>
<div class="row"><button type="submit">${T(req, "resource.import.upload")}</button></div>
</form>`;
}

// A row's problem, as the form words it.
function errorText(req: IncomingMessage, spec: ResourceSpec, error: RowError): string {
  const field = spec.Form.Fields.find((f) => f.Name === error.field);
  const args = problemArgs(error.problem, (key) => T(req, key));
  const text = Object.keys(args).length === 0 ? T(req, error.problem.key) : Tf(req, error.problem.key, args);
  return field === undefined ? text : `${T(req, field.Label)}: ${text}`;
}

/** An upload's page: its preview and confirm button, or (its job ran) what it imported. */
export function importPageHTML(req: IncomingMessage, spec: ResourceSpec, route: string, upload: UploadView): SafeHTML {
  const { preview } = upload;
  const fields = spec.Form.Fields.filter((f) => preview.columns.roles.some((r) => "field" in r && r.field === f && !r.name));
  const label = (name: string): string => T(req, spec.Form.Fields.find((f) => f.Name === name)?.Label ?? name);
  const role = (i: number): string => {
    const r = preview.columns.roles[i]!;
    if ("field" in r) return r.name ? Tf(req, "resource.import.name_of", { field: T(req, r.field.Label) }) : T(req, r.field.Label);
    return T(req, `resource.import.apart_${r.apart}`);
  };
  const columns = html`<table data-import-columns><thead><tr><th scope="col">${T(req, "resource.import.column")}</th><th scope="col">${T(req, "resource.import.field")}</th></tr></thead><tbody>
${preview.columns.header.map((c, i) => html`<tr data-column="${c}"><td>${c}</td><td>${role(i)}</td></tr>`)}
</tbody></table>
${preview.columns.missing.length === 0 ? "" : html`<p class="muted" data-import-missing>${Tf(req, "resource.import.missing", { fields: preview.columns.missing.map((name) => `${label(name)} (${name})`).join(", ") })}</p>`}`;
  const sample = html`<div class="table-scroll"><table data-import-sample><thead><tr><th scope="col">${T(req, "resource.import.line")}</th>${fields.map((f) => html`<th scope="col">${T(req, f.Label)}</th>`)}</tr></thead><tbody>
${preview.sample.map((row: CheckedRow) => html`<tr data-line="${row.line}"><td>${row.line}</td>${fields.map((f) => html`<td>${row.given[f.Name] ?? ""}</td>`)}</tr>`)}
</tbody></table></div>`;
  const errors =
    preview.rowsWithErrors === 0
      ? html``
      : html`<section class="card notice bad" role="alert" data-import-errors="${preview.rowsWithErrors}">
<h2>${Tf(req, "resource.import.errors", { count: preview.rowsWithErrors })}</h2>
<ul>${preview.errors.map((row) => html`<li data-error-line="${row.line}">${Tf(req, "resource.import.at_line", { line: row.line })} ${row.errors.map((e) => errorText(req, spec, e)).join(" ")}</li>`)}</ul>
${preview.rowsWithErrors > preview.errors.length ? html`<p>${Tf(req, "resource.import.errors_more", { count: preview.rowsWithErrors - preview.errors.length })}</p>` : ""}
<p>${T(req, "resource.import.fix")}</p>
</section>`;
  const action =
    upload.state === "done"
      ? outcomeHTML(req, upload.outcome)
      : upload.state === "running"
        ? html`<p class="notice" data-import-state="running">${T(req, "resource.import.running")}</p>`
        : preview.rows === 0
          ? html`<p class="notice bad" data-import-empty>${T(req, "resource.import.empty")}</p>`
          : preview.rowsWithErrors > 0
            ? html``
            : html`<form method="post" action="${route}/import/confirm" data-import-confirm>
<input type="hidden" name="upload" value="${upload.id}">
<button type="submit">${Tf(req, "resource.import.confirm", { count: preview.rows })}</button>
</form>`;
  return html`${heading(req, spec, route)}
<p data-import-rows="${preview.rows}">${Tf(req, "resource.import.rows", { count: preview.rows })}</p>
${action}
${errors}
<h2>${T(req, "resource.import.columns")}</h2>
${columns}
<h2>${T(req, "resource.import.first_rows")}</h2>
${sample}`;
}

function outcomeHTML(req: IncomingMessage, outcome: ImportOutcome | undefined): SafeHTML {
  if (outcome === undefined)
    return html`<p class="notice bad" role="alert" data-import-state="failed">${T(req, "resource.import.failed")}</p>`;
  return html`<div class="card notice ok" role="status" data-import-state="done" data-imported="${outcome.imported}">
<p>${Tf(req, "resource.import.done", { count: outcome.imported })}</p>
${
  outcome.skipped.length === 0
    ? ""
    : html`<p>${T(req, "resource.import.skipped")}</p><ul>${outcome.skipped.map((s) => html`<li data-skipped-line="${s.line}">${Tf(req, "resource.import.at_line", { line: s.line })} ${s.reason}</li>`)}</ul>`
}
</div>`;
}
