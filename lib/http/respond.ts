/*
 * The small answers an application gives: a JSON document and a 303
 * redirect (the plain-text answer and the error page are lib/internal's
 * `writeText` and `writeErrorPage`). One implementation, so Content-Type,
 * length and caching headers are the same everywhere.
 */
import type { ServerResponse } from "node:http";

/** Ends `res` with a JSON body (`Cache-Control: no-store`). */
export function writeJSON(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value) + "\n";
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

/** Ends `res` with `303 See Other` to `location` (a path or URL the caller vouches for). */
export function seeOther(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader("Location", location);
  res.setHeader("Cache-Control", "no-store");
  res.end();
}
