/*
 * A resource's File fields on the wire (README "Attachments"):
 *
 *   POST <Route>/{id}/files/{field}   multipart/form-data, one part "file" → 303 <Route>/<id>?saved=1
 *   GET  <Route>/{id}/files/{field}   the file, as an attachment
 *
 * and the store every path writes through (form, tool, MCP, `For`), which keeps a File field to its record's own
 * attachments and deletes the files a change or a deletion leaves behind.
 */
import { createReadStream, mkdirSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isCredentialEnded } from "../agent/index.ts";
import { html, seeOther, systemClock, type Clock, type HandlerFunc, type SafeHTML } from "../http/index.ts";
import { T, Tf } from "../i18n/index.ts";
import { admitDownload, MAX_DOWNLOADS_PER_PERSON } from "../internal/index.ts";
import { PathValue } from "../router/index.ts";
import type { DB } from "../db/index.ts";
import { applySchema } from "../db/index.ts";
import {
  acceptedTypes,
  ATTACHMENTS_STEP,
  Attachments,
  type Attachment,
  FileRefused,
  maxBytes,
  removeRows,
  safeFileName,
} from "./attachments.ts";
import { ManifestError } from "./errors.ts";
import { Kind } from "./kinds.ts";
import { declaredLength, MultipartRefused, readUpload } from "./multipart.ts";
import { ReferenceRefused } from "./references.ts";
import { RuleRefused } from "./rules.ts";
import type { Field, ResourceSpec } from "./spec.ts";
import { personOf, type RecordStore, type Writer } from "./store.ts";
import { problemArgs, type RecordValues } from "./values.ts";

/** The File fields of `spec`. */
export function fileFields(spec: ResourceSpec): readonly Field[] {
  return spec.Form.Fields.filter((f) => f.Kind === Kind.File);
}

/** The attachments of a resource with File fields (its table applied, its directory made), or undefined when it has none. */
export function openAttachments(db: DB, spec: ResourceSpec, directory: string | undefined): Attachments | undefined {
  if (fileFields(spec).length === 0) return undefined;
  if (directory === undefined)
    throw new ManifestError(
      "ERR_MANIFEST_INVALID_FIELD",
      { resource: spec.Name },
      "a File field needs MountOptions.files, a directory under the state directory",
    );
  applySchema(db, [ATTACHMENTS_STEP]);
  // OWASP ASVS 5.0 §5.3.1: the files sit outside anything served, readable by the application's user alone.
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  return new Attachments(db, directory);
}

/**
 * `store` keeping each File field to an attachment of its own record and field (or none): an id from anywhere else is
 * refused as a reference is (422 naming the field); a file its record no longer holds, and a deleted record's, are deleted.
 */
export function fileStore(spec: ResourceSpec, store: RecordStore, attachments: Attachments | undefined): RecordStore {
  if (attachments === undefined) return store;
  const fields = fileFields(spec);
  const check = (id: string | undefined, values: RecordValues): void => {
    const wrong = fields.filter((f) => {
      const value = values[f.Name];
      return (
        value !== undefined && value !== null && (id === undefined || attachments.find(spec.Name, id, f.Name, String(value)) === undefined)
      );
    });
    // OWASP ASVS 5.0 §8.2.2: another record's attachment id names nothing here, so nobody reaches a file through their own record.
    if (wrong.length > 0) throw new ReferenceRefused(new Map(wrong.map((f) => [f.Name, { key: "resource.err.invalid", args: {} }])));
  };
  const held = (owner: string, id: string): string[] => {
    const values = store.get(owner, id)?.record.values ?? {};
    return fields.map((f) => values[f.Name]).filter((v): v is string => typeof v === "string");
  };
  return Object.freeze({
    ...store,
    create(who, values) {
      check(undefined, values);
      return store.create(who, values);
    },
    update(who, id, version, mine) {
      check(id, mine);
      const outcome = store.update(who, id, version, mine);
      if (outcome.kind === "ok") attachments.removeOf(spec.Name, id, held(who.owner, id));
      return outcome;
    },
    delete(who, id) {
      const deleted = store.delete(who, id);
      if (deleted) attachments.removeOf(spec.Name, id);
      return deleted;
    },
  } satisfies RecordStore);
}

/** What the file routes need of the resource's mount. */
export interface FileRouteContext {
  readonly spec: ResourceSpec;
  readonly store: RecordStore;
  readonly attachments: Attachments;
  readonly options: { readonly db: DB; readonly clock?: Clock | undefined };
  readonly owner: (req: IncomingMessage) => string;
  readonly at: (req: IncomingMessage) => string;
  readonly writer: (req: IncomingMessage) => Writer;
  readonly refuse: (req: IncomingMessage, res: ServerResponse, status: number, message: string) => void;
  readonly missing: (req: IncomingMessage, res: ServerResponse) => void;
  readonly ended: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
}

/** What attaching a file needs of the resource's mount. */
export type AttachContext = Pick<FileRouteContext, "spec" | "store" | "attachments" | "options">;

/**
 * Attaches `chunks` (named `givenName`, at most `expected` bytes) to `target.field` of record `target.id`, read at
 * `target.version`: `expected` bytes of the person's quota held while the file is written and checked (attachments.ts,
 * the one home of the byte checks, cap and quota; FileRefused otherwise), recorded, then the record updated to hold it. The upload route and the attach tool (files-tool.ts) both write through here.
 * Returns the attachment and the record's new version, or "missing" or "changed" when the record went or changed
 * meanwhile: nothing is kept then.
 */
export async function attachFile(
  context: AttachContext,
  who: Writer,
  target: { readonly id: string; readonly version: number; readonly field: Field },
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  givenName: string,
  expected: number,
): Promise<{ attachment: Attachment; version: number } | "missing" | "changed"> {
  const release = context.attachments.reserve(personOf(who), Math.min(expected, maxBytes(target.field)));
  try {
    return await attachHeld(context, who, target, chunks, givenName);
  } finally {
    release();
  }
}

// `attachFile` once the person's quota holds the file's bytes.
async function attachHeld(
  context: AttachContext,
  who: Writer,
  target: { readonly id: string; readonly version: number; readonly field: Field },
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  givenName: string,
): Promise<{ attachment: Attachment; version: number } | "missing" | "changed"> {
  const { spec, attachments, store } = context;
  const { id, field } = target;
  const written = await attachments.write(chunks, acceptedTypes(field), maxBytes(field));
  const row = attachments.insertRow(written, {
    resource: spec.Name,
    record: id,
    field: field.Name,
    owner: who.owner,
    person: personOf(who),
    name: safeFileName(givenName, written.type),
    created_at: (context.options.clock ?? systemClock).now().getTime(),
  });
  let outcome;
  try {
    outcome = store.update(who, id, target.version, { [field.Name]: row.id });
  } catch (e) {
    removeRows(context.options.db, [row]);
    throw e;
  }
  if (outcome.kind === "ok") return { attachment: row, version: outcome.version };
  // The record changed or went meanwhile: the file is not kept, and the person uploads again.
  removeRows(context.options.db, [row]);
  return outcome.kind === "missing" ? "missing" : "changed";
}

/** The handlers of a File field's upload and download. */
export function fileHandlers(context: FileRouteContext): { upload: HandlerFunc; download: HandlerFunc } {
  const { spec, store, attachments, owner, refuse, missing } = context;
  const fieldOf = (req: IncomingMessage): Field | undefined => fileFields(spec).find((f) => f.Name === PathValue(req, "field"));
  const upload: HandlerFunc = async (req, res) => {
    const id = PathValue(req, "id") ?? "";
    const field = fieldOf(req);
    const existing = field === undefined ? undefined : store.get(owner(req), id);
    if (field === undefined || existing === undefined) return missing(req, res);
    const what = `upload ${spec.Name}.${field.Name}`;
    try {
      const part = await readUpload(req, maxBytes(field));
      const who = context.writer(req);
      // A chunked body declares no length: its quota is held for the field's cap (attachFile takes the smaller).
      const expected = declaredLength(req) || maxBytes(field);
      const outcome = await attachFile(context, who, { id, version: existing.version, field }, part.body, part.filename, expected);
      if (typeof outcome === "object") return seeOther(res, `${context.at(req)}/${id}?saved=1`);
      return outcome === "missing" ? missing(req, res) : refuse(req, res, 409, `${what}: the record changed meanwhile; upload again`);
    } catch (e) {
      if (e instanceof FileRefused || e instanceof MultipartRefused) return refuse(req, res, e.status, `${what}: ${e.message}`);
      if (isCredentialEnded(e)) return context.ended(req, res);
      // A rule across fields or a reference the record breaks refuses the update that holds the file (422, nothing kept),
      // each field at fault named with its reason, as the record's form does (handlers.ts).
      if (!(e instanceof ReferenceRefused || e instanceof RuleRefused)) throw e;
      const reasons = [...e.problems].map(
        ([name, p]) =>
          `${name}: ${Tf(
            req,
            p.key,
            problemArgs(p, (key) => T(req, key)),
          )}`,
      );
      return refuse(req, res, 422, `${what}: ${reasons.join(" ")}`);
    }
  };
  const download: HandlerFunc = async (req, res) => {
    const id = PathValue(req, "id") ?? "";
    const field = fieldOf(req);
    // SPEC §7: the file of a record the person may not read is as missing as an unknown one (404).
    const value = field === undefined ? undefined : store.get(owner(req), id)?.record.values[field.Name];
    const row = field === undefined || typeof value !== "string" ? undefined : attachments.find(spec.Name, id, field.Name, value);
    if (row === undefined) return missing(req, res);
    // OWASP ASVS 5.0 §13.1.3: a person's downloads running at once are bounded, as exports are.
    if (!admitDownload(context.options.db, owner(req), res))
      return refuse(req, res, 429, `download ${spec.Name}: ${MAX_DOWNLOADS_PER_PERSON} downloads running already`);
    res.statusCode = 200;
    res.setHeader("Content-Type", row.type);
    res.setHeader("Content-Length", String(row.size));
    // OWASP ASVS 5.0 §5.4.1/§5.4.2 (RFC 6266 §4.3, RFC 8187): saved, never shown inline, under a safe name.
    res.setHeader("Content-Disposition", contentDisposition(row.name));
    // OWASP ASVS 5.0 §3.4.4 and §3.2.1: the browser keeps the type we sniffed, runs nothing of it, and caches it nowhere shared.
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", "default-src 'none'; sandbox");
    res.setHeader("Cache-Control", "private, no-store");
    // RFC 9530 §3: the hash stored with the file, for the person to check what they saved.
    res.setHeader("Repr-Digest", `sha-256=:${Buffer.from(row.sha256, "hex").toString("base64")}:`);
    await pipeline(createReadStream(row.path), res);
  };
  return { upload, download };
}

/** `attachment` with an ASCII `filename` fallback and the exact name as RFC 8187 `filename*` (RFC 6266 §4.3). */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  // RFC 8187 §3.2.1 attr-char: encodeURIComponent leaves ' ( ) * ! and ~ as they are; the first four are not attr-chars.
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A record page's File fields: each one's file to download, and a form to upload another. */
export function filesHTML(req: IncomingMessage, spec: ResourceSpec, action: string, values: RecordValues): SafeHTML {
  return html`${fileFields(spec).map(
    (
      f,
    ) => html`<form class="resource-file" method="post" enctype="multipart/form-data" action="${action}/files/${f.Name}" data-file-field="${f.Name}">
<label>${T(req, f.Label)} <input type="file" name="file" accept="${acceptedTypes(f).join(",")}" required></label>
${typeof values[f.Name] === "string" ? html`<a href="${action}/files/${f.Name}" download>${T(req, "resource.file.download")}</a>` : ""}
<button type="submit">${T(req, "resource.file.upload")}</button>
</form>`,
  )}`;
}
