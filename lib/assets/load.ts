/*
 * Startup half of the asset set: walk each directory once, read and
 * fingerprint every file; no request can name a file (no path join at
 * request time). Names are "/"-separated URL-safe segments (an encoded
 * request path can never match); a symlink out of its root is refused.
 * Compression runs at a file's first serving, not at startup: best brotli
 * costs milliseconds a file, and a cold start serves `/healthz` first.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { createRequire } from "node:module";
import { contentTypeFor } from "./content-type.ts";
import { AssetsError } from "./errors.ts";
import type { Coding } from "./negotiate.ts";

/** Number of hex characters of SHA-256 kept in asset URLs and ETags (40 bits). */
export const HASH_LENGTH: number = 10;

/** URL prefix under which assets are served. */
export const STATIC_PREFIX: string = "/static/";

/** One encoded form of an asset, ready to send. */
export interface Variant {
  body: Buffer;
  /** Strong entity tag of exactly these bytes, quoted. */
  etag: string;
}

/** One asset: its logical name, fingerprinted URL and encoded variants. */
export interface Entry {
  name: string;
  url: string;
  contentType: string;
  /** The encoded forms: identity, plus br and gzip where smaller; built on the first call, then kept. */
  variants(): ReadonlyMap<Coding, Variant>;
}

// One URL-safe path segment; a leading dot is handled (skipped) before this.
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** Returns the first `HASH_LENGTH` hex characters of the SHA-256 of `bytes`. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, HASH_LENGTH);
}

/** Returns the URL of an asset: `/static/<dir>/<stem>-<hash><ext>`. */
export function fingerprintURL(name: string, hash: string): string {
  const slash = name.lastIndexOf("/") + 1;
  const dot = name.lastIndexOf(".");
  if (dot <= slash) return `${STATIC_PREFIX}${name}-${hash}`;
  return `${STATIC_PREFIX}${name.slice(0, dot)}-${hash}${name.slice(dot)}`;
}

/** Reads every file under `roots` and returns the table keyed by name; throws `AssetsError` (see `NewAssets`). */
export function loadEntries(roots: readonly string[]): Map<string, Entry> {
  const files = new Map<string, Buffer>();
  const origin = new Map<string, string>();
  for (const root of roots) {
    let realRoot: string;
    try {
      realRoot = realpathSync(root);
      if (!statSync(realRoot).isDirectory()) throw new Error("not a directory");
    } catch (cause) {
      throw new AssetsError("ERR_ASSETS_READ", `load assets: cannot read directory ${root}`, { cause });
    }
    for (const [name, file] of walk(realRoot, realRoot, "", new Set([realRoot]))) {
      const previous = origin.get(name);
      if (previous !== undefined)
        throw new AssetsError("ERR_ASSETS_DUPLICATE_NAME", `load assets: ${name} is in both ${previous} and ${root}`);
      origin.set(name, root);
      files.set(name, readFileSync(file));
    }
  }
  const entries = new Map<string, Entry>();
  const linking = new Set<string>();
  const entryOf = (name: string): Entry | undefined => {
    const body = files.get(name);
    if (body === undefined || entries.has(name)) return entries.get(name);
    // A fingerprint cannot cover itself: scripts importing each other in a circle cannot be linked.
    if (linking.has(name))
      throw new AssetsError("ERR_ASSETS_IMPORT_CYCLE", `load assets: ${name} imports itself through ${[...linking].join(", ")}`);
    linking.add(name);
    entries.set(name, buildEntry(name, name.endsWith(".js") ? linkImports(name, body, entryOf) : body));
    linking.delete(name);
    return entries.get(name);
  };
  for (const name of files.keys()) entryOf(name);
  return entries;
}

// A script's static import of a relative path: `import … from "./x.js"`, `export … from "../x.js"`, `import "./x.js"`.
const RELATIVE_IMPORT = /(\b(?:from|import)\s*["'])(\.\.?\/[^"'\s]+)(["'])/g;

/**
 * Points a script's relative imports of assets at their fingerprinted names
 * (`./stream.js` → `./stream-<hash>.js`): no build step, and its own hash
 * covers them. An import naming no asset is left as written.
 */
function linkImports(name: string, body: Buffer, entryOf: (name: string) => Entry | undefined): Buffer {
  const base = name.slice(0, name.lastIndexOf("/") + 1);
  const text = body.toString("utf8");
  const linked = text.replace(RELATIVE_IMPORT, (whole, head: string, specifier: string, tail: string) => {
    const url = entryOf(posix.normalize(base + specifier))?.url;
    return url === undefined
      ? whole
      : head + specifier.slice(0, specifier.lastIndexOf("/") + 1) + url.slice(url.lastIndexOf("/") + 1) + tail;
  });
  return linked === text ? body : Buffer.from(linked, "utf8");
}

function* walk(realRoot: string, dir: string, prefix: string, seen: Set<string>): Generator<[string, string]> {
  for (const base of readdirSync(dir).sort()) {
    if (base.startsWith(".")) continue;
    const name = prefix + base;
    if (!SEGMENT.test(base))
      throw new AssetsError("ERR_ASSETS_INVALID_NAME", `load assets: ${JSON.stringify(name)} is not a URL-safe name`);
    let path = join(dir, base);
    if (lstatSync(path).isSymbolicLink()) {
      const target = realpathSync(path);
      // Path traversal: a symlink must not expose a file outside the asset root.
      if (!target.startsWith(realRoot + sep))
        throw new AssetsError("ERR_ASSETS_OUTSIDE_ROOT", `load assets: symlink ${name} leads outside ${realRoot}`);

      path = target;
    }
    const info = statSync(path);
    if (info.isDirectory()) {
      if (seen.has(path)) continue;
      yield* walk(realRoot, path, name + "/", new Set([...seen, path]));
    } else if (info.isFile()) {
      yield [name, path];
    }
  }
}

function buildEntry(name: string, body: Buffer): Entry {
  const hash = hashBytes(body);
  const contentType = contentTypeFor(name);
  let variants: ReadonlyMap<Coding, Variant> | undefined;
  return { name, url: fingerprintURL(name, hash), contentType, variants: () => (variants ??= encode(body, hash, contentType)) };
}

// node:zlib is loaded with the first asset served, not at startup.
const load = createRequire(import.meta.url);

function encode(body: Buffer, hash: string, contentType: string): ReadonlyMap<Coding, Variant> {
  const { brotliCompressSync, constants, gzipSync } = load("node:zlib") as typeof import("node:zlib");
  const variants = new Map<Coding, Variant>([["identity", { body, etag: `"${hash}"` }]]);
  const text = contentType.includes("charset=");
  const br = brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: text ? constants.BROTLI_MODE_TEXT : constants.BROTLI_MODE_GENERIC,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
  if (br.length < body.length) variants.set("br", { body: br, etag: `"${hashBytes(br)}"` });
  const gz = gzipSync(body, { level: constants.Z_BEST_COMPRESSION });
  if (gz.length < body.length) variants.set("gzip", { body: gz, etag: `"${hashBytes(gz)}"` });
  return variants;
}
