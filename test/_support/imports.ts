/*
 * The imports between lib/'s modules, read from the sources: one home for
 * the parsing test/layering (the layer rules) and test/docs (the handbook's
 * layer table) both check against.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One relative import found in the sources, with the module of each end ("" for lib/index.ts). */
export interface Edge {
  from: string;
  to: string;
  file: string;
  target: string;
}

/** Returns the .ts files under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The module a lib/ file belongs to: its first folder, or "" for lib/index.ts. */
export function moduleOf(libDir: string, file: string): string {
  const parts = relative(libDir, file).split(sep);
  return parts.length > 1 ? (parts[0] ?? "") : "";
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"([^"]+)"/g;

/** Collects every relative import of lib/ (type-only ones too), with the module of each end. */
export function importEdges(libDir: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(libDir)) {
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? "";
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      edges.push({
        from: moduleOf(libDir, file),
        to: moduleOf(libDir, target),
        file: relative(libDir, file),
        target: relative(libDir, target),
      });
    }
  }
  return edges;
}

/** Collects every relative import of lib/ that crosses a module boundary. */
export function crossModuleEdges(libDir: string): Edge[] {
  return importEdges(libDir).filter((e) => e.from !== e.to);
}

/** Returns, per module ("" for lib/index.ts), the modules its files import, sorted. */
export function moduleImports(libDir: string): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const e of crossModuleEdges(libDir)) out.set(e.from, (out.get(e.from) ?? new Set()).add(e.to));
  return new Map([...out].map(([from, to]) => [from, [...to].sort()]));
}

const NAMED_IMPORT = /(?:^|\n)\s*import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"([^"]+)"/g;

/** Returns, per module, the names its files import from `module`'s index.ts (`import { a, type B as C }` gives a, B). */
export function namesImportedFrom(libDir: string, module: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const file of sourceFiles(libDir)) {
    const from = moduleOf(libDir, file);
    if (from === module) continue;
    for (const match of readFileSync(file, "utf8").matchAll(NAMED_IMPORT)) {
      const specifier = match[2] ?? "";
      if (!specifier.startsWith(".") || relative(libDir, resolve(dirname(file), specifier)) !== join(module, "index.ts")) continue;
      for (const item of (match[1] ?? "").split(",")) {
        const name =
          item
            .replace(/^\s*type\s+/, "")
            .split(/\s+as\s+/)[0]
            ?.trim() ?? "";
        if (name !== "") out.set(from, (out.get(from) ?? new Set()).add(name));
      }
    }
  }
  return out;
}
