/*
 * The asset set: `NewAssets` loads and fingerprints every file once at
 * startup (see load.ts); `Path` maps a name to its URL and `Handler` serves
 * those URLs. Both are lookups in in-memory maps, so `Path` is cheap enough
 * to call from every template render and the handler never touches the disk.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import type { HandlerFunc } from "../http/index.ts";
import { writeText } from "../internal/index.ts";
import { AssetsError } from "./errors.ts";
import { loadEntries, type Entry } from "./load.ts";
import { chooseCoding, matchesIfNoneMatch, type Coding } from "./negotiate.ts";

/** `Cache-Control` of every asset response: fingerprinted URLs never change. */
export const ASSET_CACHE_CONTROL: string = "public, max-age=31536000, immutable";

/**
 * The framework's own browser scripts (`lib/client`), to serve beside the
 * application's assets: `NewAssets([myDir, CLIENT_DIR])`.
 */
export const CLIENT_DIR: string = fileURLToPath(new URL("../client/", import.meta.url));

/** A fingerprinted, precompressed set of static files. */
export interface Assets {
  /**
   * Returns the URL of the asset `name` (a path relative to its directory,
   * "/"-separated): `Path("img/logo.svg")` is `/static/img/logo-<hash>.svg`.
   * A pure map lookup. Throws `AssetsError` `ERR_ASSETS_UNKNOWN_NAME` for a
   * name not in the set, so a typo in a template fails loudly.
   */
  Path(name: string): string;
  /**
   * Returns the handler to mount at `GET /static/` without prefix
   * stripping. It answers GET and HEAD with immutable caching, a strong
   * ETag per encoding, 304, br/gzip negotiation and nosniff; 404 for any
   * other path (including stale hashes), 405 for other methods.
   */
  Handler(): HandlerFunc;
}

/**
 * Reads every file under `dir` (or each of several directories)
 * recursively, once, and returns the asset set. Dotfiles are skipped.
 * Throws `AssetsError`: `ERR_ASSETS_READ` (unreadable directory),
 * `ERR_ASSETS_INVALID_NAME` (a name outside A-Z a-z 0-9 . _ -),
 * `ERR_ASSETS_DUPLICATE_NAME` (same name in two directories),
 * `ERR_ASSETS_OUTSIDE_ROOT` (a symlink leading out of its directory),
 * `ERR_ASSETS_IMPORT_CYCLE` (scripts importing each other in a circle; a
 * script's relative imports of assets are linked to their fingerprints).
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
      if (entry === undefined) {
        throw new AssetsError("ERR_ASSETS_UNKNOWN_NAME", `asset path: no asset named ${JSON.stringify(name)}`);
      }
      return entry.url;
    },
    Handler: () => handler,
  };
}

function createHandler(byURL: ReadonlyMap<string, Entry>): HandlerFunc {
  return function serveAsset(req: IncomingMessage, res: ServerResponse): void {
    const target = req.url ?? "";
    const query = target.indexOf("?");
    // Path traversal: the request path is only ever a key into the table built
    // at startup; it is never decoded or joined onto a directory.
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
    if (matchesIfNoneMatch(req.headers["if-none-match"], variant.etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader("Content-Type", entry.contentType);
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (coding !== "identity") res.setHeader("Content-Encoding", coding);
    res.setHeader("Content-Length", variant.body.length);
    res.statusCode = 200;
    res.end(req.method === "HEAD" ? undefined : variant.body);
  };
}
