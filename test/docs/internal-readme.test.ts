/*
 * lib/internal/README.md's table is read from the code: each row's "Used by"
 * cell names exactly the modules that import the row's names, and each
 * claim that a file is the one place of a mechanism (cookie attributes,
 * Fetch Metadata, the /64 client key, constant-time comparison, the event
 * stream) holds:
 * the mechanism appears in code nowhere but in its home and in the files
 * the row itself names as the exceptions. A row that starts claiming "the
 * one" place must get its check here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { namesImportedFrom } from "../_support/imports.ts";
import { ROOT, leadingNames, listFiles, readRepoFile } from "../_support/docs.ts";

const README = "lib/internal/README.md";

/** One row of the README's table: the names it documents and its text. */
interface Row {
  names: string[];
  what: string;
  usedBy: string;
}

function rows(): Row[] {
  return readRepoFile(README)
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [, names = "", what = "", usedBy = ""] = line.split("|");
      return { names: leadingNames(names), what, usedBy: usedBy.trim() };
    });
}

/** The modules of lib/ (folders with an index.ts), but internal. */
const MODULES = listFiles("lib", ["index.ts"])
  .map((door) => door.split("/"))
  .filter((parts) => parts.length === 3 && parts[1] !== "internal")
  .map((parts) => parts[1] ?? "");

/** The module names a "Used by" cell states, its parenthetical remarks left out. */
function statedUsers(cell: string): string[] {
  const plain = cell.replace(/\([^)]*\)/g, "");
  return MODULES.filter((m) => new RegExp(String.raw`(?<![\w/.-])${m}(?![\w/-])`).test(plain)).sort();
}

/** The files of lib/ whose code (comment lines left out) matches `pattern`, repository-relative. */
function filesWhoseCodeMatches(pattern: RegExp): string[] {
  return listFiles("lib", [".ts", ".js"]).filter((path) =>
    readRepoFile(path)
      .split("\n")
      .some((line) => !/^\s*(\*|\/\*|\/\/)/.test(line) && pattern.test(line)),
  );
}

/**
 * The "one place" claims and how each is checked: the row (by its first
 * name), the words that make the claim, what the mechanism looks like in
 * code and its home. Files the row names (`lib/….ts`) are its stated
 * exceptions.
 */
const ONE_PLACE = [
  { row: "LatchCookie", claim: /The one home of those attributes/, code: /SameSite=|HttpOnly/, home: "lib/internal/cookie.ts" },
  { row: "requestTarget", claim: /the one rule behind `crossOriginProtection`/, code: /sec-fetch-site/i, home: "lib/internal/request.ts" },
  {
    row: "writeErrorPage",
    claim: /The one error answer/,
    code: /ErrorPage\(req, res, status, (ref|message)\)/,
    home: "lib/internal/respond.ts",
  },
  { row: "clientKey", claim: /its \/64/, code: /::\/64/, home: "lib/internal/client-key.ts" },
  {
    row: "eventStreams",
    claim: /The one event-stream endpoint/,
    code: /new (EventWriter|EventSource)\(/,
    home: "lib/internal/event-stream.ts",
  },
  {
    row: "ownField",
    claim: /The one reader of a field of untrusted JSON/,
    code: /getOwnPropertyDescriptor\(/,
    home: "lib/internal/own-field.ts",
  },
  // HKDF, or an HMAC keyed by the instance key itself: a key derived from InstanceKey.
  {
    row: "deriveKey",
    claim: /The one derivation of a key from `InstanceKey`/,
    code: /hkdfSync\(|createHmac\("sha256", (config\.)?[iI]nstanceKey\)/,
    home: "lib/internal/derive-key.ts",
  },
  // A wait in ms made whole seconds for Retry-After: a line naming retry (or ms) that divides by 1000.
  { row: "takeLimit", claim: /the one `Retry-After` rounding/, code: /(retry|\bms\b)[^;]*\/ ?1000\)/i, home: "lib/internal/limiter.ts" },
  // A table that starts again past its bound: its size checked, then cleared, on one line.
  { row: "remembered", claim: /The one bounded memo/, code: /\.size >= [\w.#]+\) [\w.#]+\.clear\(\)/, home: "lib/internal/remembered.ts" },
  // A transaction begun by its mode (`.immediate(…)`), a wrapper made and called on one line, or one made of a function
  // without arguments on a handle (`db.transaction(() => …`, or `.transaction(() =>` opening a line, the handle on the
  // line before): made per call, which is `immediately`'s work. A handle's statement group taking arguments is made once.
  {
    row: "immediately",
    claim: /The one way a piece of work runs in a transaction of its own/,
    code: /\.(immediate|deferred|exclusive)\(|\.transaction\([^;]*\)\(\)|\b(db|DB)\s*\.transaction\(\s*\(\)|^\s*\.transaction\(\s*\(\)/,
    home: "lib/internal/transaction.ts",
  },
  {
    row: "equalSecret",
    claim: /where every secret given as a string is compared/,
    code: /timingSafeEqual\(/,
    home: "lib/internal/secret.ts",
  },
] as const;

describe("lib/internal/README.md", () => {
  const table = rows();

  test("statedUsers()", () => {
    assert.deepEqual(statedUsers("runtime (`writeError`), http (`respond.ts`), manifest"), ["http", "manifest", "runtime"]);
    assert.deepEqual(statedUsers("session, signin (binding, inbox provider), passkey"), ["passkey", "session", "signin"]);
  });

  test("each row's Used by names exactly the modules that import its names", () => {
    assert.ok(table.length >= 15, `only ${table.length} rows read`);
    const imported = namesImportedFrom(join(ROOT, "lib"), "internal");
    const withErrors = new Set(listFiles("lib", ["errors.ts"]).map((path) => path.split("/")[1] ?? ""));
    const wrong: string[] = [];
    for (const row of table) {
      const users = [...imported].filter(([, names]) => row.names.some((n) => names.has(n))).map(([m]) => m);
      // "every `errors.ts` but X": the modules with an errors.ts, X left out.
      const every = /^every `errors\.ts`(?: but (\w+))?/.exec(row.usedBy);
      const stated = every === null ? statedUsers(row.usedBy) : [...withErrors].filter((m) => m !== every[1]).sort();
      if (users.sort().join(" ") !== stated.join(" "))
        wrong.push(`${row.names.join(", ")}: the README says ${stated.join(", ")}, imported by ${users.join(", ")}`);
    }
    assert.deepEqual(wrong, []);
  });

  test("every name lib/internal's index.ts exports has a row", () => {
    const documented = new Set(table.flatMap((row) => row.names));
    const exported = [...readRepoFile("lib/internal/index.ts").matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)].flatMap((m) =>
      (m[1] ?? "").split(",").map((n) => n.trim()),
    );
    assert.deepEqual(
      exported.filter((n) => n !== "" && !documented.has(n)),
      [],
    );
  });

  test('every "the one" claim of the table is checked here', () => {
    // Quoted text (a section title cited) claims nothing.
    const claims = table.filter((row) => /\b(the one|one home)\b/i.test(row.what.replace(/"[^"]*"/g, ""))).map((row) => row.names[0] ?? "");
    assert.deepEqual(
      claims.filter((name) => !ONE_PLACE.some((c) => c.row === name)),
      [],
    );
  });

  for (const claim of ONE_PLACE) {
    test(`${claim.row}: the mechanism is in ${claim.home} and the files its row names, nowhere else`, () => {
      const row = table.find((r) => r.names[0] === claim.row);
      assert.ok(row !== undefined && claim.claim.test(row.what), `${README} no longer says ${String(claim.claim)} in ${claim.row}'s row`);
      const named = [...row.what.matchAll(/`(lib\/[\w/.-]+\.(?:ts|js))`/g)].map((m) => m[1] ?? "");
      assert.deepEqual(filesWhoseCodeMatches(claim.code), [claim.home, ...named].sort());
    });
  }
});
