/*
 * Every file a shipped document names in its prose exists, and a line
 * reference (`lib/http/csrf.ts:42`, `lib/http/csrf.ts:40-48`) stays within
 * the file. A reference is a path with at least one folder and a file
 * extension whose first folder is a folder of the repository's root or of
 * the document's own folder (so `src/main.ts` in the guide, a reader's own
 * project, and the build's `dist/` are not references). Fenced code is not
 * read; Markdown links are links.test.ts's.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "node:test";
import { ROOT, prose, readRepoFile, shippedDocuments } from "../_support/docs.ts";

/** One file reference: the path as written, its line range if any, and the line of the document it is on. */
interface Reference {
  path: string;
  from?: number;
  to?: number;
  line: number;
}

const REFERENCE =
  /(?<![\w./-])((?:\.\.\/)*(?:[\w.-]+\/)+[\w.-]+\.(?:ts|js|json|md|css|html|service|socket|timer|sh|yml|yaml|txt))(?::(\d+)(?:-(\d+))?)?(?![\w/-])/g;

/** Returns the file references of a document's prose. */
function references(markdown: string): Reference[] {
  return prose(markdown)
    .split("\n")
    .flatMap((text, i) =>
      [...text.matchAll(REFERENCE)].map((m) => {
        const reference: Reference = { path: m[1] ?? "", line: i + 1 };
        if (m[2] !== undefined) reference.from = Number(m[2]);
        if (m[3] !== undefined || m[2] !== undefined) reference.to = Number(m[3] ?? m[2]);
        return reference;
      }),
    );
}

test("references()", () => {
  const text =
    'See `lib/http/csrf.ts:12` and lib/a/b.ts:3-9, (../x/y.md).\n```ts\nimport x from "lib/z.ts";\n```\nnot a/b, nor a.ts, nor https://x.org/a/b.ts:1';
  assert.deepEqual(references(text), [
    { path: "lib/http/csrf.ts", from: 12, to: 12, line: 1 },
    { path: "lib/a/b.ts", from: 3, to: 9, line: 1 },
    { path: "../x/y.md", line: 1 },
  ]);
});

/** The folders a reference may start from: the repository root's (less the build and installs) and the document's own. */
function folders(dir: string): Set<string> {
  return new Set(
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name),
  );
}

test("files and lines the documents reference exist", () => {
  const rootFolders = folders(".");
  for (const skipped of ["dist", "node_modules", ".git"]) rootFolders.delete(skipped);
  const broken: string[] = [];
  let checked = 0;
  for (const document of shippedDocuments()) {
    const own = folders(dirname(document));
    for (const ref of references(readRepoFile(document))) {
      const first = ref.path.split("/")[0] ?? "";
      let file: string;
      if (first === "..") file = normalize(join(dirname(document), ref.path));
      else if (own.has(first) && dirname(document) !== ".") file = join(dirname(document), ref.path);
      else if (rootFolders.has(first)) file = ref.path;
      else continue;
      checked++;
      const where = `${document}:${ref.line}: ${ref.path}${ref.from === undefined ? "" : `:${ref.from}`}`;
      if (!existsSync(join(ROOT, file)) || !statSync(join(ROOT, file)).isFile()) {
        broken.push(`${where} (no file ${file})`);
        continue;
      }
      if (ref.from === undefined || ref.to === undefined) continue;
      const lines = readRepoFile(file).replace(/\n$/, "").split("\n").length;
      if (ref.from < 1 || ref.to < ref.from || ref.to > lines) broken.push(`${where} (${file} has ${lines} lines)`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked >= 100, `only ${checked} references found`);
});
