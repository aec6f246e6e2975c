// The small answers an application gives, so Content-Type, length and caching are the same everywhere (plain text and error pages: lib/internal).
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
