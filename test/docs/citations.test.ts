/*
 * Every `SPEC §n` in a comment must land on a heading of docs/spec.md, and
 * every `STYLE §n` on one of docs/style.md, so a reader can follow any
 * citation without leaving the repository. Citations of other documents
 * (WebAuthn L3 §7.1, RFC 5321 §4.2.1, OWASP ASVS 5.0 §…) are not ours to
 * resolve and are left alone.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { listFiles, readRepoFile, sectionNumbers } from "../_support/docs.ts";

/** Which of our documents a citation names, and where that document lives. */
const DOCUMENTS = { SPEC: "docs/spec.md", STYLE: "docs/style.md" } as const;
type Document = keyof typeof DOCUMENTS;

interface Citation {
  document: Document;
  section: string;
  line: number;
}

const NUMBER = String.raw`\d+(?:\.\d+)*`;
// One cited section: "§4.2", or a range "§5.5–5.7" (en dash or hyphen).
const ITEM = String.raw`§\s*${NUMBER}(?:\s*[–-]\s*${NUMBER})?`;
// "SPEC §4.2", "SPEC.md §2.8, §3.1", "SPEC §4.1 and §7", "STYLE.md §5".
const CITATION = new RegExp(String.raw`\b(SPEC|STYLE)(?:\.md)?\s+(${ITEM}(?:\s*(?:,|;|and|or)\s*${ITEM})*)`, "g");

/** Returns the SPEC and STYLE section citations in `text`, a comment continued over several lines counting as one line of prose. */
function findCitations(text: string): Citation[] {
  // Join continued comment lines ("(SPEC.md §2.6,\n * §5.9)") but remember where each character came from.
  const lineOf: number[] = [];
  let joined = "";
  let line = 1;
  for (const raw of text.split("\n")) {
    const stripped = raw.replace(/^\s*(?:\/\/|\*(?!\/)|\/\*\*?)?\s?/, "");
    const piece = (joined === "" ? "" : " ") + stripped;
    for (let i = 0; i < piece.length; i++) lineOf.push(line);
    joined += piece;
    line++;
  }
  const out: Citation[] = [];
  for (const m of joined.matchAll(CITATION)) {
    const document = m[1] as Document;
    const at = lineOf[m.index] ?? 0;
    for (const n of (m[2] ?? "").matchAll(new RegExp(NUMBER, "g"))) out.push({ document, section: n[0], line: at });
  }
  return out;
}

test("findCitations()", async (t) => {
  const rows: { input: string; want: string[] }[] = [
    { input: "// SPEC §4.2: all are POST", want: ["SPEC 4.2"] },
    { input: "/* The record (SPEC.md §2.8, §3.1) and */", want: ["SPEC 2.8", "SPEC 3.1"] },
    { input: " * (SPEC.md §2.6,\n * §5.9) and more", want: ["SPEC 2.6", "SPEC 5.9"] },
    { input: "// SPEC §5.3–5.4: Authorize gates", want: ["SPEC 5.3", "SPEC 5.4"] },
    { input: "(SPEC §4.1 and §7)", want: ["SPEC 4.1", "SPEC 7"] },
    { input: "// STYLE §10: no control characters", want: ["STYLE 10"] },
    { input: "// WebAuthn L3 §7.1 step 5; RFC 5321 §4.2.1", want: [] },
    { input: `// SPEC "Passkey challenge lifetime"`, want: [] },
  ];
  for (const { input, want } of rows) {
    await t.test(JSON.stringify(input), () => {
      assert.deepEqual(
        findCitations(input).map((c) => `${c.document} ${c.section}`),
        want,
      );
    });
  }
});

test("every SPEC and STYLE citation in the tree has a heading in docs/", () => {
  const headings = new Map<Document, Set<string>>();
  for (const [document, path] of Object.entries(DOCUMENTS) as [Document, string][]) {
    headings.set(document, sectionNumbers(readRepoFile(path)));
  }
  const files = [
    ...listFiles("lib", [".ts", ".js", ".md"]),
    ...listFiles("examples", [".ts", ".js"]),
    ...listFiles("scripts", [".ts"]),
    ...listFiles("docs", [".md"]),
    "README.md",
  ];
  const dangling: string[] = [];
  let found = 0;
  for (const file of files) {
    for (const c of findCitations(readRepoFile(file))) {
      found++;
      if (!headings.get(c.document)?.has(c.section))
        dangling.push(`${file}:${c.line}: ${c.document} §${c.section} (no heading in ${DOCUMENTS[c.document]})`);
    }
  }
  assert.deepEqual(dangling, []);
  // The code cites the contract about a hundred times; far fewer means the scan broke, not the code.
  assert.ok(found >= 80, `only ${found} citations found`);
});

test("docs/spec.md keeps the contract's section numbers", () => {
  const want = [
    "1",
    "2",
    "2.1",
    "2.2",
    "2.3",
    "2.4",
    "2.5",
    "2.6",
    "2.7",
    "2.8",
    "3",
    "3.1",
    "3.2",
    "4",
    "4.1",
    "4.2",
    "4.3",
    "4.4",
    "4.5",
    "5",
  ];
  for (let i = 1; i <= 11; i++) want.push(`5.${i}`);
  want.push("6", "6.1", "6.2", "7", "8", "9");
  assert.deepEqual([...sectionNumbers(readRepoFile(DOCUMENTS.SPEC))], want);
});
