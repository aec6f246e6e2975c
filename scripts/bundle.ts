/*
 * Bundles an application's compiled ES modules into one file, for a faster
 * cold start: on Node 20 the ES module loader costs about a millisecond per
 * file (resolve, open, stat, read, link), and the demo loads 220 files, so
 * loading one file instead is most of what a socket-activated first visitor
 * waits for (BENCHMARKS.md (h); docs/guide.md "Running it for real").
 *
 * esbuild only joins tsc's JavaScript output (dist/): it compiles nothing,
 * and the bundle runs the same code. latch's three runtime dependencies stay
 * in node_modules, loaded as they are unbundled.
 *
 * Modules find their data files relative to themselves (`new URL("../client/",
 * import.meta.url)`: catalogs, client assets, the passkey signature worker).
 * In one file every module would share the bundle's URL, so each module's
 * `import.meta.url` is rewritten to its own file's URL, relative to the
 * bundle: the bundle must stay beside the dist/ tree it was built from (it
 * is a faster entry into that tree, not a replacement for it).
 *
 * Usage: node dist/scripts/bundle.js [entry outfile]
 *   default: dist/examples/demo/main.js -> dist/bundle/demo.js
 */
import { build, type Plugin } from "esbuild";
import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The demo's entry and its bundle, as deploy/systemd/latch-demo.service runs it. */
export const DEMO_ENTRY: string = resolve(ROOT, "dist/examples/demo/main.js");
export const DEMO_BUNDLE: string = resolve(ROOT, "dist/bundle/demo.js");

/** Rewrites each module's `import.meta.url` to its own file's URL, relative to the bundle's directory. */
function ownModuleURLs(outDir: string): Plugin {
  return {
    name: "own-module-urls",
    setup(plugin) {
      plugin.onLoad({ filter: /\.[cm]?js$/ }, async ({ path }) => {
        const source = await readFile(path, "utf8");
        // The rewrite covers `import.meta.url` only: refuse to bundle a module
        // that reads its location another way rather than break it quietly.
        const other = /import\.meta\.(?!url\b)\w+/.exec(source);
        if (other !== null) throw new Error(`${path}: ${other[0]} is not rewritten for the bundle; use import.meta.url`);
        if (!source.includes("import.meta.url")) return undefined;
        const fromBundle = relative(outDir, path).split(sep).map(encodeURIComponent).join("/");
        const ownURL = `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`;
        return { contents: source.replaceAll("import.meta.url", ownURL), loader: "js", resolveDir: dirname(path) };
      });
    },
  };
}

/** Bundles `entry` (a compiled ES module) into `outfile`, with a linked source map. */
export async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // latch's runtime dependencies load from node_modules as they do
    // unbundled: native code (better-sqlite3) cannot be bundled, and cbor-x
    // and @noble/curves load on a first ceremony only
    // (lib/webauthn/lazy-deps.ts). Everything else is bundled, the latch
    // package too when an application imports it.
    external: ["better-sqlite3", "cbor-x", "@noble/curves"],
    sourcemap: "linked",
    logLevel: "warning",
    // package.json says "sideEffects": false, so an import kept only for its
    // side effects would be dropped with a warning: make it an error.
    logOverride: { "ignored-bare-import": "error" },
    plugins: [ownModuleURLs(dirname(outfile))],
  });
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2).map((arg) => resolve(arg));
  if (args.length !== 0 && args.length !== 2) {
    process.stderr.write("usage: node dist/scripts/bundle.js [entry outfile]\n");
    process.exit(2);
  }
  const [entry = DEMO_ENTRY, outfile = DEMO_BUNDLE] = args;
  await bundle(entry, outfile);
  process.stdout.write(`bundle: ${relative(process.cwd(), outfile)}\n`);
}
