/*
 * A resource's CSV import on the wire (README "Import"), mounted when the application gives `MountOptions.imports`:
 *
 *   GET  <Route>/import                 the upload form; with ?upload=<id>, that upload's preview, then its outcome
 *   POST <Route>/import                 multipart/form-data, one part "file" → 303 <Route>/import?upload=<id>
 *   POST <Route>/import/confirm         upload=<id> → the import as a job of the person → 303 <jobPage>/<job id>
 *
 * The upload is streamed to a file of its own under the imports directory (never held whole; IMPORT_MAX_BYTES), read
 * once for its preview and once by its job, and removed when the job ends, when the person uploads another file to the
 * same resource, or IMPORT_PENDING_MS after its upload. A person has one upload per resource: its slot is taken before
 * a byte of the body is read, and another upload while it is received or its job runs is a 409. Confirming is refused
 * while a row has errors (the preview lists them): nothing half-checked is imported. The job writes as the person, as
 * `MountedResource.For` does, the live feed told of each batch once it committed.
 */
import { createReadStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { queryParams, readForm, seeOther, systemClock, type HandlerFunc } from "../http/index.ts";
import { humanActor } from "../agent/index.ts";
import { T, Tf } from "../i18n/index.ts";
import { callWriter, wording } from "./calls.ts";
import { CSVRefused, csvRows } from "./csv-read.ts";
import {
  cellMaxOf,
  importCreate,
  previewImport,
  writeImport,
  type ImportOutcome,
  type ImportPreview,
  type ImportWrites,
} from "./import-rows.ts";
import { importPageHTML, uploadFormHTML, type UploadView } from "./import-view.ts";
import { MultipartRefused, readUpload, writeUploadFile } from "./multipart.ts";
import type { MountContext } from "./mount-context.ts";
import type { MountOptions } from "./mount-config.ts";
import { isTeamScoped } from "./scope.ts";

/** The largest CSV a person may upload to import: 32 MiB (10⁵ rows of the demo's expenses are about 6 MiB). */
export const IMPORT_MAX_BYTES: number = 32 * 1024 * 1024;

/** How long an upload waits for its confirm: 1 hour; then its file is removed and the person uploads again. */
export const IMPORT_PENDING_MS: number = 60 * 60 * 1000;

/** One person's upload to one resource, from the slot it takes before its body is read ("receiving") to its outcome. */
interface Upload {
  readonly id: string;
  readonly person: string;
  readonly owner: string;
  readonly path: string;
  readonly at: number;
  preview?: ImportPreview | undefined;
  state: "receiving" | UploadView["state"];
  outcome?: ImportOutcome | undefined;
}

/** An upload whose file was read whole and previewed. */
type Received = Upload & UploadView;

/** The import routes' handlers. */
export function importHandlers(
  context: MountContext,
  imports: NonNullable<MountOptions["imports"]>,
  writes: ImportWrites,
): { form: HandlerFunc; upload: HandlerFunc; confirm: HandlerFunc } {
  const { spec, options, refs, refuse, missing, owner, subject, at, renderer } = context;
  const cellMax = cellMaxOf(spec, refs);
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
  // OWASP ASVS 5.0 §5.2.1 (and §13.1.3): one upload per person and resource, taken before its body is read (so
  // concurrent uploads cannot each hold a file), none waiting longer than IMPORT_PENDING_MS. Undefined: the person's
  // upload is being received or imported, and is kept.
  const reserve = (req: IncomingMessage): Upload | undefined => {
    const person = subject(req);
    const busy = (u: Upload): boolean => u.state === "receiving" || u.state === "running";
    if ([...uploads.values()].some((u) => u.person === person && busy(u))) return undefined;
    const now = clock.now().getTime();
    for (const u of uploads.values()) if (!busy(u) && (u.person === person || now - u.at > IMPORT_PENDING_MS)) drop(u);
    const id = randomBytes(16).toString("base64url");
    const slot: Upload = { id, person, owner: owner(req), path: join(directory, id), at: now, state: "receiving" };
    uploads.set(id, slot);
    return slot;
  };
  const mine = (req: IncomingMessage, id: string): Received | undefined => {
    const found = uploads.get(id);
    // SPEC §7: another person's upload, or one for another team, is as missing as an unknown one.
    const theirs = found !== undefined && found.person === subject(req) && found.owner === owner(req);
    return theirs && found.state !== "receiving" && found.preview !== undefined ? (found as Received) : undefined;
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
    const slot = reserve(req);
    if (slot === undefined)
      return refuse(req, res, 409, `${what}: another file of yours is being uploaded or imported here; upload this one once it is done`);
    const { id, path } = slot;
    try {
      // OWASP ASVS 5.0 §5.2.1: multipart.ts refuses a body declared larger than the cap before a byte of it is read.
      const part = await readUpload(req, IMPORT_MAX_BYTES);
      await writeUploadFile(part.body, path, IMPORT_MAX_BYTES, () => new MultipartRefused(`larger than ${IMPORT_MAX_BYTES} bytes`, 413));
      slot.preview = await previewImport(csvRows(createReadStream(path), cellMax), spec, refs, slot.owner);
      slot.state = "ready";
    } catch (e) {
      // Gone before the answer is sent: whoever reads the answer finds no file left of it.
      drop(slot);
      if (e instanceof MultipartRefused) return refuse(req, res, e.status, `${what}: ${e.message}`);
      // The person reads why beside the form, in their language, and uploads another file.
      if (e instanceof CSVRefused) return show(req, res, uploadFormHTML(req, spec, at(req), e), 422);
      throw e;
    } finally {
      // Refused before a byte was written (the part's name): the slot is free again.
      if (slot.state === "receiving") drop(slot);
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
    // README "Import": the person's writes, as `MountedResource.For(person)` makes them (a team's role asked again in each).
    const team = isTeamScoped(spec) ? upload.owner : "";
    const who = callWriter(spec, context.scope, { subject: upload.person, team, actor: humanActor() });
    const job = imports.jobs.Start(
      upload.person,
      `import-${spec.Name}`,
      async (signal, progress) => {
        try {
          const total = upload.preview.rows;
          const t = wording(options.label);
          const create = importCreate(spec, t, writes.store, who);
          const landed = (record: { id: string; version: number }) => writes.landed(who, record.id, record.version);
          const done = (n: number): void => progress(`${n}/${total}`);
          const source = csvRows(createReadStream(upload.path), cellMax);
          const parts = { spec, refs, owner: upload.owner, db: options.db, t, create, landed };
          upload.outcome = await writeImport(source, { ...parts, progress: done, signal });
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
