/*
 * The plain-text answer every component gives for a refusal or a short
 * status: one implementation, so Content-Type and length are the same
 * everywhere.
 */
import type { ServerResponse } from "node:http";

/** Ends `res` with a plain-text message followed by a newline. */
export function writeText(res: ServerResponse, status: number, text: string): void {
  const body = text + "\n";
  res.statusCode = status;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
