// The asset set: `NewAssets` loads and fingerprints every file once at startup (load.ts); `Path` and `Handler` are lookups in memory, never the disk.
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import type { HandlerFunc } from "../http/index.ts";
import { writeText } from "../internal/index.ts";
import { AssetsError } from "./errors.ts";
import { loadEntries, type Entry } from "./load.ts";
import { chooseCoding, matchesIfNoneMatch, type Coding } from "./negotiate.ts";

/** `Cache-Control` of every asset response: fingerprinted URLs never change. */
export const ASSET_CACHE_CONTROL: string = "public, max-age=31536000, immutable";

/** The framework's own browser scripts (`lib/client`), to serve beside the application's: `NewAssets([myDir, CLIENT_DIR])`. */
export const CLIENT_DIR: string = fileURLToPath(new URL("../client/", import.meta.url));

/** A fingerprinted, precompressed set of static files. */
export interface Assets {
  /**
   * Returns the URL of the asset `name` (relative to its directory): `Path("img/logo.svg")` is
   * `/static/img/logo-<hash>.svg`. Throws `AssetsError` `ERR_ASSETS_UNKNOWN_NAME`, so a typo fails loudly.
   */
  Path(name: string): string;
  /**
   * Returns the handler to mount at `GET /static/`: immutable caching, a strong ETag per encoding, 304,
   * br/gzip negotiation, nosniff; 404 for any other path (a stale hash too), 405 for other methods.
   */
  Handler(): HandlerFunc;
}

/**
 * Reads every file under `dir` (or each of several directories; dotfiles
 * skipped) once, and returns the asset set; a script's relative imports of
 * assets are linked to their fingerprints. Throws `AssetsError`
 * (`ERR_ASSETS_READ`, `_INVALID_NAME`, `_DUPLICATE_NAME`, `_OUTSIDE_ROOT`,
 * `_IMPORT_CYCLE`; lib/assets/README.md).
 *
 * @example
 * const assets = NewAssets([fileURLToPath(new URL("./public/", import.meta.url)), CLIENT_DIR]);
 * mux.Handle("GET /static/", assets.Handler());
 * html`<link rel="stylesheet" href="${assets.Path("app.css")}">`;
 */
export function NewAssets(dir: string | readonly string[]): Assets {
  const roots = typeof dir === "string" ? [dir] : dir;
  const byName = loadEntries(roots);
  const byURL = new Map<string, Entry>();
  for (const entry of byName.values()) byURL.set(entry.url, entry);
  const handler = createHandler(byURL);
  return {
    Path(name: string): string {
      const entry = byName.get(name);
      if (entry === undefined) throw new AssetsError("ERR_ASSETS_UNKNOWN_NAME", `asset path: no asset named ${JSON.stringify(name)}`);
      return entry.url;
    },
    Handler: () => handler,
  };
}

function createHandler(byURL: ReadonlyMap<string, Entry>): HandlerFunc {
  return function serveAsset(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "";
    const query = target.indexOf("?");
    // Path traversal: the request path is only ever a key into the table built at startup, never decoded or joined onto a directory.
    const entry = byURL.get(query === -1 ? target : target.slice(0, query));
    if (entry === undefined) return writeText(res, 404, "404 page not found", { nosniff: true });
    if (req.method !== "GET" && req.method !== "HEAD") {
      // RFC 9110 §15.5.6: a 405 carries Allow.
      res.setHeader("Allow", "GET, HEAD");
      return writeText(res, 405, "405 method not allowed", { nosniff: true });
    }
    const header = req.headers["accept-encoding"];
    const variants = entry.variants();
    const coding = chooseCoding(header, new Set<Coding>(variants.keys()));
    res.setHeader("Vary", "Accept-Encoding");
    if (coding === undefined) return writeText(res, 406, "406 no acceptable content coding", { nosniff: true });
    const variant = variants.get(coding);
    if (variant === undefined) return writeText(res, 404, "404 page not found", { nosniff: true });
    res.setHeader("Cache-Control", ASSET_CACHE_CONTROL);
    res.setHeader("ETag", variant.etag);
    // RFC 9110 §13.1.2: a matching If-None-Match on GET/HEAD answers 304.
    if (matchesIfNoneMatch(req.headers["if-none-match"], variant.etag)) return void res.writeHead(304).end();

    res.setHeader("Content-Type", entry.contentType);
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (coding !== "identity") res.setHeader("Content-Encoding", coding);
    res.setHeader("Content-Length", variant.body.length);
    res.statusCode = 200;
    res.end(req.method === "HEAD" ? undefined : variant.body);
  };
}
