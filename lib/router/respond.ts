/*
 * The router's own answers: 404, 405, 400 and 301. Plain text with a fixed
 * body (never echoing the request), `nosniff`, and an explicit length, as
 * Go's `http.Error` (lib/internal's `writeText`, as the asset handler's).
 * Node omits the body itself for HEAD.
 */
import type { ServerResponse } from "node:http";
import { writeText } from "../internal/index.ts";

/** Answers 404 with "404 page not found". */
export function writeNotFound(res: ServerResponse): void {
  writeText(res, 404, "404 page not found", { nosniff: true });
}

/** Answers 405 with an `Allow` header listing `allow` (already sorted, comma-separated). */
export function writeMethodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader("Allow", allow);
  writeText(res, 405, "405 method not allowed", { nosniff: true });
}

/** Answers 400 for a request-target the router cannot read (malformed escapes, `*`, unknown forms). */
export function writeBadRequest(res: ServerResponse): void {
  writeText(res, 400, "400 bad request: malformed request target", { nosniff: true });
}

/** Answers 301 to `location`, which the caller has already made safe (see `encodeLocation`). */
export function writeMovedPermanently(res: ServerResponse, location: string): void {
  res.setHeader("Location", location);
  writeText(res, 301, "301 moved permanently", { nosniff: true });
}
