/*
 * The package as npm ships it. `npm pack --dry-run` checks the `files`
 * list: docs/, a README for every module, LICENSE, the compiled library,
 * the sources its source maps point at, the catalogs, examples/starter
 * and examples/guide; no tests or other examples. Then the real tarball is installed into a throwaway project
 * with only `typescript` and `@types/node` beside it, and the guide's
 * application (examples/guide with examples/starter's pages, which import
 * latch by its package name) is compiled under strict, without skipLibCheck,
 * by TypeScript 5 (installed there) and 7 (this repository's), and started:
 * its /healthz must answer. The app's tsconfig lists no `types`: latch's
 * declarations reference Node's types themselves.
 *
 * Network: one `npm install` (the tarball's three dependencies,
 * typescript@5, @types/node@20), skipped with the reason when the registry
 * cannot be reached. It runs with --ignore-scripts, so better-sqlite3's
 * native build is copied from this repository's install instead of being
 * compiled again (a minute) or downloaded. A second project, holding the
 * `allowScripts` docs/supply-chain.md gives an application, installs the
 * tarball as a dry run under `--strict-allow-scripts`: npm must find no
 * install script that field leaves unreviewed (latch's own included).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { test, type TestContext } from "node:test";
import { ROOT, codeBlocks, listFiles, readRepoFile } from "../_support/docs.ts";
import { fetchHTTP } from "../_support/http.ts";

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** Runs `npm pack` (a dry run unless `destination` is given) and returns its report. */
function pack(destination?: string): PackResult {
  const args = ["pack", "--json", "--ignore-scripts", ...(destination === undefined ? ["--dry-run"] : ["--pack-destination", destination])];
  const out = execFileSync("npm", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [result] = JSON.parse(out) as PackResult[];
  assert.ok(result !== undefined, "npm pack reported nothing");
  return result;
}

test("npm pack ships LICENSE, docs/, every module README, the library, the sources of its source maps, the starter and the guide's app", (t) => {
  const result = pack();
  const packed = new Set(result.files.map((f) => f.path));
  t.diagnostic(`${result.files.length} files, ${result.size} bytes packed, ${result.unpackedSize} unpacked`);
  const modules = readdirSync(join(ROOT, "lib"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const want = [
    "LICENSE",
    "README.md",
    ...listFiles("docs", [".md"]),
    ...modules.map((name) => `lib/${name}/README.md`),
    "lib/signin/oidc/README.md",
  ];
  // A module without a README is a failure here too: the README must exist to be shipped.
  const missing = want.filter((path) => !existsSync(join(ROOT, path)) || !packed.has(path));
  assert.deepEqual(missing, []);
  assert.ok(packed.has("dist/lib/index.js") && packed.has("catalogs/en.json"), "the library and the catalogs are still shipped");
  // The starter and the guide's application ship to be copied (docs/guide.md); no other example, no test.
  const copied = (path: string): boolean => path.startsWith("examples/starter/") || path.startsWith("examples/guide/");
  assert.deepEqual(
    [...packed].filter(
      (path) =>
        path.startsWith("test/") ||
        path.startsWith("dist/test/") ||
        (path.startsWith("examples/") && !copied(path)) ||
        path.startsWith("dist/examples/"),
    ),
    [],
  );
  const starter = [
    "examples/starter/README.md",
    "examples/starter/pages/layout.ts",
    "examples/starter/static/starter.css",
    "examples/starter/locales/ar.json",
    "examples/guide/main.ts",
  ];
  assert.deepEqual(
    starter.filter((path) => !packed.has(path)),
    [],
  );
  // Decision (docs/handbook.md, "Releasing"): the sources ship, so every source map resolves.
  const unresolved: string[] = [];
  for (const map of [...packed].filter((path) => path.endsWith(".js.map"))) {
    const { sources } = JSON.parse(readFileSync(join(ROOT, map), "utf8")) as { sources: string[] };
    for (const source of sources) {
      const target = posix.normalize(posix.join(posix.dirname(map), source));
      if (!packed.has(target)) unresolved.push(`${map} → ${target}`);
    }
  }
  assert.deepEqual(unresolved, []);
  assert.ok(
    [...packed].some((path) => path.endsWith(".js.map")),
    "source maps are shipped",
  );
});

test("the shipped declarations never name better-sqlite3, and each entry point references Node's types", () => {
  const declarations = listFiles("dist/lib", [".d.ts"]);
  assert.ok(declarations.length > 50);
  assert.deepEqual(
    declarations.filter((file) => readFileSync(join(ROOT, file), "utf8").includes("better-sqlite3")),
    [],
  );
  const entries = declarations.filter((file) => /^dist\/lib\/([a-z]+\/)?index\.d\.ts$/.test(file));
  assert.deepEqual(
    entries.filter((file) => !readFileSync(join(ROOT, file), "utf8").startsWith('/// <reference types="node"')),
    [],
  );
});

/** Copies the guide's application and the starter into `dir`, as they are: both import latch by its package name. */
function copyGuide(dir: string): void {
  for (const file of [...listFiles("examples/guide", [".ts"]), ...listFiles("examples/starter", [".ts", ".css", ".json"])]) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
}

/** The reason to skip when npm's output says the registry cannot be reached, else undefined. */
function offlineReason(stderr: string): string | undefined {
  if (!/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ENOTCACHED|network/i.test(stderr)) return undefined;
  return `the npm registry is unreachable: ${stderr.split("\n").find((l) => l.includes("ERR") || l.includes("error")) ?? "install failed"}`;
}

/** Installs the packed tarball, typescript@5 and @types/node@20 into `dir`; returns a skip reason when offline. */
function install(t: TestContext, dir: string, tarball: string): string | undefined {
  const r = spawnSync(
    "npm",
    [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--no-package-lock",
      tarball,
      "typescript@5",
      "@types/node@20",
    ],
    { cwd: dir, encoding: "utf8" },
  );
  if (r.status !== 0) {
    const offline = offlineReason(r.stderr);
    if (offline !== undefined) return offline;
    assert.fail(`npm install failed:\n${r.stderr}`);
  }
  t.diagnostic(
    `installed with ${readFileSync(join(dir, "node_modules/typescript/package.json"), "utf8").match(/"version": "([^"]+)"/)?.[1] ?? "?"} beside the tarball`,
  );
  // --ignore-scripts: reuse this repository's native build of better-sqlite3.
  cpSync(join(ROOT, "node_modules/better-sqlite3/build"), join(dir, "node_modules/better-sqlite3/build"), { recursive: true });
  return undefined;
}

function compile(tsc: string, dir: string, outDir: string): void {
  const r = spawnSync(process.execPath, [tsc, "-p", ".", "--outDir", outDir], { cwd: dir, encoding: "utf8" });
  assert.equal(r.status, 0, `${tsc}:\n${r.stdout}${r.stderr}`);
}

test(
  "a fresh project with only latch, typescript and @types/node compiles (TypeScript 5 and 7) and starts the guide's application",
  { timeout: 600_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "latch-package-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const result = pack(dir);
    t.diagnostic(`${result.filename}: ${result.files.length} files, ${result.size} bytes`);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }));
    const skip = install(t, dir, join(dir, result.filename));
    if (skip !== undefined) return t.skip(skip);
    copyGuide(dir);
    const compilerOptions = {
      target: "es2023",
      module: "nodenext",
      moduleResolution: "nodenext",
      strict: true,
      skipLibCheck: false,
      rewriteRelativeImportExtensions: true,
      rootDir: ".",
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["examples"] }, null, 2));
    compile(join(dir, "node_modules/typescript/bin/tsc"), dir, "dist5");
    compile(join(ROOT, "node_modules/typescript/bin/tsc"), dir, "dist");

    const child = spawn(process.execPath, ["dist/examples/guide/main.js", "--addr", "127.0.0.1:0"], {
      cwd: dir,
      env: { PATH: process.env["PATH"], INSTANCE_KEY: "package-test-key-not-secret-0123456789", STATE_DIRECTORY: join(dir, "state") },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    t.after(() => {
      if (child.exitCode === null) child.kill("SIGKILL");
    });
    let log = "";
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        const m = /"msg":"listening","addr":"[^"]*:(\d+)"/.exec(log);
        if (m?.[1] !== undefined) resolve(Number(m[1]));
      });
      void exited.then((code) => reject(new Error(`the app exited (${code}) before listening:\n${log}`)));
    });
    const health = await fetchHTTP(port, "/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.body ?? ""), { status: "ok" });
    assert.equal((await fetchHTTP(port, "/signin")).status, 200);
    // Step 6's resource is mounted, behind the session gate.
    assert.equal((await fetchHTTP(port, "/expenses")).status, 401);
    const css = /href="(\/static\/starter-[0-9a-f]{10}\.css)"/.exec((await fetchHTTP(port, "/")).body ?? "")?.[1];
    assert.ok(css !== undefined, "the home page links the starter's stylesheet");
    assert.equal((await fetchHTTP(port, css)).status, 200);
    child.kill("SIGTERM");
    assert.equal(await exited, 0, log);
  },
);

/** The `allowScripts` docs/supply-chain.md ("Install scripts") tells an application to declare: its JSON block. */
function documentedAllowScripts(): Record<string, boolean> {
  const section = readRepoFile("docs/supply-chain.md")
    .split(/^## /m)
    .find((part) => part.startsWith("Install scripts\n"));
  const block = codeBlocks(section ?? "").find((b) => b.info === "json");
  assert.ok(block !== undefined, 'docs/supply-chain.md has no JSON block under "## Install scripts"');
  return (JSON.parse(block.code) as { allowScripts: Record<string, boolean> }).allowScripts;
}

test(
  "an application holding docs/supply-chain.md's allowScripts installs the tarball under --strict-allow-scripts: no install script unreviewed",
  { timeout: 300_000 },
  (t) => {
    // The application's entries are latch's own but for its development tools.
    const own = JSON.parse(readRepoFile("package.json")) as {
      allowScripts: Record<string, boolean>;
      devDependencies: Record<string, string>;
    };
    const documented = documentedAllowScripts();
    assert.deepEqual(documented, Object.fromEntries(Object.entries(own.allowScripts).filter(([name]) => !(name in own.devDependencies))));
    assert.equal(documented["better-sqlite3"], true, "better-sqlite3's native build must run");
    const known = spawnSync("npm", ["config", "get", "strict-allow-scripts"], { encoding: "utf8" }).stdout.trim();
    if (known === "undefined") return t.skip("this npm has no strict-allow-scripts setting (npm 11.16 or later has)");
    const dir = mkdtempSync(join(tmpdir(), "latch-scripts-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const result = pack(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module", allowScripts: documented }));
    // A dry run: npm resolves the tree and checks every install script against allowScripts (strict: refusing the
    // install), then stops before fetching or running anything.
    const r = spawnSync("npm", ["install", "--dry-run", "--strict-allow-scripts", "--no-audit", "--no-fund", join(dir, result.filename)], {
      cwd: dir,
      encoding: "utf8",
    });
    const offline = r.status === 0 ? undefined : offlineReason(r.stderr);
    if (offline !== undefined) return t.skip(offline);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /allowScripts|ESTRICTALLOWSCRIPTS/);
  },
);
