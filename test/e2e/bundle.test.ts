/*
 * The demo as its unit runs it: dist/bundle/demo.js, the demo and its 220
 * modules joined into one file by `npm run build` (scripts/bundle.ts), for
 * the cold start (BENCHMARKS.md (h)). The bundle is the same code, so these
 * tests check what bundling could break: files the modules find relative to
 * themselves (catalogs, the demo's locales and stylesheet, the browser
 * scripts; the passkey signature worker's file beside its verifier), the
 * packages left in node_modules (better-sqlite3 behind a signed-in session,
 * real SMTP), the demo's run-time V8 setting, and a route conflict's sites.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { bundle, DEMO_BUNDLE } from "../../scripts/bundle.ts";
import { signInOverHTTP, startBundledDemo, startGuide, type Demo } from "../_support/demo.ts";
import { readRepoFile, ROOT } from "../_support/docs.ts";
import { sendRequest } from "../_support/http-client.ts";

const BUNDLE = pathToFileURL(DEMO_BUNDLE);

describe("the bundled demo (dist/bundle/demo.js)", () => {
  let demo: Demo;

  before(async () => {
    demo = await startBundledDemo();
  });
  after(async () => {
    await demo?.close();
  });

  it("is one module: it imports only node's built-ins and packages, no file of dist/", () => {
    const source = readFileSync(BUNDLE, "utf8");
    const specifiers = [...source.matchAll(/^import\s[^;]*?from\s*"([^"]+)";?$/gm)].map((m) => m[1] ?? "");
    assert.ok(specifiers.includes("better-sqlite3"), specifiers.join(", "));
    assert.deepEqual(
      specifiers.filter((s) => s.startsWith(".") || s.startsWith("/")),
      [],
    );
  });

  it("points every module's own URL at that module's file, which exists beside the bundle", () => {
    const source = readFileSync(BUNDLE, "utf8");
    const own = [...source.matchAll(/new URL\("([^"]+)", import\.meta\.url\)\.href/g)].map((m) => m[1] ?? "");
    for (const module of [
      "../lib/i18n/base.js",
      "../lib/assets/assets.js",
      "../examples/demo/app.js",
      "../lib/webauthn/signature-verifier.js",
    ]) {
      assert.ok(own.includes(module), `${module} not among ${own.join(", ")}`);
    }
    for (const module of own) assert.ok(existsSync(new URL(module, BUNDLE)), module);
    // The signature worker is loaded by URL from the verifier's own directory, unbundled.
    assert.ok(existsSync(new URL("../lib/webauthn/signature-worker.js", BUNDLE)));
  });

  it("keeps V8's young generation small, as main.ts does (examples/demo/young-generation.ts)", () => {
    assert.match(readFileSync(BUNDLE, "utf8"), /setFlagsFromString\("--semi-space-growth-factor=1"\)/);
  });

  it("answers /healthz", async () => {
    const res = await fetch(`${demo.origin}/healthz`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status?: string }).status, "ok");
  });

  it("finds the shipped catalogs and the demo's locales: /signin in French, with the starter's stylesheet", async () => {
    const res = await fetch(`${demo.origin}/signin`, { headers: { "Accept-Language": "fr" } });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.match(body, /<html lang="fr" dir="ltr">/);
    const title = (JSON.parse(readRepoFile("examples/demo/locales/fr.json")) as Record<string, string>)["demo.title"] ?? "";
    assert.ok(title !== "" && body.includes(title), title);
    const css = /href="(\/static\/starter-[0-9a-f]+\.css)"/.exec(body)?.[1];
    assert.ok(css !== undefined, "no fingerprinted stylesheet");
    const sheet = await fetch(demo.origin + css);
    assert.equal(sheet.status, 200);
    assert.equal(await sheet.text(), readRepoFile("examples/starter/static/starter.css"));
  });

  it("signs in by emailed link and serves the browser scripts of lib/client to the signed-in account page", async () => {
    const jar = await signInOverHTTP(demo, "bundle@example.com");
    const account = await sendRequest(demo.origin, "GET", "/account", { jar }, demo.origin);
    assert.equal(account.status, 200);
    assert.match(account.body, /data-subject="bundle@example.com"/);
    const scripts = [...account.body.matchAll(/src="(\/static\/([a-z]+)-[0-9a-f]+\.js)"/g)];
    assert.ok(scripts.length > 0, "no fingerprinted script on /account");
    for (const [, path = "", name = ""] of scripts) {
      const res = await fetch(demo.origin + path);
      assert.equal(res.status, 200, path);
      // A script's import of another names the fingerprinted file it is served as (lib/assets).
      const served = (await res.text()).replace(/"\.\/([a-z]+)-[0-9a-f]+\.js"/g, '"./$1.js"');
      assert.equal(served, readRepoFile(`lib/client/${name}.js`), path);
    }
    assert.deepEqual(demo.errorLogs(), []);
  });
});

describe("an application that imports the latch package, bundled by scripts/bundle.ts (docs/guide.md)", () => {
  const file = pathToFileURL(join(ROOT, `dist/bundle/guide-${process.pid}.js`));
  let guide: Demo;

  before(async () => {
    await bundle(join(ROOT, "dist/examples/guide/main.js"), fileURLToPath(file));
    guide = await startGuide({}, fileURLToPath(file));
  });
  after(async () => {
    await guide?.close();
    rmSync(file, { force: true });
    rmSync(new URL(`${file.href}.map`), { force: true });
  });

  it("bundles latch in with it and finds latch's catalogs and the starter's stylesheet", async () => {
    assert.deepEqual([...readFileSync(file, "utf8").matchAll(/^import\s[^;]*?from\s*"(latch[^"]*)"/gm)], []);
    assert.equal((await fetch(`${guide.origin}/healthz`)).status, 200);
    const res = await fetch(`${guide.origin}/signin`, { headers: { "Accept-Language": "fr" } });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.match(body, /<html lang="fr" dir="ltr">/);
    const css = /href="(\/static\/starter-[0-9a-f]+\.css)"/.exec(body)?.[1];
    assert.ok(css !== undefined, "no fingerprinted stylesheet");
    assert.equal(await (await fetch(guide.origin + css)).text(), readRepoFile("examples/starter/static/starter.css"));
  });
});

describe("a route conflict in a bundle", () => {
  it("names the application's two lines in the bundle, not the router's", async () => {
    const file = join(ROOT, `dist/bundle/conflict-${process.pid}.js`);
    try {
      await bundle(join(ROOT, "dist/test/fixtures/router/conflicting-routes.js"), file);
      const run = spawnSync(process.execPath, [file], { encoding: "utf8" });
      assert.notEqual(run.status, 0);
      // The sites as "path:line" (stderr also quotes the throwing line of the router's source).
      const sites = [...run.stderr.matchAll(/registered at ([^)$]*:\d+)\)/g)].map((m) => m[1] ?? "");
      assert.equal(sites.length, 2, run.stderr);
      assert.notEqual(sites[0], sites[1], run.stderr);
      const lines = readFileSync(file, "utf8").split("\n");
      for (const site of sites) {
        const at = /^(.*):(\d+)$/.exec(site);
        assert.equal(at?.[1], file, site);
        assert.match(lines[Number(at?.[2]) - 1] ?? "", /mux\.Handle\("GET \/a", noop\)/, site);
      }
    } finally {
      rmSync(file, { force: true });
      rmSync(`${file}.map`, { force: true });
    }
  });
});
