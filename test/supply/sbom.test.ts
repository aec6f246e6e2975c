/*
 * The shipped SBOM (sbom.cdx.json, docs/supply-chain.md#sbom): current
 * with package-lock.json, listed whole by the document's table, in the
 * package, and with only permissive licences in the run-time set.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateSBOM, licenceOf, SBOM_FILE, type SBOM } from "../../scripts/sbom.ts";
import { permissive, ROOT, supplyRows } from "./supply-doc.ts";

const committed = JSON.parse(readFileSync(SBOM_FILE, "utf8")) as SBOM;
const components = (sbom: SBOM): string[] => sbom.components.map((c) => `${c.name}@${c.version} ${c.scope} ${licenceOf(c)}`);

describe("sbom.cdx.json", () => {
  it("is current: regenerated from package-lock.json it has the same components and edges", () => {
    const fresh = JSON.parse(generateSBOM()) as SBOM;
    assert.deepEqual(components(fresh), components(committed));
    assert.deepEqual(fresh.dependencies, committed.dependencies);
  });

  it("is reproducible: no serial number, no timestamp, the root named latch", () => {
    assert.equal(committed.serialNumber, undefined);
    assert.equal(committed.metadata.timestamp, undefined);
    assert.equal(committed.metadata.component.name, "latch");
  });

  it("lists what docs/supply-chain.md's table lists, versions and licences alike", () => {
    const documented = supplyRows().map((row) => `${row.name}@${row.version} ${row.licence}`);
    assert.deepEqual(
      documented,
      committed.components.map((c) => `${c.name}@${c.version} ${licenceOf(c)}`),
    );
  });

  it("ships in the package", () => {
    const files = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] }).files;
    assert.ok(files.includes("sbom.cdx.json"));
  });

  it("has only permissive licences in the run-time set", () => {
    const runTime = new Set(
      supplyRows()
        .filter((row) => row.when.includes("run time"))
        .map((row) => row.name),
    );
    assert.ok(runTime.size >= 3);
    const refused = committed.components.filter((c) => runTime.has(c.name) && !permissive(licenceOf(c)));
    assert.deepEqual(
      refused.map((c) => `${c.name} ${licenceOf(c)}`),
      [],
    );
  });

  it("refuses copyleft licences and takes a permissive choice of an OR", () => {
    for (const licence of [
      "GPL-3.0-only",
      "LGPL-2.1-or-later",
      "AGPL-3.0",
      "MPL-2.0",
      "EUPL-1.2",
      "SSPL-1.0",
      "(MIT AND GPL-2.0)",
      "UNLICENSED",
      "",
    ]) {
      assert.equal(permissive(licence), false, licence);
    }
    for (const licence of ["MIT", "ISC", "(MIT OR WTFPL)", "(BSD-2-Clause OR MIT OR Apache-2.0)", "(GPL-2.0 OR MIT)"]) {
      assert.equal(permissive(licence), true, licence);
    }
  });
});
