/*
 * The public surface, defined once: the package's `exports` map. Every name
 * a module's index.ts exports is reachable from one of those entries (or is
 * not exported at all), and every error class an entry exports comes with a
 * guard, so a caller can tell latch's errors apart without `instanceof`
 * across copies. lib/internal is the exception both ways: framework-only
 * plumbing, none of it reachable from any entry.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, { default: string; types: string }> };

type Namespace = Record<string, unknown>;

/** The one module whose index.ts is a door for latch's own modules only. */
const FRAMEWORK_ONLY = "internal/index";

/** Every lib/ index.ts, as a path relative to lib/ without the extension. */
function indexFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return indexFiles(path);
    return e.name === "index.ts" ? [relative(join(REPO, "lib"), path).replace(/\.ts$/, "")] : [];
  });
}

/** The names an index.ts exports as types (`export type { A, B as C }`). */
function typeExports(source: string): string[] {
  return [...source.matchAll(/export type \{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? "")
      .split(",")
      .map(
        (n) =>
          n
            .trim()
            .split(/\s+as\s+/)
            .pop() ?? "",
      )
      .filter((n) => n !== ""),
  );
}

const entries = await Promise.all(
  Object.entries(pkg.exports).map(async ([subpath, target]) => {
    const ns = (await import(pathToFileURL(join(REPO, target.default)).href)) as Namespace;
    const source = readFileSync(join(REPO, target.default.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts")), "utf8");
    return { subpath, ns, types: new Set(typeExports(source)) };
  }),
);

const httpEntry = entries.find((e) => e.subpath === "./http");
const http: Namespace = httpEntry?.ns ?? {};
const httpTypes: ReadonlySet<string> = httpEntry?.types ?? new Set();

describe("the package surface", () => {
  const modules = indexFiles(join(REPO, "lib"));

  test("every package entry points at a module index", () => {
    for (const { subpath } of entries) assert.ok(subpath === "." || modules.includes(`${subpath.slice(2)}/index`), subpath);
  });

  test("no name of lib/internal is reachable from a package entry", async () => {
    const ns = (await import(pathToFileURL(join(REPO, "dist/lib/internal/index.js")).href)) as Namespace;
    const leaked = Object.keys(ns).filter((name) => entries.some((e) => name in e.ns && e.ns[name] === ns[name]));
    const types = typeExports(readFileSync(join(REPO, "lib/internal/index.ts"), "utf8"));
    assert.deepEqual([...leaked, ...types.filter((name) => entries.some((e) => e.types.has(name)))], []);
  });

  for (const module of modules.filter((m) => m !== FRAMEWORK_ONLY)) {
    test(`every value exported by lib/${module}.ts is reachable from a package entry`, async () => {
      const ns = (await import(pathToFileURL(join(REPO, "dist/lib", `${module}.js`)).href)) as Namespace;
      const unreachable = Object.keys(ns).filter((name) => !entries.some((e) => name in e.ns && e.ns[name] === ns[name]));
      assert.deepEqual(unreachable, []);
    });

    test(`every type exported by lib/${module}.ts is reachable from a package entry`, () => {
      const types = typeExports(readFileSync(join(REPO, "lib", `${module}.ts`), "utf8"));
      assert.deepEqual(
        types.filter((name) => !entries.some((e) => e.types.has(name))),
        [],
      );
    });
  }

  for (const { subpath, ns } of entries) {
    test(`every error class of ${subpath === "." ? "latch" : `latch/${subpath.slice(2)}`} has an exported guard`, () => {
      // latch/http's isLatchError(e) (with e.code) recognises every LatchError; a module adds its own guard only where an application catches its class.
      const guards = [...Object.entries(ns), ["isLatchError", http["isLatchError"]] as const].filter(
        ([name, v]) => /^is[A-Z]/.test(name) && typeof v === "function",
      );
      const unguarded = Object.entries(ns)
        .filter(([, v]) => typeof v === "function" && v.prototype instanceof Error)
        .map(([name, v]) => [name, v as new (...a: never[]) => Error] as const)
        // A guard covers a class when it is named for it (without `Err` or `Error`, too) or for a class it extends.
        .filter(([name, cls]) => !guards.some(([guard]) => covers(guard, name, cls)));
      assert.deepEqual(
        unguarded.map(([name]) => name),
        [],
      );
    });
  }

  test("the root exports at most 45 names and re-exports none of latch/http's", () => {
    const root = entries.find((e) => e.subpath === ".");
    assert.ok(root !== undefined);
    assert.ok(Object.keys(root.ns).length + root.types.size <= 45, `${Object.keys(root.ns).length + root.types.size} names`);
    const shared = Object.keys(root.ns).filter((name) => name in http && http[name] === root.ns[name]);
    assert.deepEqual([...shared, ...[...root.types].filter((name) => httpTypes.has(name))], []);
  });
});

function covers(guard: string, name: string, cls: new (...a: never[]) => Error): boolean {
  for (let c: unknown = cls; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
    const className = c === cls ? name : (c as { name: string }).name;
    if ([className, className.replace(/^Err/, ""), className.replace(/Error$/, "")].some((n) => guard === `is${n}`)) return true;
  }
  return false;
}
