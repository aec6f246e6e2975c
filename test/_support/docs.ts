/*
 * Shared by the docs suites: the repository's root, its source files, the
 * error codes the modules define, and what is read out of Markdown (section
 * headings, fenced code, inline code spans).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root (tests run from dist/test/docs). */
export const ROOT: string = fileURLToPath(new URL("../../../", import.meta.url));

/** Returns the repository-relative paths of the files under `dir` whose names end in one of `exts`, sorted. */
export function listFiles(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (abs: string): void => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (exts.some((ext) => entry.name.endsWith(ext))) out.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** Reads a repository file as UTF-8. */
export function readRepoFile(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

/** Returns the section numbers of a Markdown document's numbered headings ("## 4. Endpoints" → "4", "### 4.2 …" → "4.2"). */
export function sectionNumbers(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}[ \t]+§?(\d+(?:\.\d+)*)\.?[ \t]/gm)) out.add(m[1] ?? "");
  return out;
}

/** One fenced code block: its info string ("ts fragment"), its text, and the line its fence opens on (1-based). */
export interface CodeBlock {
  info: string;
  code: string;
  line: number;
}

/** Returns the fenced (```) code blocks of a Markdown document. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ""); i++) body.push(lines[i] ?? "");
    out.push({ info: (open[1] ?? "").trim(), code: body.join("\n"), line: start + 1 });
  }
  return out;
}

/** The Markdown the package ships and the docs suites check: README.md, docs/*.md and the module READMEs. */
export function shippedDocuments(): string[] {
  return ["README.md", ...listFiles("docs", [".md"]), ...listFiles("lib", ["README.md"])];
}

/** Returns a Markdown document with its fenced code blocks (fences included) blanked, line numbers kept: the prose. */
export function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split("\n")
    .map((line) => {
      if (/^```/.test(line)) {
        fenced = !fenced;
        return "";
      }
      return fenced ? "" : line;
    })
    .join("\n");
}

/** One inline code span of a document's prose (`…`, single backticks): its text and line (1-based). */
export interface CodeSpan {
  text: string;
  line: number;
}

/** Returns the inline code spans of a document's prose (fenced code skipped). */
export function codeSpans(markdown: string): CodeSpan[] {
  return prose(markdown)
    .split("\n")
    .flatMap((line, i) => [...line.matchAll(/(?<!`)`([^`]+)`(?!`)/g)].map((m) => ({ text: m[1] ?? "", line: i + 1 })));
}

/** Returns every code of every `*_ERROR_CODES` list that an `errors.js` under dist/lib exports (whether or not its module's door makes it public), with the list's name. */
export async function exportedCodes(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const file of listFiles("dist/lib", ["errors.js"])) {
    const mod: Record<string, unknown> = await import(pathToFileURL(join(ROOT, file)).href);
    for (const [name, value] of Object.entries(mod)) {
      if (!name.endsWith("_ERROR_CODES") || typeof value !== "object" || value === null) continue;
      for (const code of Object.keys(value)) out.set(code, name);
    }
  }
  return out;
}

/** The document listing the error codes; retired codes sit in their own table after RETIRED_HEADING. */
export const ERRORS_DOCUMENT = "docs/errors.md";
const RETIRED_HEADING = "\n## Retired codes\n";

/** Splits docs/errors.md at the retired-codes heading: the live tables before it, the retired table after. */
export function errorTables(): { live: string; retired: string } {
  const text = readRepoFile(ERRORS_DOCUMENT);
  const at = text.indexOf(RETIRED_HEADING);
  return at === -1 ? { live: text, retired: "" } : { live: text.slice(0, at), retired: text.slice(at) };
}

/** Returns the codes in the first cell of the table rows of `markdown`, in order (duplicates kept). */
export function codesIn(markdown: string): string[] {
  const out: string[] = [];
  for (const m of markdown.matchAll(/^\|\s*`(ERR_[A-Z0-9_]+)`\s*\|/gm)) out.push(m[1] ?? "");
  return out;
}

/** Returns the backticked names a table cell starts with, as a comma-separated list (`a`, `b` (…) gives a, b). */
export function leadingNames(cell: string): string[] {
  const out: string[] = [];
  let rest = cell.trim();
  for (;;) {
    const name = /^`([^`]+)`/.exec(rest);
    if (name === null) break;
    out.push(name[1] ?? "");
    rest = rest.slice(name[0].length);
    const comma = /^,\s*(?=`)/.exec(rest);
    if (comma === null) break;
    rest = rest.slice(comma[0].length);
  }
  return out;
}
