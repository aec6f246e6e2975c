/*
 * The writing names of latch's public API (scripts/write-paths.ts describes
 * the table they are checked against): every function or method in the API
 * reports (api/*.api.md) whose name begins with a writing verb.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The verbs a writing name begins with. */
export const WRITE_VERBS: readonly string[] = [
  "add",
  "append",
  "consume",
  "create",
  "decide",
  "delete",
  "exec",
  "insert",
  "merge",
  "mint",
  "regenerate",
  "register",
  "remove",
  "rename",
  "revoke",
  "rotate",
  "save",
  "send",
  "set",
  "sign",
  "start",
  "take",
  "update",
  "write",
];

// The words of a camelCase or PascalCase name, lower case.
const words = (name: string): string[] => (name.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g) ?? []).map((w) => w.toLowerCase());

/** The writing names of every API report: "entry: name" for a function, "entry: Class.method" for a method. */
export function writingNames(dir: string = join(ROOT, "api")): string[] {
  const found: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".api.md"))
    .sort()) {
    const entry = file.slice(0, -".api.md".length);
    let owner: string | undefined;
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      const declared = /^export (?:declare )?(?:abstract )?(?:class|interface) (\w+)/.exec(line);
      const fn = /^export (?:declare )?function (\w+)/.exec(line);
      const member = /^\s+(?:static |readonly |protected |abstract )*(\w+)\??(?:<[^>]*>)?\(/.exec(line);
      let name: string | undefined;
      if (declared?.[1] !== undefined) owner = declared[1];
      else if (fn?.[1] !== undefined) name = fn[1];
      else if (line.startsWith("}")) owner = undefined;
      else if (member?.[1] !== undefined && owner !== undefined && member[1] !== "constructor") name = `${owner}.${member[1]}`;
      if (name !== undefined && WRITE_VERBS.includes(words(name.split(".").pop() ?? "")[0] ?? "")) found.push(`${entry}: ${name}`);
    }
  }
  return found;
}
