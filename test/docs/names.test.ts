/*
 * Every latch name a shipped document mentions in an inline code span
 * exists in the API reports (api/*.api.md, scripts/api-report.ts), so a
 * rename or a cut that forgets the docs fails here.
 *
 * What counts as a latch name (anything else in backticks is left alone):
 * - `latch` or `latch/<sub>`: a package entry;
 * - `import { A, type B } from "latch/<sub>"`: A and B, exported by that entry;
 * - `<sub>.Name`, where <sub> is an entry's last segment (`signin.create`,
 *   `assets.Handler()`): Name, named in that entry's report;
 * - `Name`, `Name.member…`, `Name()`, `Name.member(args)`, where Name is
 *   written as code is: PascalCase (`RequireSession`, `Origin`), camelCase
 *   with a hump (`readBody`), a constant (`DEFAULT_CSP`), or any word called
 *   (`create()`). Name must occur in a report (exported, a member, a code);
 *   when a report exports Name, each member must occur in Name's declaration
 *   there or in the declarations it names (`Access.String` fails: `Access`
 *   has `Read` and `Write`, not `String`).
 *
 * Not latch names, found rather than listed: what the platform and the
 * dependencies declare (Node's globals, TypeScript's lib with the DOM,
 * @types/*, the declarations of the packages in package.json: `Date`,
 * `PublicKeyCredential`, `inputSchema`), `http.Server` and the like (a
 * Node module's own name), the environment variables the code reads
 * (`INSTANCE_KEY`), the retired error codes of docs/errors.md, tsconfig.json's
 * options and values (`NodeNext`), the names the examples and test/_support
 * declare (an application's `signinPage`, the harness's `CookieJar`), a
 * placeholder X (`ErrX`,
 * `isXError`); lowercase words and snake_case (`id`, `created_at`: columns,
 * fields, event kinds), a lowercase head that is no entry (`req.url`,
 * `ctx.Render`), file names (`main.ts`), and spans with spaces outside a
 * call's parentheses. The few header and attribute names left are
 * NOT_LATCH below.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { API_DIR, entries, reportNames } from "../../scripts/api-report.ts";
import { ROOT, codeSpans, listFiles, readRepoFile, shippedDocuments } from "../_support/docs.ts";

/** What the reports declare, per entry ("latch", "latch/http"): its exported names, its report's words, and each declaration's words. */
interface Surface {
  exported: Map<string, Set<string>>;
  words: Map<string, Set<string>>;
  declarations: Map<string, Map<string, Set<string>>>;
}

const WORD = /[A-Za-z_$][\w$]*/g;

/**
 * Returns a report's declarations: each declared name (exported or not, an
 * alias of `export { A as B }` too) with the words of its declarations (a
 * report keeps one declaration per paragraph; overloads add up).
 */
function declarationsOf(report: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const paragraph of report.split(/\n\s*\n/)) {
    const declared =
      /^(?:export )?(?:declare )?(?:abstract )?(?:function|const|let|var|class|interface|type|enum|namespace) ([\w$]+)/m.exec(paragraph);
    if (declared === null) continue;
    const name = declared[1] ?? "";
    out.set(name, new Set([...(out.get(name) ?? []), ...(paragraph.match(WORD) ?? [])]));
  }
  for (const m of report.matchAll(/^export \{([^}]*)\}/gm)) {
    for (const item of (m[1] ?? "").split(",")) {
      const [from = "", to = from] = item.trim().split(/\s+as\s+/);
      const words = out.get(from);
      if (words !== undefined) out.set(to, words);
    }
  }
  return out;
}

/** Reads the surface from report texts keyed by entry name. */
function surfaceOf(reports: ReadonlyMap<string, string>): Surface {
  const surface: Surface = { exported: new Map(), words: new Map(), declarations: new Map() };
  for (const [entry, text] of reports) {
    surface.exported.set(entry, new Set(reportNames(text)));
    surface.words.set(entry, new Set(text.match(WORD) ?? []));
    surface.declarations.set(entry, declarationsOf(text));
  }
  return surface;
}

/** The words a name's declaration reaches in one report: its own, and those of the report's declarations it names (what it extends or holds), transitively. */
function reach(declarations: ReadonlyMap<string, Set<string>>, name: string): Set<string> {
  const words = new Set<string>();
  const seen = new Set<string>();
  const visit = (n: string): void => {
    if (seen.has(n)) return;
    seen.add(n);
    for (const word of declarations.get(n) ?? []) {
      words.add(word);
      if (declarations.has(word)) visit(word);
    }
  };
  visit(name);
  return words;
}

/**
 * The names no declaration here spells as the docs do: HTTP and mail header
 * names, cookie attributes, Go's `ServeMux` (the router's model), CSS's
 * `currentColor` and Node's `NODE_COMPILE_CACHE`.
 */
const NOT_LATCH = [
  "Allow",
  "Host",
  "ETag",
  "Cc",
  "Bcc",
  "Secure",
  "HttpOnly",
  "SameSite",
  "ServeMux",
  "currentColor",
  "NODE_COMPILE_CACHE",
];

/** Returns the identifiers of a TypeScript text, comments left out. */
function identifiers(text: string): string[] {
  return (
    text
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "")
      .match(/[A-Za-z_$][\w$]*/g) ?? []
  );
}

/** Returns the declaration files under a folder, nested packages left out. */
function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : declarationFiles(path);
    return /\.d\.[cm]?ts$/.test(entry.name) ? [path] : [];
  });
}

/** Tells names that are not latch's though shaped like code (see the header). */
function notLatch(): (name: string) => boolean {
  const names = new Set([...Object.getOwnPropertyNames(globalThis), ...NOT_LATCH]);
  const add = (words: Iterable<string>): void => {
    for (const word of words) names.add(word);
  };
  // TypeScript's lib (the DOM too) ships as files with the TypeScript api-extractor bundles; TypeScript 7 has it inside its binary.
  const typescript = dirname(
    createRequire(createRequire(import.meta.url).resolve("@microsoft/api-extractor")).resolve("typescript/package.json"),
  );
  const pkg = JSON.parse(readRepoFile("package.json")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  const packages = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies)].filter((name) => name !== "typescript");
  const files = [
    ...readdirSync(join(typescript, "lib"))
      .filter((f) => /^lib\..*\.d\.ts$/.test(f))
      .map((f) => join(typescript, "lib", f)),
    ...declarationFiles(join(ROOT, "node_modules/@types")),
    ...packages.filter((name) => !name.startsWith("@types/")).flatMap((name) => declarationFiles(join(ROOT, "node_modules", name))),
  ];
  for (const file of files) add(identifiers(readFileSync(file, "utf8")));
  const tsconfig = JSON.parse(readRepoFile("tsconfig.json")) as { compilerOptions: Record<string, unknown> };
  add(Object.keys(tsconfig.compilerOptions));
  // Option values are case-insensitive ("nodenext" is written `NodeNext`).
  const values = new Set(Object.values(tsconfig.compilerOptions).flatMap((v) => (typeof v === "string" ? [v.toLowerCase()] : [])));
  for (const file of [...listFiles("lib", [".ts"]), ...listFiles("examples", [".ts"]), ...listFiles("scripts", [".ts"])]) {
    // env["PORT"], env.PORT, positive(env, "JOB_STEP_MS", 600)
    add([...readRepoFile(file).matchAll(/\benv(?:\["|\.|,\s*")([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] ?? ""));
  }
  for (const file of [...listFiles("examples", [".ts"]), ...listFiles("test/_support", [".ts"])]) {
    add(
      [...readRepoFile(file).matchAll(/\b(?:const|let|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1] ?? ""),
    );
  }
  // Retired error codes stay listed in docs/errors.md, exported nowhere (error-codes.test.ts).
  const errors = readRepoFile("docs/errors.md");
  add(errors.slice(Math.max(0, errors.indexOf("\n## Retired codes\n"))).match(/\bERR_[A-Z0-9_]+/g) ?? []);
  return (name) => names.has(name) || values.has(name.toLowerCase());
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const FILE = /\.(?:ts|js|json|md|db|yml|yaml|css|html|service|socket|timer|sh|txt)$/;

/** Whether a head is written as latch writes names: PascalCase, camelCase with a hump, or a constant. */
function codeShaped(name: string): boolean {
  return (
    /^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$/.test(name) ||
    /^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*$/.test(name) ||
    /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(name)
  );
}

/** Returns what is wrong with one code span: nothing when it names no latch name or only known ones. */
function checkSpan(span: string, surface: Surface, skip: (name: string) => boolean): string[] {
  const text = span.trim();
  if (/^latch(?:\/[\w-]+)*$/.test(text)) return surface.exported.has(text) ? [] : [`${text} is not a package entry`];
  const imported = /^import\s+(?:type\s+)?(?:\{([^}]*)\}|\*\s+as\s+\w+)\s+from\s+"(latch(?:\/[\w-]+)*)";?$/.exec(text);
  if (imported !== null) {
    const specifier = imported[2] ?? "";
    const names = surface.exported.get(specifier);
    if (names === undefined) return [`${specifier} is not a package entry`];
    return (imported[1] ?? "")
      .split(",")
      .map(
        (item) =>
          item
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0] ?? "",
      )
      .filter((name) => IDENTIFIER.test(name) && !names.has(name))
      .map((name) => `${specifier} exports no ${name}`);
  }
  const called = /^([^()\s]+)\(.*\)$/.exec(text);
  const path = called?.[1] ?? text;
  if (FILE.test(path) || !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(path)) return [];
  const [head = "", ...members] = path.split(".");
  const namespace = `latch/${head}`;
  if (members.length > 0 && surface.words.has(namespace)) {
    const member = members[0] ?? "";
    // `http.Server`, `events.once`: a Node module's own names.
    if (builtinModules.includes(head) && skip(member)) return [];
    return surface.words.get(namespace)?.has(member) === true ? [] : [`${namespace} names no ${member}`];
  }
  // A placeholder X stands for any name: `ErrX`, `isXError`, `hasX`.
  if (/(?:^|[a-z])X(?:$|[A-Z])/.test(head)) return [];
  if (skip(head) || !(codeShaped(head) || (called !== null && members.length === 0))) return [];
  const homes = [...surface.exported].filter(([, names]) => names.has(head)).map(([entry]) => entry);
  const anywhere = [...surface.words.values()].some((words) => words.has(head));
  if (!anywhere) return [`no report names ${head}`];
  // An exported name's members are what its declaration reaches; anything else's, any report's words.
  const known =
    homes.length > 0 ? homes.map((entry) => reach(surface.declarations.get(entry) ?? new Map(), head)) : [...surface.words.values()];
  return members.filter((m) => !known.some((words) => words.has(m))).map((m) => `no report declaring ${head} names ${m}`);
}

describe("checkSpan()", () => {
  const snippet = [
    "// @public",
    "export interface Options extends Base {",
    "    Origin: string;",
    "}",
    "",
    "// @public",
    "interface Base {",
    "    Addr: string;",
    "}",
    "",
    "// @public",
    "export function Run(opts: Options): void;",
    "",
    "// @public",
    'export const Access: { readonly Read: "read" };',
    "",
    "// @public",
    "export interface Actor {",
    "    String(): string;",
    "}",
    "",
  ].join("\n");
  const surface = surfaceOf(
    new Map([
      ["latch", snippet],
      ["latch/signin", "export function create(config: Config): void;\nexport interface Config {\n    SessionTTL: number;\n}\n"],
    ]),
  );
  const skip = new Set(["Date", "Intl", "INSTANCE_KEY", "Server"]);
  const check = (span: string): string[] => checkSpan(span, surface, (name) => skip.has(name));

  test("accepts names the reports declare, as names, members and calls", () => {
    for (const span of [
      "Options",
      "Options.Origin",
      "Options.Addr",
      "Run(opts)",
      "Actor.String()",
      "Origin",
      "Access.Read",
      "create()",
      "signin.create",
      "signin.Config",
      "signin.SessionTTL",
    ]) {
      assert.deepEqual(check(span), [], span);
    }
    assert.deepEqual(check('import { Run, type Options } from "latch"'), []);
    assert.deepEqual(check("latch/signin"), []);
  });

  test("reports unknown names, members, entries and imports", () => {
    assert.deepEqual(check("Access.String"), ["no report declaring Access names String"]);
    assert.deepEqual(check("signin.New"), ["latch/signin names no New"]);
    assert.deepEqual(check("RequireSession"), ["no report names RequireSession"]);
    assert.deepEqual(check("readBody(req)"), ["no report names readBody"]);
    assert.deepEqual(check("DEFAULT_CSP"), ["no report names DEFAULT_CSP"]);
    assert.deepEqual(check("sweep()"), ["no report names sweep"]);
    assert.deepEqual(check("latch/nope"), ["latch/nope is not a package entry"]);
    assert.deepEqual(check('import { Run, Nope } from "latch/signin"'), ["latch/signin exports no Run", "latch/signin exports no Nope"]);
  });

  test("leaves alone what is not a latch name", () => {
    for (const span of [
      "Date",
      "Intl.NumberFormat",
      "INSTANCE_KEY",
      "id",
      "created_at",
      "req.url",
      "ctx.Render",
      "main.ts",
      "/signin",
      "Set-Cookie",
      "GET /mcp",
      "a b",
      "$STATE_DIRECTORY",
      "ErrX",
      "isXError(e)",
      "http.Server",
    ]) {
      assert.deepEqual(check(span), [], span);
    }
  });
});

test("every latch name in the shipped documents exists in the API reports", (t) => {
  const surface = surfaceOf(
    new Map(
      entries().map((e) => [e.subpath === "." ? "latch" : `latch/${e.subpath.slice(2)}`, readFileSync(join(API_DIR, e.report), "utf8")]),
    ),
  );
  const skip = notLatch();
  const unknown: string[] = [];
  let spans = 0;
  for (const document of shippedDocuments()) {
    for (const span of codeSpans(readRepoFile(document))) {
      spans++;
      for (const problem of checkSpan(span.text, surface, skip)) unknown.push(`${document}:${span.line}: \`${span.text}\`: ${problem}`);
    }
  }
  t.diagnostic(`${spans} code spans read, ${unknown.length} unknown names`);
  assert.ok(spans >= 1000, `only ${spans} code spans found`);
  // One line each, all of them (a deepEqual diff would cut a long list short).
  assert.equal(unknown.length, 0, `names the API reports (api/) do not have:\n${unknown.join("\n")}`);
});
