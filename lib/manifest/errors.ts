/*
 * Codes thrown by manifest validation. Each error names the resource and, when one is at fault, the field (or column
 * or filter), in its message and in its `resource` / `field` properties.
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The manifest module's error codes, each equal to its key. */
export const MANIFEST_ERROR_CODES = {
  ERR_MANIFEST_INVALID_NAME: "ERR_MANIFEST_INVALID_NAME",
  ERR_MANIFEST_INVALID_ROUTE: "ERR_MANIFEST_INVALID_ROUTE",
  ERR_MANIFEST_UNKNOWN_STORE: "ERR_MANIFEST_UNKNOWN_STORE",
  ERR_MANIFEST_NO_SCOPE: "ERR_MANIFEST_NO_SCOPE",
  ERR_MANIFEST_UNKNOWN_SCOPE: "ERR_MANIFEST_UNKNOWN_SCOPE",
  ERR_MANIFEST_NO_FIELDS: "ERR_MANIFEST_NO_FIELDS",
  ERR_MANIFEST_RESERVED_FIELD: "ERR_MANIFEST_RESERVED_FIELD",
  ERR_MANIFEST_DUPLICATE_FIELD: "ERR_MANIFEST_DUPLICATE_FIELD",
  ERR_MANIFEST_UNKNOWN_KIND: "ERR_MANIFEST_UNKNOWN_KIND",
  ERR_MANIFEST_EMPTY_LABEL: "ERR_MANIFEST_EMPTY_LABEL",
  ERR_MANIFEST_UNKNOWN_COLUMN: "ERR_MANIFEST_UNKNOWN_COLUMN",
  ERR_MANIFEST_DUPLICATE_COLUMN: "ERR_MANIFEST_DUPLICATE_COLUMN",
  ERR_MANIFEST_UNKNOWN_FILTER: "ERR_MANIFEST_UNKNOWN_FILTER",
  ERR_MANIFEST_DUPLICATE_FILTER: "ERR_MANIFEST_DUPLICATE_FILTER",
  ERR_MANIFEST_DUPLICATE_RESOURCE: "ERR_MANIFEST_DUPLICATE_RESOURCE",
  ERR_MANIFEST_INVALID_FIELD: "ERR_MANIFEST_INVALID_FIELD",
  ERR_MANIFEST_NO_SUBJECT: "ERR_MANIFEST_NO_SUBJECT",
  ERR_MANIFEST_INVALID_HISTORY: "ERR_MANIFEST_INVALID_HISTORY",
  ERR_MANIFEST_HISTORY_REFUSED: "ERR_MANIFEST_HISTORY_REFUSED",
  ERR_MANIFEST_INVALID_RULE: "ERR_MANIFEST_INVALID_RULE",
} as const;

/** A manifest error code. */
export type ManifestErrorCode = keyof typeof MANIFEST_ERROR_CODES;

/** A mistake in a resource manifest, found by `Resource.Validate`. */
export class ManifestError extends LatchError<ManifestErrorCode> {
  override name: string = "ManifestError";
  /** The resource's name (as written, possibly invalid). */
  readonly resource: string;
  /** The field, column or filter at fault, or `undefined`. */
  readonly field: string | undefined;

  constructor(code: ManifestErrorCode, where: { resource: string; field?: string }, reason: string) {
    const field = where.field === undefined ? "" : ` field ${JSON.stringify(where.field)}`;
    super(code, `validate resource ${JSON.stringify(where.resource)}${field}: ${reason}`);
    this.resource = where.resource;
    this.field = where.field;
  }
}

/** Reports whether `e` is a `ManifestError` (by code, so vendored copies match). */
export function isManifestError(e: unknown): e is ManifestError {
  return hasErrorCode(e, MANIFEST_ERROR_CODES);
}
