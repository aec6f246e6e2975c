/*
 * Reads docs/supply-chain.md's package table, for the supply-chain tests.
 */
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT: string = fileURLToPath(new URL("../../../", import.meta.url));

/** One row of the table: a package of a production install. */
export interface SupplyRow {
  name: string;
  version: string;
  licence: string;
  /** "run time", "install time", "optional, run time" or "optional, other platforms". */
  when: string;
}

/** The rows of docs/supply-chain.md's "## Packages" table. */
export function supplyRows(): SupplyRow[] {
  const text = readFileSync(join(ROOT, "docs/supply-chain.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Packages\n")) ?? "";
  const rows: SupplyRow[] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 6 || !cells[1]?.startsWith("`")) continue;
    const strip = (cell: string | undefined): string => (cell ?? "").replaceAll("`", "");
    rows.push({ name: strip(cells[1]), version: strip(cells[2]), licence: strip(cells[3]), when: strip(cells[4]) });
  }
  return rows;
}

/** The package names (scoped ones whole) among file paths under a node_modules directory, sorted, each once. */
export function packagesIn(paths: readonly string[]): string[] {
  const names = new Set<string>();
  const marker = `${sep}node_modules${sep}`;
  for (const path of paths) {
    const at = path.lastIndexOf(marker);
    if (at < 0) continue;
    const [first = "", second = ""] = path.slice(at + marker.length).split(sep);
    names.add(first.startsWith("@") ? `${first}/${second}` : first);
  }
  return [...names].sort();
}

/** The licences docs/supply-chain.md#sbom admits in the run-time set (SPDX ids). */
const PERMISSIVE: ReadonlySet<string> = new Set(["MIT", "ISC", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "0BSD"]);

/**
 * Whether an SPDX expression is permissive: one of its OR choices has only
 * permissive licences. A copyleft one (GPL, LGPL, AGPL, MPL, EUPL, SSPL)
 * or an unknown one is not.
 */
export function permissive(expression: string): boolean {
  const inner = expression.trim().replace(/^\((.*)\)$/, "$1");
  return inner.split(" OR ").some((choice) => {
    const parts = choice
      .replace(/[()]/g, "")
      .split(" AND ")
      .map((part) => part.trim());
    return parts.every((part) => PERMISSIVE.has(part));
  });
}
