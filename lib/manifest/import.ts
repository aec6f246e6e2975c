/*
 * A resource's CSV import on the wire (README "Import"), mounted when the application gives `MountOptions.imports`:
 *
 *   GET  <Route>/import                 the upload form; with ?upload=<id>, that upload's preview, then its outcome
 *   POST <Route>/import                 multipart/form-data, one part "file" → 303 <Route>/import?upload=<id>
 *   POST <Route>/import/confirm         upload=<id> → the import as a job of the person → 303 <jobPage>/<job id>
 *
 * The upload is streamed to a file of its own under the imports directory (never held whole; IMPORT_MAX_BYTES), read
 * once for its preview and once by its job, and removed when the job ends, when the person uploads another file to the
 * same resource, or IMPORT_PENDING_MS after its upload. Confirming is refused while a row has errors (the preview lists
 * them): nothing half-checked is imported. The job writes through `MountedResource.For`, as the person.
 */
import { createReadStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { queryParams, readForm, seeOther, systemClock, type HandlerFunc } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import { wording } from "./calls.ts";
import { CSVRefused, csvRows } from "./csv-read.ts";
import { previewImport, writeImport, type ImportOutcome, type ImportPreview } from "./import-rows.ts";
import { importPageHTML, uploadFormHTML } from "./import-view.ts";
import { MultipartRefused, readUpload, writeUploadFile } from "./multipart.ts";
import type { MountContext } from "./mount-context.ts";
import type { MountedResource, MountOptions } from "./mount-config.ts";
import { isTeamScoped } from "./scope.ts";

/** The largest CSV a person may upload to import: 32 MiB (10⁵ rows of the demo's expenses are about 6 MiB). */
export const IMPORT_MAX_BYTES: number = 32 * 1024 * 1024;

/** How long an upload waits for its confirm: 1 hour; then its file is removed and the person uploads again. */
export const IMPORT_PENDING_MS: number = 60 * 60 * 1000;

/** One person's upload to one resource, from its preview to its outcome. */
interface Upload {
  readonly id: string;
  readonly person: string;
  readonly owner: string;
  readonly path: string;
  readonly at: number;
  preview: ImportPreview;
  state: "ready" | "running" | "done";
  outcome?: ImportOutcome | undefined;
}

/** The import routes' handlers. */
export function importHandlers(
  context: MountContext,
  imports: NonNullable<MountOptions["imports"]>,
  For: MountedResource["For"],
): { form: HandlerFunc; upload: HandlerFunc; confirm: HandlerFunc } {
  const { spec, options, refs, refuse, missing, owner, subject, at, renderer } = context;
  const clock = options.clock ?? systemClock;
  // Each resource's uploads in a directory of their own; a previous run's are gone with its jobs (lib/jobs keeps none).
  const directory = join(imports.directory, spec.Name);
  rmSync(directory, { recursive: true, force: true });
  // OWASP ASVS 5.0 §5.3.1: outside anything served, readable by the application's user alone.
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const uploads = new Map<string, Upload>();
  const drop = (upload: Upload): void => {
    uploads.delete(upload.id);
    rmSync(upload.path, { force: true });
  };
  // OWASP ASVS 5.0 §5.2.1 (and §13.1.3): one waiting upload per person and resource, none older than IMPORT_PENDING_MS.
  const sweep = (person: string): void => {
    const now = clock.now().getTime();
    for (const u of uploads.values()) if (u.state !== "running" && (u.person === person || now - u.at > IMPORT_PENDING_MS)) drop(u);
  };
  const mine = (req: IncomingMessage, id: string): Upload | undefined => {
    const found = uploads.get(id);
    // SPEC §7: another person's upload, or one for another team, is as missing as an unknown one.
    return found !== undefined && found.person === subject(req) && found.owner === owner(req) ? found : undefined;
  };
  const show = async (req: IncomingMessage, res: ServerResponse, body: ReturnType<typeof uploadFormHTML>, status = 200) => {
    const title = Tf(req, "resource.import.title", { resource: T(req, `${spec.Name}.title`) });
    await context.show(req, res, { View: "import", Title: title, Status: status, Body: body });
  };
  const form: HandlerFunc = async (req, res) => {
    renderer(req);
    const id = queryParams(req).get("upload");
    if (id === null) return show(req, res, uploadFormHTML(req, spec, at(req)));
    const upload = mine(req, id);
    if (upload === undefined) return missing(req, res);
    await show(req, res, importPageHTML(req, spec, at(req), upload));
  };
  const upload: HandlerFunc = async (req, res) => {
    renderer(req);
    const what = `import ${spec.Name}`;
    const person = subject(req);
    const id = randomBytes(16).toString("base64url");
    const path = join(directory, id);
    try {
      const part = await readUpload(req, IMPORT_MAX_BYTES);
      sweep(person);
      await writeUploadFile(part.body, path, IMPORT_MAX_BYTES, () => new TooLarge());
      const preview = await previewImport(csvRows(createReadStream(path)), spec, refs, owner(req));
      uploads.set(id, { id, person, owner: owner(req), path, at: clock.now().getTime(), preview, state: "ready" });
    } catch (e) {
      rmSync(path, { force: true });
      if (e instanceof TooLarge) return refuse(req, res, 413, `${what}: larger than ${IMPORT_MAX_BYTES} bytes`);
      if (e instanceof MultipartRefused) return refuse(req, res, e.status, `${what}: ${e.message}`);
      // The person reads why beside the form, in their language, and uploads another file.
      if (e instanceof CSVRefused) return show(req, res, uploadFormHTML(req, spec, at(req), e), 422);
      throw e;
    }
    seeOther(res, `${at(req)}/import?upload=${id}`);
  };
  const confirm: HandlerFunc = async (req, res) => {
    const upload = mine(req, (await readForm(req)).get("upload") ?? "");
    if (upload === undefined) return missing(req, res);
    const what = `import ${spec.Name}`;
    if (upload.state !== "ready") return refuse(req, res, 409, `${what}: this upload was imported already`);
    // README "Import": rows with errors are fixed in the file first; nothing is imported while the preview lists any.
    if (upload.preview.rowsWithErrors > 0)
      return refuse(req, res, 422, `${what}: ${upload.preview.rowsWithErrors} rows have errors; fix them and upload the file again`);
    if (upload.preview.rows === 0) return refuse(req, res, 422, `${what}: the file has no rows`);
    const team = isTeamScoped(spec) ? { Team: upload.owner } : {};
    const records = For(upload.person, team);
    const job = imports.jobs.Start(
      upload.person,
      `import-${spec.Name}`,
      async (signal, progress) => {
        try {
          const total = upload.preview.rows;
          const create = records.create;
          const done = (n: number): void => progress(`${n}/${total}`);
          const source = csvRows(createReadStream(upload.path));
          const parts = { spec, refs, owner: upload.owner, db: options.db, t: wording(options.label) };
          upload.outcome = await writeImport(source, { ...parts, create, progress: done, signal });
        } finally {
          upload.state = "done";
          rmSync(upload.path, { force: true });
        }
      },
      { Location: `${at(req)}/import?upload=${upload.id}` },
    );
    upload.state = "running";
    seeOther(res, `${imports.jobPage ?? "/jobs"}/${job.ID}`);
  };
  return { form, upload, confirm };
}

class TooLarge extends Error {}
