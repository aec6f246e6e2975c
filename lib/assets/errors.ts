// Every assets error is a startup or template mistake, so each fails loudly instead of serving a broken page.
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The assets module's error codes, each equal to its key. */
export const ASSETS_ERROR_CODES = {
  ERR_ASSETS_READ: "ERR_ASSETS_READ",
  ERR_ASSETS_INVALID_NAME: "ERR_ASSETS_INVALID_NAME",
  ERR_ASSETS_DUPLICATE_NAME: "ERR_ASSETS_DUPLICATE_NAME",
  ERR_ASSETS_OUTSIDE_ROOT: "ERR_ASSETS_OUTSIDE_ROOT",
  ERR_ASSETS_UNKNOWN_NAME: "ERR_ASSETS_UNKNOWN_NAME",
  ERR_ASSETS_IMPORT_CYCLE: "ERR_ASSETS_IMPORT_CYCLE",
} as const;

/** An assets error code. */
export type AssetsErrorCode = keyof typeof ASSETS_ERROR_CODES;

/** An error loading the asset set or looking up an asset name. */
export class AssetsError extends LatchError<AssetsErrorCode> {
  override name: string = "AssetsError";
}

/** Reports whether `e` is an `AssetsError` (by code, so vendored copies match). */
export function isAssetsError(e: unknown): e is AssetsError {
  return hasErrorCode(e, ASSETS_ERROR_CODES);
}
