/*
 * Which module owns which table, read from the schemas: a table belongs to
 * the module whose files create it (`CREATE TABLE name` in code, comment
 * lines left out). One home for the owner map the docs suite checks the
 * module READMEs against.
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import { sourceFiles } from "./imports.ts";

const CREATE_TABLE = /\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)\b/gi;

/** Returns, per module of `libDir`, the tables its files create, sorted. */
export function tableOwners(libDir: string): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const file of sourceFiles(libDir)) {
    const module = relative(libDir, file).split(sep)[0] ?? "";
    const code = readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line))
      .join("\n");
    for (const match of code.matchAll(CREATE_TABLE)) out.set(module, (out.get(module) ?? new Set()).add(match[1] ?? ""));
  }
  return new Map([...out].map(([module, tables]) => [module, [...tables].sort()]));
}
