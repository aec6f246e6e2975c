/*
 * Writes sbom.cdx.json, the CycloneDX SBOM of latch's production tree
 * that ships in the package (docs/supply-chain.md#sbom). npm's own
 * generator reads package-lock.json (not node_modules, so an install with
 * dev or optional packages missing gives the same answer), and the output
 * is made reproducible: the random serial number and the timestamp are
 * left out (both optional in CycloneDX 1.5), and the root component is
 * named from package.json rather than from the checkout's directory.
 *
 * npm 11's generator leaves out packages that dev packages depend on too
 * (once, wrappy, inherits: prebuild-install's tree): the production tree is
 * therefore also walked here from package-lock.json, and any package npm
 * missed is added in npm's own component shape, with the edges npm missed.
 *
 * Usage: node dist/scripts/sbom.js  (writes sbom.cdx.json; test/supply/sbom.test.ts
 * fails when the committed one is not current)
 */
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The shipped SBOM's path. */
export const SBOM_FILE: string = join(ROOT, "sbom.cdx.json");

/** A CycloneDX document, as far as latch reads it. */
export interface SBOM {
  serialNumber?: string;
  metadata: { timestamp?: string; component: { name: string; "bom-ref": string } };
  components: SBOMComponent[];
  dependencies: { ref: string; dependsOn: string[] }[];
}

/** One package of the production tree. */
export interface SBOMComponent {
  "bom-ref"?: string;
  name: string;
  version: string;
  /** "required" or "optional" (an optional dependency of its parent). */
  scope: string;
  licenses?: ({ license: { id?: string; name?: string } } | { expression: string })[];
}

/** Generates the SBOM text (JSON, two-space indented, a final newline) from package-lock.json. */
export function generateSBOM(): string {
  const out = execFileSync("npm", ["sbom", "--sbom-format", "cyclonedx", "--omit", "dev", "--package-lock-only"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  const sbom = JSON.parse(out) as SBOM;
  delete sbom.serialNumber;
  delete sbom.metadata.timestamp;
  sbom.metadata.component.name = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string }).name;
  addMissed(sbom);
  return `${JSON.stringify(sbom, null, 2)}\n`;
}

interface LockedPackage {
  name?: string;
  version: string;
  integrity?: string;
  license?: string;
  dev?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Where `name` required from the package at `from` (a lockfile path, "" for the root) resolves, as Node looks it up. */
function resolveLocked(packages: Record<string, LockedPackage>, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf("/node_modules/")))) {
    const path = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`;
    if (packages[path] !== undefined) return path;
    if (dir === "") return undefined;
  }
}

/** Adds to `sbom` the production packages of package-lock.json it lacks (with their dependency edges). */
function addMissed(sbom: SBOM): void {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, LockedPackage> };
  const packages = lock.packages;
  const ref = (path: string): string =>
    `${packages[path]?.name ?? path.slice(path.lastIndexOf("node_modules/") + 13)}@${packages[path]?.version}`;
  const known = new Set(sbom.components.map((c) => c["bom-ref"]));
  const seen = new Set<string>();
  const walk = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const locked = packages[path];
    if (locked === undefined) return;
    const names = [...Object.keys(locked.dependencies ?? {}), ...Object.keys(locked.optionalDependencies ?? {})];
    const targets = names.map((name) => resolveLocked(packages, path, name)).filter((p): p is string => p !== undefined);
    if (path !== "" && !known.has(ref(path))) {
      const name = path.slice(path.lastIndexOf("node_modules/") + 13);
      const sha512 = locked.integrity?.startsWith("sha512-") ? Buffer.from(locked.integrity.slice(7), "base64").toString("hex") : undefined;
      sbom.components.push({
        "bom-ref": ref(path),
        type: "library",
        name,
        version: locked.version,
        scope: locked.optional === true ? "optional" : "required",
        purl: `pkg:npm/${name.replace("@", "%40")}@${locked.version}`,
        properties: [],
        externalReferences: [],
        ...(sha512 === undefined ? {} : { hashes: [{ alg: "SHA-512", content: sha512 }] }),
        licenses: locked.license === undefined ? [] : [{ license: { id: locked.license } }],
      } as SBOMComponent);
      sbom.dependencies.push({ ref: ref(path), dependsOn: [] });
      known.add(ref(path));
    }
    const edges = sbom.dependencies.find((d) => d.ref === (path === "" ? sbom.metadata.component["bom-ref"] : ref(path)));
    if (edges !== undefined) edges.dependsOn = [...new Set([...edges.dependsOn, ...targets.map(ref)])].sort();
    for (const target of targets) walk(target);
  };
  walk("");
  sbom.components.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  sbom.dependencies.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

/** A component's licence as one SPDX expression ("MIT", "(MIT OR WTFPL)"). */
export function licenceOf(component: SBOMComponent): string {
  return (component.licenses ?? []).map((l) => ("expression" in l ? l.expression : (l.license.id ?? l.license.name ?? ""))).join(" AND ");
}

if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(SBOM_FILE, generateSBOM());
  process.stdout.write("sbom: sbom.cdx.json\n");
}
