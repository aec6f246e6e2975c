/*
 * Every latch name a shipped document mentions in an inline code span
 * exists, so a rename or a cut that forgets the docs fails here. A name
 * exists when the API reports hold it (api/*.api.md, scripts/api-report.ts),
 * or, where the document may name what is not public (below), when the
 * compiled declarations of lib/ (dist/lib/**.d.ts) declare it in the right
 * place.
 *
 * What counts as a latch name (anything else in backticks is left alone):
 * - `latch` or `latch/<sub>`: a package entry;
 * - `import { A, type B } from "latch/<sub>"`: A and B, exported by that entry;
 * - `<sub>.Name`, where <sub> is an entry's last segment (`signin.create`,
 *   `assets.Handler()`): Name, named in that entry's report;
 * - `ERR_…`: an error code, a documented value rather than an exported name:
 *   known when a module's `*_ERROR_CODES` list holds it (the compiled
 *   errors.js files, read as error-codes.test.ts reads them) or when
 *   docs/errors.md's retired table lists it; any other code fails;
 * - `Name`, `Name.member…`, `Name()`, `Name.member(args)`, where Name is
 *   written as code is: PascalCase (`RequireSession`, `Origin`), camelCase
 *   with a hump (`readBody`), a constant (`DEFAULT_CSP`), or any word called
 *   (`create()`). Name must occur in a report (exported, a member, a code);
 *   when a report exports Name, each member must occur in Name's declaration
 *   there or in the declarations it names (`Access.Strung` fails: no
 *   declaration `Access` reaches has `Strung`). A type a report names without printing
 *   it (`newHandlers` returns `Handlers`, which latch/jobs does not export) is
 *   read from the entry's own folder of dist/lib, so the members of public
 *   types resolve (`StatusPage`, `ToolsAPI`'s `Authenticate`).
 *
 * Where a name the reports do not hold may be written:
 * - a module's README (lib/<module>/README.md, lib/signin/oidc/README.md)
 *   names what its own folder declares, exported by a file or not public
 *   (its file table, its decisions), and in its file table's names cell
 *   only what the row's file declares; lib/internal/README.md names internal's;
 * - the maintainer documents (MAINTAINER_DOCUMENTS: docs/design.md,
 *   docs/handbook.md, docs/style.md) name any declaration of lib/ in the
 *   table row or paragraph that gives its file (`lib/internal/secret.ts`, or
 *   the path's tail `internal/secret.ts`);
 * - every other document (README.md, docs/guide.md, docs/spec.md,
 *   docs/errors.md, docs/asvs.md, docs/demo.md, docs/durability.md, another
 *   module's README) names only what the reports hold.
 * In each case the declaration is a top-level one or a member (a field or
 * method of an interface, class or object type) of the files in scope.
 *
 * Not latch names, found rather than listed: what the platform and the
 * dependencies declare (Node's globals, TypeScript's lib with the DOM,
 * @types/*, the declarations of the packages in package.json: `Date`,
 * `PublicKeyCredential`, `inputSchema`), `http.Server` and the like (a
 * Node module's own name), the environment variables the code reads
 * (`INSTANCE_KEY`), tsconfig.json's options and values (`NodeNext`), the
 * names the examples and test/_support declare (an application's
 * `signinPage`, the harness's `CookieJar`), a placeholder X (`ErrX`,
 * `isXError`); lowercase words and snake_case (`id`, `created_at`: columns,
 * fields, event kinds), a lowercase head that is no entry (`req.url`,
 * `ctx.Render`), file names (`main.ts`), and spans with spaces outside a
 * call's parentheses. The few header and attribute names left are
 * NOT_LATCH below, and the WebAuthn client data types CLIENT_DATA_TYPES.
 * The contract's own idiom `New` (latch's `create`) is written only in
 * docs/spec.md's idiom table and docs/design.md (contractIdiom).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { describe, test } from "node:test";
import { API_DIR, entries, reportNames } from "../../scripts/api-report.ts";
import {
  ROOT,
  codeSpans,
  codesIn,
  errorTables,
  exportedCodes,
  listFiles,
  prose,
  readRepoFile,
  shippedDocuments,
} from "../_support/docs.ts";

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

/** Names declared in a set of compiled declaration files, each with its words. */
type Declarations = Map<string, Set<string>>;

/** What one compiled declaration file declares: its top-level names, and its members (a field or method of an interface, class or object type) with the words of their line. */
interface FileDeclarations {
  names: Declarations;
  members: Declarations;
}

const TOP_LEVEL = /^(?:export )?(?:declare )?(?:abstract )?(?:function|const|let|var|class|interface|type|enum|namespace) ([\w$]+)/;
const MEMBER = /^\s+(?:(?:readonly|static|private|protected|public|abstract|get|set)\s+)*([\w$]+)\??[:(<]/;

/** Reads a .d.ts text (tsc's output: a declaration starts at column 0, its members are indented; comments left out). */
function declarationsOfFile(text: string): FileDeclarations {
  const out: FileDeclarations = { names: new Map(), members: new Map() };
  const add = (map: Declarations, name: string, words: readonly string[]): void => {
    map.set(name, new Set([...(map.get(name) ?? []), ...words]));
  };
  let current = "";
  for (const line of text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "")
    .split("\n")) {
    const top = TOP_LEVEL.exec(line);
    if (top !== null) current = top[1] ?? "";
    else if (/^[^\s})\]]/.test(line)) current = "";
    if (current === "") continue;
    const words = line.match(WORD) ?? [];
    add(out.names, current, words);
    const member = top === null ? MEMBER.exec(line) : null;
    if (member !== null) add(out.members, member[1] ?? "", words);
  }
  return out;
}

/** Returns the compiled declarations of lib/, keyed by source file ("lib/http/csrf.ts"). */
function libDeclarations(): Map<string, FileDeclarations> {
  return new Map(
    listFiles("dist/lib", [".d.ts"]).map((file) => [
      file.replace(/^dist\//, "").replace(/\.d\.ts$/, ".ts"),
      declarationsOfFile(readRepoFile(file)),
    ]),
  );
}

/** Merges the declarations of some files: their top-level names, with their members too when `members` is set. */
function merged(files: Iterable<FileDeclarations>, members: boolean): Declarations {
  const out: Declarations = new Map();
  for (const file of files) {
    for (const [name, words] of [...file.names, ...(members ? file.members : [])])
      out.set(name, new Set([...(out.get(name) ?? []), ...words]));
  }
  return out;
}

/**
 * Adds to each entry the declarations its report names without printing
 * them (a public function's return type that is not exported), read from
 * the compiled declarations under the entry's own folder ("lib/jobs/";
 * "lib/" for the root), transitively.
 */
function addUnprinted(surface: Surface, folders: ReadonlyMap<string, string>, lib: ReadonlyMap<string, FileDeclarations>): void {
  for (const [entry, declarations] of surface.declarations) {
    const folder = folders.get(entry) ?? "";
    const here = merged(
      [...lib].filter(([file]) => file.startsWith(folder)).map(([, file]) => file),
      false,
    );
    const words = surface.words.get(entry) ?? new Set<string>();
    const queue = [...words];
    for (let i = 0; i < queue.length; i++) {
      const word = queue[i] ?? "";
      const found = here.get(word);
      if (declarations.has(word) || found === undefined) continue;
      declarations.set(word, found);
      for (const w of found) {
        if (!words.has(w)) queue.push(w);
        words.add(w);
      }
    }
  }
}

/** The maintainer documents: they may name any declaration of lib/ where they give its file. */
const MAINTAINER_DOCUMENTS = ["docs/design.md", "docs/handbook.md", "docs/style.md"];

/** Returns the prose around a line (1-based): its table row, or its paragraph. */
function blockAt(markdown: string, line: number): string {
  const lines = prose(markdown).split("\n");
  const at = line - 1;
  const row = (i: number): boolean => /^\s*\|/.test(lines[i] ?? "");
  if (row(at)) return lines[at] ?? "";
  const inside = (i: number): boolean => i >= 0 && i < lines.length && (lines[i] ?? "").trim() !== "" && !row(i);
  let start = at;
  let end = at;
  while (inside(start - 1)) start--;
  while (inside(end + 1)) end++;
  return lines.slice(start, end + 1).join("\n");
}

/**
 * Returns the lib/ files whose declarations a span on `line` of `document`
 * may name beyond the reports (see the header). In a module README's file
 * table (a `File` column beside a `Name` or `Holds` one), a span of the
 * names cell may name only what the row's files declare, so a name that
 * moved to another file fails where the row still gives the old one.
 */
function filesInScope(document: string, markdown: string, line: number, files: readonly string[], span = ""): string[] {
  if (document.startsWith("lib/")) {
    const folder = document.slice(0, document.lastIndexOf("/") + 1);
    const own = files.filter((file) => file.startsWith(folder));
    const row = fileTableRow(markdown, line);
    if (row === undefined || !row.names.includes(`\`${span}\``)) return own;
    const cited = own.filter((file) => row.files.some((name) => file === `${folder}${name}`));
    return cited.length > 0 ? cited : own;
  }
  if (!MAINTAINER_DOCUMENTS.includes(document)) return [];
  // `lib/http/csrf.ts`, `http/csrf.ts`, `csrf.ts`, [csrf.ts](../lib/http/csrf.ts)
  const given = [...blockAt(markdown, line).matchAll(/[\w.-]+(?:\/[\w.-]+)*\.ts\b/g)].map((m) => `/${m[0].replace(/^(?:\.\.?\/)+/, "")}`);
  return files.filter((file) => given.some((tail) => `/${file}`.endsWith(tail)));
}

/** Returns, for a row of a file table (header cells `File` or `Files`, and `Name` or `Holds`), the files it gives (relative to the document's folder) and its names cell. */
function fileTableRow(markdown: string, line: number): { files: string[]; names: string } | undefined {
  const lines = prose(markdown).split("\n");
  const cells = (i: number): string[] =>
    (lines[i] ?? "")
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
  const isRow = (i: number): boolean => /^\s*\|/.test(lines[i] ?? "");
  if (!isRow(line - 1)) return undefined;
  let header = line - 1;
  while (header > 0 && isRow(header - 1)) header--;
  const heads = cells(header);
  const fileColumn = heads.findIndex((cell) => /^Files?$/.test(cell));
  const nameColumn = heads.findIndex((cell) => /^(?:Name|Holds)$/.test(cell));
  if (header >= line - 2 || fileColumn < 0 || nameColumn < 0) return undefined;
  const row = cells(line - 1);
  const files = [...(row[fileColumn] ?? "").matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1] ?? "");
  return { files, names: row[nameColumn] ?? "" };
}

/**
 * Whether a span spells the contract's idiom, not a latch name: the first
 * column of docs/spec.md's idiom table (`New(config)`, `signin.New`, under
 * `| Contract idiom | latch |`), and `New` in docs/design.md, whose decision
 * says the contract's `New` is latch's `create`. Anywhere else `New` is a
 * stale name.
 */
function contractIdiom(document: string, markdown: string, line: number, span: string): boolean {
  if (document === "docs/design.md") return span === "New";
  if (document !== "docs/spec.md") return false;
  const lines = markdown.split("\n");
  let header = line - 1;
  while (header > 0 && /^\|/.test(lines[header - 1] ?? "")) header--;
  const firstCell = (lines[line - 1] ?? "").split(/(?<!\\)\|/)[1] ?? "";
  return /^\| Contract idiom \|/.test(lines[header] ?? "") && header !== line - 1 && firstCell.includes(`\`${span}\``);
}

/**
 * The WebAuthn client data types (W3C WebAuthn Level 3 §5.8.1,
 * `CollectedClientData.type`): values, shaped like `latch/webauthn`'s
 * members.
 */
const CLIENT_DATA_TYPES = ["webauthn.create", "webauthn.get"];

/**
 * The names no declaration here spells as the docs do: HTTP and mail header
 * names, cookie attributes, Go's `ServeMux` (the router's model), CSS's
 * `currentColor`, Node's `NODE_COMPILE_CACHE` and npm's `package.json` field
 * `allowScripts`.
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
  "allowScripts",
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

/** What a span is checked against: the reports, what is not latch's, the known error codes, and the declarations beyond the reports its place may name (see the header). */
interface Known {
  surface: Surface;
  skip: (name: string) => boolean;
  codes: ReadonlySet<string>;
  local: Declarations;
}

/** Returns what is wrong with one code span: nothing when it names no latch name or only known ones. */
function checkSpan(span: string, known: Known): string[] {
  const { surface, skip, codes, local } = known;
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
  if (FILE.test(path) || CLIENT_DATA_TYPES.includes(path) || !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(path)) return [];
  const [head = "", ...members] = path.split(".");
  if (/^ERR_[A-Z0-9_]+$/.test(head)) return codes.has(head) ? [] : [`${head} is in no *_ERROR_CODES list and not retired`];
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
  // An exported name's members are what its declaration reaches; a declaration in scope's, what it reaches there; anything else's, any report's words.
  let reached: Set<string>[];
  if (homes.length > 0) reached = homes.map((entry) => reach(surface.declarations.get(entry) ?? new Map(), head));
  else if (local.has(head)) reached = [reach(local, head)];
  else if ([...surface.words.values()].some((words) => words.has(head))) reached = [...surface.words.values()];
  else return [local.size === 0 ? `no report names ${head}` : `neither a report nor a file in scope names ${head}`];
  return members.filter((m) => !reached.some((words) => words.has(m))).map((m) => `no declaration ${head} reaches names ${m}`);
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
    "// @public",
    "export function newHandlers(config: Options): Handlers;",
    "",
  ].join("\n");
  // A compiled lib/jobs/handlers.d.ts: `Handlers` is public through newHandlers, not exported.
  const handlers = declarationsOfFile(
    [
      'import type { HandlerFunc } from "../http/index.ts";',
      "/** The job route handlers. */",
      "export interface Handlers {",
      "    /** `GET /jobs/{id}`: the full page. */",
      "    StatusPage: HandlerFunc;",
      "    Fragment: HandlerFunc;",
      "}",
      "export declare function newHandlers(config: Config): Handlers;",
    ].join("\n"),
  );
  // A compiled lib/internal/secret.d.ts and lib/signin/oidc/provider.d.ts.
  const secret = declarationsOfFile(
    '/** Reports whether two secrets are equal, in constant time. */\nexport declare function equalSecret(a: string, b: string): boolean;\nexport declare const SECRET_LABEL = "x";\n',
  );
  const provider = declarationsOfFile(
    [
      "export declare class InboxProvider {",
      "    #private;",
      "    constructor(options: InboxProviderOptions);",
      "    /** Reports whether `address` has a claimed inbox. */",
      "    isClaimed(address: string): Promise<boolean>;",
      "    clearCookie(): string;",
      "}",
    ].join("\n"),
  );
  const surface = surfaceOf(
    new Map([
      ["latch", snippet],
      ["latch/signin", "export function create(config: Config): void;\nexport interface Config {\n    SessionTTL: number;\n}\n"],
    ]),
  );
  addUnprinted(
    surface,
    new Map([
      ["latch", "lib/"],
      ["latch/signin", "lib/signin/"],
    ]),
    new Map([["lib/jobs/handlers.ts", handlers]]),
  );
  const skip = new Set(["Date", "Intl", "INSTANCE_KEY", "Server"]);
  const codes = new Set(["ERR_JOBS_OWNER_BUSY", "ERR_AGENT_UNCONFIRMED"]);
  const check = (span: string, local: Declarations = new Map()): string[] =>
    checkSpan(span, { surface, skip: (name) => skip.has(name), codes, local });

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

  test("resolves the members of a public type its report does not print", () => {
    for (const span of ["Handlers", "StatusPage", "Fragment", "Handlers.StatusPage", "newHandlers(config).Fragment"]) {
      assert.deepEqual(check(span), [], span);
    }
    assert.deepEqual(check("Handlers.Events"), ["no declaration Handlers reaches names Events"]);
  });

  test("reports unknown names, members, entries and imports", () => {
    assert.deepEqual(check("Access.String"), ["no declaration Access reaches names String"]);
    assert.deepEqual(check("signin.New"), ["latch/signin names no New"]);
    assert.deepEqual(check("RequireSession"), ["no report names RequireSession"]);
    assert.deepEqual(check("readBody(req)"), ["no report names readBody"]);
    assert.deepEqual(check("DEFAULT_CSP"), ["no report names DEFAULT_CSP"]);
    assert.deepEqual(check("sweep()"), ["no report names sweep"]);
    assert.deepEqual(check("latch/nope"), ["latch/nope is not a package entry"]);
    assert.deepEqual(check('import { Run, Nope } from "latch/signin"'), ["latch/signin exports no Run", "latch/signin exports no Nope"]);
  });

  test("accepts an error code a list holds or the retired table lists, and no other", () => {
    assert.deepEqual(check("ERR_JOBS_OWNER_BUSY"), []);
    assert.deepEqual(check("ERR_AGENT_UNCONFIRMED"), []);
    assert.deepEqual(check("ERR_JOBS_OWNER_BUSIED"), ["ERR_JOBS_OWNER_BUSIED is in no *_ERROR_CODES list and not retired"]);
  });

  test("accepts a declaration in scope, its members, and nothing else there", () => {
    const local = merged([secret, provider], true);
    for (const span of [
      "equalSecret",
      "equalSecret(a, b)",
      "SECRET_LABEL",
      "InboxProvider",
      "isClaimed(address)",
      "InboxProvider.clearCookie()",
    ]) {
      assert.deepEqual(check(span, local), [], span);
    }
    assert.deepEqual(check("InboxProvider.begin", local), ["no declaration InboxProvider reaches names begin"]);
    assert.deepEqual(check("secretEqual"), ["no report names secretEqual"]);
    assert.deepEqual(check("secretEqual", local), ["neither a report nor a file in scope names secretEqual"]);
    // Out of scope, an internal name is unknown.
    assert.deepEqual(check("equalSecret"), ["no report names equalSecret"]);
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
      "webauthn.create",
      "webauthn.get",
    ]) {
      assert.deepEqual(check(span), [], span);
    }
  });
});

describe("filesInScope()", () => {
  const files = ["lib/agent/request.ts", "lib/internal/secret.ts", "lib/signin/rate.ts", "lib/signin/oidc/pending.ts", "lib/http/csrf.ts"];
  const design = [
    "| Concept | Home |",
    "|---|---|",
    "| Are these two secrets equal? | `equalSecret`, `lib/internal/secret.ts` |",
    "| Who is calling | `grantFrom` |",
    "",
    "The Origin check lives in",
    "[csrf.ts](../lib/http/csrf.ts), once.",
    "",
    "Nothing named here.",
  ].join("\n");

  test("a module's README: its own folder, subfolders included", () => {
    assert.deepEqual(filesInScope("lib/signin/README.md", "", 1, files), ["lib/signin/rate.ts", "lib/signin/oidc/pending.ts"]);
    assert.deepEqual(filesInScope("lib/signin/oidc/README.md", "", 1, files), ["lib/signin/oidc/pending.ts"]);
    assert.deepEqual(filesInScope("lib/internal/README.md", "", 1, files), ["lib/internal/secret.ts"]);
  });

  test("a module's README file table: a names cell, the files its row gives", () => {
    const readme = [
      "| Name | File | What |",
      "|---|---|---|",
      "| `clientBucket` | `rate.ts` | Uses `pendingStore`, declared elsewhere. |",
      "| `gone` | `nope.ts` | A file no longer there. |",
    ].join("\n");
    const scope = (line: number, span: string): string[] => filesInScope("lib/signin/README.md", readme, line, files, span);
    assert.deepEqual(scope(3, "clientBucket"), ["lib/signin/rate.ts"]);
    // The description cell names what other files declare; a row giving no file of the folder leaves the folder.
    assert.deepEqual(scope(3, "pendingStore"), ["lib/signin/rate.ts", "lib/signin/oidc/pending.ts"]);
    assert.deepEqual(scope(4, "gone"), ["lib/signin/rate.ts", "lib/signin/oidc/pending.ts"]);
    assert.deepEqual(filesInScope("lib/signin/README.md", "| File | Holds |\n|---|---|\n| `oidc/pending.ts` | `x` |", 3, files, "x"), [
      "lib/signin/oidc/pending.ts",
    ]);
  });

  test("a maintainer document: the files its table row or paragraph gives", () => {
    assert.deepEqual(filesInScope("docs/design.md", design, 3, files), ["lib/internal/secret.ts"]);
    assert.deepEqual(filesInScope("docs/design.md", design, 4, files), []);
    assert.deepEqual(filesInScope("docs/design.md", design, 6, files), ["lib/http/csrf.ts"]);
    assert.deepEqual(filesInScope("docs/design.md", design, 9, files), []);
  });

  test("any other document: no file, even one it gives", () => {
    for (const document of ["README.md", "docs/guide.md", "docs/spec.md", "docs/errors.md", "docs/asvs.md"]) {
      assert.deepEqual(filesInScope(document, design, 3, files), [], document);
    }
  });
});

describe("contractIdiom()", () => {
  const spec = [
    "| Contract idiom | latch |",
    "|---|---|",
    "| a component's constructor `New(config)` (`signin.New`) | `create(config)` (`signin.create`) |",
    "",
    "Build it with `New(config)`.",
  ].join("\n");

  test("the contract's names in the idiom table's first column and design.md's New", () => {
    assert.ok(contractIdiom("docs/spec.md", spec, 3, "New(config)"));
    assert.ok(contractIdiom("docs/spec.md", spec, 3, "signin.New"));
    assert.ok(contractIdiom("docs/design.md", "", 1, "New"));
  });

  test("not latch's column, not outside the table, not another document", () => {
    assert.ok(!contractIdiom("docs/spec.md", spec, 3, "create(config)"));
    assert.ok(!contractIdiom("docs/spec.md", spec, 5, "New(config)"));
    assert.ok(!contractIdiom("docs/spec.md", spec, 1, "latch"));
    assert.ok(!contractIdiom("docs/guide.md", spec, 3, "New(config)"));
    assert.ok(!contractIdiom("lib/signin/README.md", "", 1, "New"));
  });
});

test("every latch name in the shipped documents exists in the API reports or, where allowed, in lib/", async (t) => {
  const folders = new Map<string, string>();
  const reports = new Map<string, string>();
  for (const e of entries()) {
    const entry = e.subpath === "." ? "latch" : `latch/${e.subpath.slice(2)}`;
    reports.set(entry, readFileSync(join(API_DIR, e.report), "utf8"));
    folders.set(entry, `${relative(join(ROOT, "dist"), dirname(e.types))}/`);
  }
  const surface = surfaceOf(reports);
  const lib = libDeclarations();
  assert.ok(lib.size >= 100, `only ${lib.size} declaration files under dist/lib: build first`);
  addUnprinted(surface, folders, lib);
  const codes = new Set([...(await exportedCodes()).keys(), ...codesIn(errorTables().retired)]);
  const skip = notLatch();
  const unknown: string[] = [];
  let spans = 0;
  for (const document of shippedDocuments()) {
    const markdown = readRepoFile(document);
    for (const span of codeSpans(markdown)) {
      spans++;
      const scope = filesInScope(document, markdown, span.line, [...lib.keys()], span.text);
      const local = merged(
        scope.map((file) => lib.get(file) ?? { names: new Map(), members: new Map() }),
        true,
      );
      if (contractIdiom(document, markdown, span.line, span.text)) continue;
      for (const problem of checkSpan(span.text, { surface, skip, codes, local })) {
        unknown.push(`${document}:${span.line}: \`${span.text}\`: ${problem}`);
      }
    }
  }
  t.diagnostic(`${spans} code spans read, ${unknown.length} unknown names`);
  assert.ok(spans >= 1000, `only ${spans} code spans found`);
  // One line each, all of them (a deepEqual diff would cut a long list short).
  assert.equal(unknown.length, 0, `names neither the API reports (api/) nor, where allowed, lib/ declare:\n${unknown.join("\n")}`);
});
