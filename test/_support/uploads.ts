/*
 * A large multipart upload sent chunked (no Content-Length), so the server learns its size only by reading it: for the
 * tests that weigh what a server holds of an upload it refuses (test/manifest/attachments*, demo-files).
 */
import { request } from "node:http";

/** What `sendChunked` sends: `head`, then `total` bytes of `piece`s, then `tail`, to `url` with `headers`. */
export interface ChunkedUpload {
  url: string;
  headers: Record<string, string>;
  head: string;
  total: number;
  tail: string;
}

/** Sends `upload` and resolves with the answer's status; a connection the server closes on its answer is no error. */
export function sendChunked(upload: ChunkedUpload): Promise<number> {
  const piece = Buffer.alloc(64 * 1024, 0x41);
  return new Promise<number>((resolve, reject) => {
    const req = request(upload.url, { method: "POST", headers: { ...upload.headers, "Transfer-Encoding": "chunked" } });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)));
    let sent = 0;
    req.write(upload.head);
    const more = (): void => {
      while (sent < upload.total) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", more);
      }
      req.end(upload.tail);
    };
    more();
  });
}
