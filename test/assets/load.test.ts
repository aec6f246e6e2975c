import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, sep } from "node:path";
import type { AssetsErrorCode } from "../../lib/assets/errors.ts";
import { CLIENT_DIR, NewAssets } from "../../lib/assets/index.ts";
import { fingerprintURL, hashBytes, HASH_LENGTH, loadEntries } from "../../lib/assets/load.ts";
import { FIXTURES } from "./support.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "latch-assets-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function assertCode(fn: () => unknown, code: AssetsErrorCode, fragment: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof Error && "code" in e);
    assert.equal(e.code, code);
    assert.ok(e.message.includes(fragment), `message ${JSON.stringify(e.message)} lacks ${fragment}`);
    return true;
  });
}

describe("hashBytes()", () => {
  it("is the first HASH_LENGTH hex characters of SHA-256 (oracle: node:crypto)", () => {
    for (let i = 0; i < 50; i++) {
      const bytes = Buffer.from(Array.from({ length: i * 7 }, (_, j) => (j * 31 + i) & 255));
      assert.equal(hashBytes(bytes), createHash("sha256").update(bytes).digest("hex").slice(0, HASH_LENGTH));
    }
    assert.equal(HASH_LENGTH, 10);
  });
});

describe("fingerprintURL()", () => {
  const cases = [
    { input: "app.css", want: "/static/app-h.css" },
    { input: "img/logo.svg", want: "/static/img/logo-h.svg" },
    { input: "vendor.min.js", want: "/static/vendor.min-h.js" },
    { input: "LICENSE", want: "/static/LICENSE-h" },
    { input: "v1.2/LICENSE", want: "/static/v1.2/LICENSE-h" },
  ];
  for (const { input, want } of cases) it(`places the hash in ${input}`, () => assert.equal(fingerprintURL(input, "h"), want));
});

describe("NewAssets()", () => {
  it("fingerprints by content: same bytes same hash, changed bytes a new URL", (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, "a.css"), "body{color:red}");
    writeFileSync(join(dir, "b.css"), "body{color:red}");
    const first = NewAssets(dir);
    const hash = hashBytes(Buffer.from("body{color:red}"));
    assert.equal(first.Path("a.css"), `/static/a-${hash}.css`);
    assert.equal(first.Path("b.css"), `/static/b-${hash}.css`);
    assert.equal(NewAssets(dir).Path("a.css"), first.Path("a.css"));
    writeFileSync(join(dir, "a.css"), "body{color:blue}");
    const second = NewAssets(dir);
    assert.notEqual(second.Path("a.css"), first.Path("a.css"));
    assert.equal(second.Path("b.css"), first.Path("b.css"));
  });

  it("points a script's relative imports of other assets at their fingerprinted names, so its own hash covers them", (t) => {
    const dir = tempDir(t);
    mkdirSync(join(dir, "lib"));
    writeFileSync(join(dir, "lib/stream.js"), "export const one = 1;\n");
    const page = `import { one } from "../lib/stream.js";\nexport { one } from '../lib/stream.js';\nimport "./missing.js";\n`;
    mkdirSync(join(dir, "app"));
    writeFileSync(join(dir, "app/page.js"), page);
    const served = (): string => {
      const entry = loadEntries([dir]).get("app/page.js");
      return entry?.variants().get("identity")?.body.toString() ?? "";
    };
    const stream = NewAssets(dir).Path("lib/stream.js");
    const linked = page.replaceAll("../lib/stream.js", `../lib/${stream.split("/").pop() ?? ""}`);
    assert.equal(served(), linked, "both imports linked; one naming no asset left as written");
    assert.equal(NewAssets(dir).Path("app/page.js"), `/static/app/page-${hashBytes(Buffer.from(linked))}.js`);
    const before = NewAssets(dir).Path("app/page.js");
    writeFileSync(join(dir, "lib/stream.js"), "export const one = 2;\n");
    assert.notEqual(NewAssets(dir).Path("app/page.js"), before, "a new import is a new URL of the importer");
  });

  it("throws ERR_ASSETS_IMPORT_CYCLE for scripts that import each other", (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, "a.js"), 'import "./b.js";\n');
    writeFileSync(join(dir, "b.js"), 'import "./a.js";\n');
    assertCode(() => NewAssets(dir), "ERR_ASSETS_IMPORT_CYCLE", "a.js imports itself");
  });

  it("names nested files by their relative path", () => {
    const assets = NewAssets(join(FIXTURES, "public"));
    const bytes = readFileSync(join(FIXTURES, "public/img/logo.svg"));
    assert.equal(assets.Path("img/logo.svg"), `/static/img/logo-${hashBytes(bytes)}.svg`);
  });

  it("throws ERR_ASSETS_UNKNOWN_NAME for a name not in the set, including dotfiles", () => {
    const assets = NewAssets(join(FIXTURES, "public"));
    for (const name of ["missing.css", ".hidden", "img", "/app.css", "./app.css", "img\\logo.svg", ""]) {
      assertCode(() => assets.Path(name), "ERR_ASSETS_UNKNOWN_NAME", "asset path:");
    }
  });

  it("merges several directories", () => {
    const assets = NewAssets([join(FIXTURES, "public"), join(FIXTURES, "other")]);
    assert.match(assets.Path("extra.txt"), /^\/static\/extra-[0-9a-f]{10}\.txt$/);
    assert.match(assets.Path("app.css"), /^\/static\/app-[0-9a-f]{10}\.css$/);
  });

  it("refuses the same name in two directories", (t) => {
    const dir = tempDir(t);
    writeFileSync(join(dir, "app.css"), "x");
    assertCode(() => NewAssets([join(FIXTURES, "public"), dir]), "ERR_ASSETS_DUPLICATE_NAME", "app.css");
  });

  it("refuses a directory it cannot read", (t) => {
    const dir = tempDir(t);
    assertCode(() => NewAssets(join(dir, "absent")), "ERR_ASSETS_READ", "absent");
    writeFileSync(join(dir, "file"), "x");
    assertCode(() => NewAssets(join(dir, "file")), "ERR_ASSETS_READ", "file");
  });

  it("refuses names that are not URL-safe", (t) => {
    for (const name of ["a b.css", "a%2e.css", "a?.css", "é.css", "-x.css"]) {
      const dir = tempDir(t);
      writeFileSync(join(dir, name), "x");
      assertCode(() => NewAssets(dir), "ERR_ASSETS_INVALID_NAME", "URL-safe");
    }
  });

  it("refuses a symlink leading outside its directory", (t) => {
    const dir = tempDir(t);
    const root = join(dir, "root");
    mkdirSync(root);
    writeFileSync(join(dir, "outside.txt"), "secret");
    symlinkSync(join(dir, "outside.txt"), join(root, "leak.txt"));
    assertCode(() => NewAssets(root), "ERR_ASSETS_OUTSIDE_ROOT", "leak.txt");
    rmSync(join(root, "leak.txt"));
    symlinkSync(dir, join(root, "up"));
    assertCode(() => NewAssets(root), "ERR_ASSETS_OUTSIDE_ROOT", "up");
  });

  it("follows a symlink inside its directory and survives a cycle", (t) => {
    const root = tempDir(t);
    mkdirSync(join(root, "css"));
    writeFileSync(join(root, "css/app.css"), "x");
    symlinkSync(join(root, "css/app.css"), join(root, "alias.css"));
    symlinkSync(join(root, "css"), join(root, "css/self"));
    const assets = NewAssets(root);
    assert.equal(assets.Path("alias.css"), assets.Path("css/app.css").replace("css/app", "alias"));
    assert.throws(() => assets.Path("css/self/app.css"));
  });
});

describe("CLIENT_DIR", () => {
  it("is the absolute path of lib/client beside the compiled assets module", () => {
    assert.ok(isAbsolute(CLIENT_DIR));
    assert.ok(CLIENT_DIR.endsWith(join("lib", "client") + sep), CLIENT_DIR);
    assert.equal(join(CLIENT_DIR, "..", "assets"), join(FIXTURES, "../../../dist/lib/assets"));
  });
});
