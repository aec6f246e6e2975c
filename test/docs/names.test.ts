/*
 * Every name the shipped Markdown writes as code (`Sessions.List`,
 * `signin.create(config)`, `LINK_TTL`) exists in latch's code, so a rename
 * or a removal that forgets a document fails here. A code span is checked
 * when it is a name, a dotted path or a call (prose and headers in
 * backticks are not); each identifier in it with a capital or an
 * underscore must be a word of lib/, examples/, scripts/, test/_support/
 * or tsconfig.json, comments left out. Names that are not latch's (Go's,
 * the contract's placeholders, wire fields of other protocols, retired
 * names a document recalls) are listed below with their reason.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { codeBlocks, listFiles, readRepoFile } from "../_support/docs.ts";

const NOT_LATCH: ReadonlyMap<string, string> = new Map([
  ...["ErrX", "isX", "hasX", "isXError", "Context"].map((n) => [n, "the contract's idiom or a placeholder (spec.md, style.md)"] as const),
  ...["SPEC", "STYLE"].map((n) => [n, "the citation tags of comments"] as const),
  ...["ServeMux", "CONNECT", "Host", "Request", "pathUnescape"].map((n) => [n, "Go's net/http, which the router follows"] as const),
  ...["ERR_AGENT_UNCONFIRMED", "assertConfirmed", "parseToolCall"].map((n) => [n, "retired (errors.md, Retired codes)"] as const),
  ...["toJSON", "Bcc", "NODE_COMPILE_CACHE", "NodeNext", "LICENSE"].map((n) => [n, "the browser's, mail's, Node's, TypeScript's or the repository's"] as const),
  ...["authorization_servers", "access_denied"].map((n) => [n, "OAuth wire fields"] as const),
  ...["expectedType", "parseVectors", "signatureVectors"].map((n) => [n, "the passkey test vectors' fixture (lib/passkey/README.md)"] as const),
  ...["amount_min", "amount_max", "key_other"].map((n) => [n, "built from a field or a plural category at run time"] as const),
  ...["expenses_list", "expenses_read", "expenses_create", "expenses_update", "expenses_delete"].map((n) => [n, "a resource's tools, named at run time"] as const),
]);

/** The contract's `New` is latch's `create`: only the idiom table (spec.md) and the decision (design.md) may name it. */
const NEW_ALLOWED_IN = new Set(["docs/spec.md", "docs/design.md"]);

/** Returns the words of a source file outside its comments. */
function codeWords(source: string): string[] {
  const stripped = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|\s)\/\/.*$/gm, "$1");
  return stripped.match(/[A-Za-z_$][\w$]*/g) ?? [];
}

/** Returns the identifiers a Markdown document writes as code: names, dotted paths and calls, outside fenced blocks. */
function codeNames(markdown: string): string[] {
  let text = markdown;
  for (const block of codeBlocks(markdown)) text = text.replace(block.code, "");
  const out: string[] = [];
  for (const [, span = ""] of text.matchAll(/`([^`\n]+)`/g)) {
    const m = /^(?:new\s+)?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?(?:\s*→.*)?$/.exec(span);
    if (m === null || /\.(md|ts|js|json)$/.test(span)) continue;
    for (const name of (m[1] ?? "").split(".")) {
      if (name.length >= 3 && /[A-Z_]/.test(name) && !name.startsWith("_") && !name.endsWith("_")) out.push(name);
    }
  }
  return out;
}

test("codeNames() takes names, dotted paths and calls, not prose or files", () => {
  const markdown = "`Sessions.List(subject)`, `new Registry(logger)`, `303 See Other`, `Sec-Fetch-Site`, `CHANGELOG.md`, `…_INVALID`\n```ts\nHidden\n```\n";
  assert.deepEqual(codeNames(markdown), ["Sessions", "List", "Registry"]);
});

test("every name the docs write as code exists in the code", () => {
  const sources = [
    ...listFiles("lib", [".ts", ".js"]),
    ...listFiles("examples", [".ts"]),
    ...listFiles("scripts", [".ts"]),
    ...listFiles("test/_support", [".ts"]),
    "tsconfig.json",
  ];
  const words = new Set(sources.flatMap((file) => codeWords(readRepoFile(file))));
  const documents = ["README.md", ...listFiles("docs", [".md"]), ...listFiles("lib", ["README.md"]), "examples/starter/README.md"];
  const unknown = documents.flatMap((document) =>
    codeNames(readRepoFile(document))
      .filter((name) => !words.has(name) && !NOT_LATCH.has(name) && !(name === "New" && NEW_ALLOWED_IN.has(document)))
      .map((name) => `${document}: ${name}`),
  );
  assert.deepEqual([...new Set(unknown)], []);
});
