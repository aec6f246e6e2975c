/*
 * A File field's attachments (README "Attachments"): the bytes on disk under the application's files directory, each
 * under a random name, and one row of `manifest_attachments` per file (its record, field, uploader, name as given, media
 * type as sniffed, size and SHA-256). A record's File field holds its attachment's id; the row binds that id to the
 * record and field, so an id copied into another record names nothing there.
 *
 * Lifetime: an attachment is deleted with its record, and when its field is cleared or given another file (the change
 * commits first). History keeps the id and hash of a file that was, never its bytes (decided in issue 43: a record's
 * history says a file changed, not what it held). Account deletion deletes the person's records' attachments.
 */
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Step } from "../db/index.ts";
import type { DB } from "../db/index.ts";
import { writeUploadFile } from "./multipart.ts";
import type { Field } from "./spec.ts";
import { immediately } from "../internal/index.ts";

/** A File field's largest file when it declares no `MaxBytes`: 10 MiB. */
export const FILE_MAX_BYTES_DEFAULT: number = 10 * 1024 * 1024;

/** The largest `MaxBytes` a File field may declare: 100 MiB (a larger file is no form's attachment). */
export const FILE_MAX_BYTES_LIMIT: number = 100 * 1024 * 1024;

/** The bytes of attachments one person may have uploaded, over every resource: 200 MiB (README "Attachments"). */
export const ATTACHMENT_QUOTA_PER_PERSON: number = 200 * 1024 * 1024;

/** The longest file name kept (characters); a longer one is cut. */
export const FILE_NAME_MAX_LENGTH: number = 200;

/**
 * The media types a File field may accept, each recognised by its first bytes (OWASP ASVS 5.0 §5.2.2: the content, not
 * the name or the client's Content-Type). A field's `Accept` is a subset; every one of them by default.
 */
export const FILE_TYPES: Readonly<Record<string, { readonly magic: readonly number[]; readonly extensions: readonly string[] }>> = {
  // ISO 32000-2 §7.5.2: a PDF file begins with "%PDF-".
  "application/pdf": { magic: [0x25, 0x50, 0x44, 0x46, 0x2d], extensions: ["pdf"] },
  // PNG (ISO/IEC 15948) §5.2: the 8-byte signature.
  "image/png": { magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], extensions: ["png"] },
  // JPEG (ITU T.81) Annex B: SOI marker FFD8 followed by another marker's FF.
  "image/jpeg": { magic: [0xff, 0xd8, 0xff], extensions: ["jpg", "jpeg"] },
};

/** The shape of an attachment's id, as a File field stores it: 128 random bits as base64url. */
export const ATTACHMENT_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{22}$/;

/** Bytes `sniffType` needs to decide: the longest signature. */
export const SNIFF_BYTES: number = 8;

/** The media type whose signature `head` starts with, or undefined (an executable, a script, anything else). */
export function sniffType(head: Uint8Array): string | undefined {
  for (const [type, { magic }] of Object.entries(FILE_TYPES)) {
    if (head.length >= magic.length && magic.every((b, i) => head[i] === b)) return type;
  }
  return undefined;
}

/** A File field's cap in bytes. */
export function maxBytes(field: Field): number {
  return field.MaxBytes ?? FILE_MAX_BYTES_DEFAULT;
}

/** The media types a File field accepts. */
export function acceptedTypes(field: Field): readonly string[] {
  return field.Accept ?? Object.keys(FILE_TYPES);
}

/** The options only File fields take, checked with the resource (validate.ts). */
export function checkFileOptions(field: Field, isFile: boolean, fail: (reason: string) => never): void {
  if (!isFile) {
    if (field.MaxBytes !== undefined || field.Accept !== undefined) fail("MaxBytes and Accept are for File fields");
    return;
  }
  if (
    field.MaxBytes !== undefined &&
    (!Number.isSafeInteger(field.MaxBytes) || field.MaxBytes < 1 || field.MaxBytes > FILE_MAX_BYTES_LIMIT)
  )
    fail(`MaxBytes must be a whole number of bytes from 1 to ${FILE_MAX_BYTES_LIMIT}`);
  if (field.Accept !== undefined) {
    if (!Array.isArray(field.Accept) || field.Accept.length === 0)
      fail(`Accept lists one or more of ${Object.keys(FILE_TYPES).join(", ")}`);
    for (const type of field.Accept)
      if (!Object.hasOwn(FILE_TYPES, type)) fail(`Accept: ${String(type)} is not one of ${Object.keys(FILE_TYPES).join(", ")}`);
  }
}

/** The schema step of the attachments table, applied once by the first resource with a File field. */
export const ATTACHMENTS_STEP: Step = {
  Name: "manifest/attachments-001",
  SQL: `CREATE TABLE manifest_attachments (
  id TEXT PRIMARY KEY,
  resource TEXT NOT NULL,
  record TEXT NOT NULL,
  field TEXT NOT NULL,
  owner TEXT NOT NULL,
  person TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  path TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX manifest_attachments_record ON manifest_attachments (resource, record);
CREATE INDEX manifest_attachments_owner ON manifest_attachments (owner);
CREATE INDEX manifest_attachments_person ON manifest_attachments (person);`,
};

/** The columns of an attachment's row an account export holds: all but the server's `path`. */
export const ATTACHMENT_EXPORT_COLUMNS: string = "id, resource, record, field, owner, person, name, type, size, sha256, created_at";

/** An attachment's row. */
export interface Attachment {
  readonly id: string;
  readonly resource: string;
  readonly record: string;
  readonly field: string;
  readonly owner: string;
  readonly person: string;
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly path: string;
  readonly created_at: number;
}

/** A file written to disk and not yet recorded: `insertRow` records it. */
export interface WrittenFile {
  readonly id: string;
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly type: string;
}

/** Why a file was refused: too large (413), a type not accepted (415), or over the person's quota (413). */
export class FileRefused extends Error {
  readonly status: 413 | 415;
  readonly reason: "too_large" | "type" | "quota";
  constructor(reason: "too_large" | "type" | "quota", message: string) {
    super(message);
    this.reason = reason;
    this.status = reason === "type" ? 415 : 413;
  }
}

/**
 * A safe file name to keep and send back: no path, no control, format or quoting characters, ending in the extension of
 * the type sniffed from the bytes, at most FILE_NAME_MAX_LENGTH characters.
 */
export function safeFileName(given: string, type: string): string {
  // OWASP ASVS 5.0 §5.3.2: the name a person gave is never a path; only its last segment, without controls or quotes.
  const last = given.split(/[\\/]/).pop() ?? "";
  const cleaned = last
    // OWASP ASVS 5.0 §5.3.2: no format characters (\p{Cf}: U+202E reverses what follows), which show one name and save another.
    .replace(/\p{Cf}/gu, "")
    .replace(/[\u0000-\u001f\u007f"\\;]/g, "_")
    .replace(/^\.+/, "")
    .trim();
  const extensions = FILE_TYPES[type]?.extensions ?? ["bin"];
  if (cleaned === "") return `file.${extensions[0]}`;
  // OWASP ASVS 5.0 §5.2.2: the extension is the checked type's ("invoice.bat" holding a PDF is kept as "invoice.bat.pdf").
  const kept = extensions.map((e) => `.${e}`).find((e) => cleaned.toLowerCase().endsWith(e));
  const ending = kept === undefined ? `.${extensions[0]}` : cleaned.slice(-kept.length);
  const stem = kept === undefined ? cleaned : cleaned.slice(0, -kept.length);
  return stem.slice(0, FILE_NAME_MAX_LENGTH - ending.length) + ending;
}

/** The attachments of one database, their files in `directory`. */
export class Attachments {
  readonly #db: DB;
  readonly directory: string;
  // The bytes each person's uploads may still write (README "Attachments": the quota bounds them with what is stored).
  readonly #inFlight = new Map<string, number>();

  constructor(db: DB, directory: string) {
    this.#db = db;
    this.directory = directory;
  }

  /**
   * Writes `chunks` to a new file under a random name, hashing and counting them, checking the first SNIFF_BYTES against
   * `accept` and the size against `limit`; throws FileRefused (the partial file removed) when either fails.
   */
  async write(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, accept: readonly string[], limit: number): Promise<WrittenFile> {
    // OWASP ASVS 5.0 §5.3.2: the stored name is ours (128 random bits), never the person's.
    const id = randomBytes(16).toString("base64url");
    const path = join(this.directory, id);
    const hash = createHash("sha256");
    let head = Buffer.alloc(0);
    let type: string | undefined;
    const size = await writeUploadFile(
      chunks,
      path,
      limit,
      () => tooLarge(limit),
      (chunk) => {
        if (type === undefined) {
          head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
          if (head.length >= 3) type = sniffAccepted(head, accept, head.length >= SNIFF_BYTES);
        }
        hash.update(chunk);
      },
    );
    try {
      // A file shorter than every signature is none of the accepted types.
      type ??= sniffAccepted(head, accept, true);
    } catch (e) {
      rmSync(path, { force: true });
      throw e;
    }
    return { id, path, size, sha256: hash.digest("hex"), type: type ?? "" };
  }

  /**
   * Holds `bytes` of `person`'s quota for an upload about to be read, refusing (FileRefused "quota") when what they store
   * and what their other uploads hold would pass it; the upload calls the returned release when it ends, however it ends.
   */
  reserve(person: string, bytes: number): () => void {
    // OWASP ASVS 5.0 §5.2.4: uploads running at once cannot together write past the quota; refused before a byte is read.
    if (!this.#withinQuota(person, (this.#inFlight.get(person) ?? 0) + bytes)) throw overQuota();
    this.#inFlight.set(person, (this.#inFlight.get(person) ?? 0) + bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#inFlight.get(person) ?? 0) - bytes;
      if (left > 0) this.#inFlight.set(person, left);
      else this.#inFlight.delete(person);
    };
  }

  /**
   * Inserts `file`'s row as the attachment of `record`'s `field`, refusing (the file removed) when it would pass the
   * person's quota.
   */
  insertRow(file: WrittenFile, at: Omit<Attachment, "id" | "path" | "size" | "sha256" | "type">): Attachment {
    const row: Attachment = { ...at, id: file.id, path: file.path, size: file.size, sha256: file.sha256, type: file.type };
    // OWASP ASVS 5.0 §5.2.4 (and §13.1.3): what one person stores is bounded, counted in the transaction that adds to it.
    const within = immediately(this.#db, () => {
      if (!this.#withinQuota(at.person, file.size)) return false;
      this.#db
        .prepare(
          `INSERT INTO manifest_attachments (id, resource, record, field, owner, person, name, type, size, sha256, path, created_at)
           VALUES (@id, @resource, @record, @field, @owner, @person, @name, @type, @size, @sha256, @path, @created_at)`,
        )
        .run(row);
      return true;
    });
    if (!within) {
      rmSync(file.path, { force: true });
      throw overQuota();
    }
    return row;
  }

  /**
   * Throws the FileRefused that `reserve`, `write` then `insertRow` would throw for `bytes` (a whole file already in memory, as a
   * tool's argument is), writing nothing: a tool's dry run before its person is asked (files-tool.ts).
   */
  refuseEarly(bytes: Uint8Array, accept: readonly string[], limit: number, person: string): void {
    if (bytes.length > limit) throw tooLarge(limit);
    sniffAccepted(bytes.subarray(0, SNIFF_BYTES), accept, true);
    if (!this.#withinQuota(person, (this.#inFlight.get(person) ?? 0) + bytes.length)) throw overQuota();
  }

  // OWASP ASVS 5.0 §5.2.4: whether `person` may store `size` bytes more.
  #withinQuota(person: string, size: number): boolean {
    return this.usage(person) + size <= ATTACHMENT_QUOTA_PER_PERSON;
  }

  /** The bytes `person` has stored. */
  usage(person: string): number {
    return (
      this.#db.prepare<[string], number>("SELECT coalesce(sum(size), 0) FROM manifest_attachments WHERE person = ?").pluck().get(person) ??
      0
    );
  }

  /** The attachment `id` of `record`'s `field` in `resource`, or undefined (another record's id names nothing here). */
  find(resource: string, record: string, field: string, id: string): Attachment | undefined {
    return this.#db
      .prepare<[string, string, string, string], Attachment>(
        "SELECT * FROM manifest_attachments WHERE id = ? AND resource = ? AND record = ? AND field = ?",
      )
      .get(id, resource, record, field);
  }

  /** Deletes the attachments of `record` whose ids are not in `kept` (all of them by default): rows, then files. */
  removeOf(resource: string, record: string, kept: readonly string[] = []): void {
    const rows = this.#db
      .prepare<[string, string], { id: string; path: string }>(
        "SELECT id, path FROM manifest_attachments WHERE resource = ? AND record = ?",
      )
      .all(resource, record)
      .filter((r) => !kept.includes(r.id));
    removeRows(this.#db, rows);
  }
}

/** Deletes attachment rows, then their files (a file whose row is gone is never served; one left behind is only disk). */
export function removeRows(db: DB, rows: readonly { id: string; path: string }[]): void {
  const remove = db.prepare("DELETE FROM manifest_attachments WHERE id = ?");
  for (const row of rows) remove.run(row.id);
  for (const row of rows) rmSync(row.path, { force: true });
}

// OWASP ASVS 5.0 §5.2.1: past the field's cap.
function tooLarge(limit: number): FileRefused {
  return new FileRefused("too_large", `larger than ${limit} bytes`);
}

// OWASP ASVS 5.0 §5.2.4: past what one person may store.
function overQuota(): FileRefused {
  return new FileRefused("quota", `over the quota of ${ATTACHMENT_QUOTA_PER_PERSON} bytes per person; delete files first`);
}

// The accepted type `head` starts with; undefined when it can be none of them, or (not `final`) when more bytes may decide.
function sniffAccepted(head: Uint8Array, accept: readonly string[], final: boolean): string | undefined {
  const type = sniffType(head);
  if (type !== undefined && accept.includes(type)) return type;
  if (type !== undefined || final) throw new FileRefused("type", `not one of ${accept.join(", ")}`);
  return undefined;
}
