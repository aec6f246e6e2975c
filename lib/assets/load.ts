/*
 * Startup half of the asset set: walk each directory once, read every file
 * and fingerprint it. After this nothing reads the disk; the handler answers
 * from the table built here, so no request can name a file (there is no path
 * join at request time to traverse). Each file is compressed (brotli and
 * gzip at their best levels) the first time it is served, not at startup:
 * maximum-quality brotli costs milliseconds a file, and a cold start serves
 * `/healthz` and a page before any asset.
 *
 * Invariants of the table: every name is a "/"-separated relative path of
 * URL-safe segments (no percent-encoding is ever needed, so an encoded
 * request path can never match); every file's real path lies inside the
 * real path of its root (symlinks leading out are refused at startup);
 * dotfiles and dot-directories are skipped.
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

/**
 * Reads every file under `roots` and returns the table keyed by name.
 * Throws `AssetsError` when a root cannot be read, a name is not URL-safe,
 * two roots hold the same name, or a symlink leads outside its root.
 */
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
      if (previous !== undefined) {
        throw new AssetsError("ERR_ASSETS_DUPLICATE_NAME", `load assets: ${name} is in both ${previous} and ${root}`);
      }
      origin.set(name, root);
      files.set(name, readFileSync(file));
    }
  }
  const entries = new Map<string, Entry>();
  const linking = new Set<string>();
  const entryOf = (name: string, body: Buffer): Entry => {
    let entry = entries.get(name);
    if (entry !== undefined) return entry;
    if (linking.has(name))
      throw new AssetsError("ERR_ASSETS_IMPORT_CYCLE", `load assets: ${name} imports itself through ${[...linking].join(", ")}`);
    linking.add(name);
    entry = buildEntry(name, name.endsWith(".js") ? linkImports(name, body, files, entryOf) : body);
    linking.delete(name);
    entries.set(name, entry);
    return entry;
  };
  for (const [name, body] of files) entryOf(name, body);
  return entries;
}

// A script's static import of a relative path: `import … from "./x.js"`, `export … from "../x.js"`, `import "./x.js"`.
const RELATIVE_IMPORT = /(\b(?:from|import)\s*)(["'])(\.\.?\/[^"'\s]+)\2/g;

/**
 * Points a script's relative imports of other assets at their fingerprinted
 * names (`./stream.js` → `./stream-<hash>.js`), so a module loaded from its
 * fingerprinted URL finds what it imports and the set needs no build step;
 * the importer's hash then covers what it imports. An import naming no
 * asset is left as written.
 */
function linkImports(
  name: string,
  body: Buffer,
  files: ReadonlyMap<string, Buffer>,
  entryOf: (name: string, body: Buffer) => Entry,
): Buffer {
  const base = name.slice(0, name.lastIndexOf("/") + 1);
  let linked = false;
  const text = body.toString("utf8").replace(RELATIVE_IMPORT, (whole, keyword: string, quote: string, specifier: string) => {
    const target = posix.normalize(base + specifier);
    const imported = files.get(target);
    if (imported === undefined) return whole;
    const url = entryOf(target, imported).url;
    linked = true;
    return `${keyword}${quote}${specifier.slice(0, specifier.lastIndexOf("/") + 1)}${url.slice(url.lastIndexOf("/") + 1)}${quote}`;
  });
  return linked ? Buffer.from(text, "utf8") : body;
}

function* walk(realRoot: string, dir: string, prefix: string, seen: Set<string>): Generator<[string, string]> {
  for (const base of readdirSync(dir).sort()) {
    if (base.startsWith(".")) continue;
    const name = prefix + base;
    if (!SEGMENT.test(base)) {
      throw new AssetsError("ERR_ASSETS_INVALID_NAME", `load assets: ${JSON.stringify(name)} is not a URL-safe name`);
    }
    let path = join(dir, base);
    if (lstatSync(path).isSymbolicLink()) {
      const target = realpathSync(path);
      // Path traversal: a symlink must not expose a file outside the asset root.
      if (!target.startsWith(realRoot + sep)) {
        throw new AssetsError("ERR_ASSETS_OUTSIDE_ROOT", `load assets: symlink ${name} leads outside ${realRoot}`);
      }
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
