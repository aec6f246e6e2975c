/*
 * Stamps the build version into the compiled runtime, so `GET /api/version`
 * reports it (SPEC §9: BuildVersion defaults to "dev", overridden at build
 * time). Run after `npm run build`:
 *
 *   node dist/scripts/stamp-version.js "$(git describe --tags --always)"
 *
 * It rewrites dist/lib/runtime/version.js (the source keeps "dev") and
 * bundles the demo again (dist/bundle/demo.js), so that the bundle the unit
 * runs reports the same version.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { bundle, DEMO_BUNDLE, DEMO_ENTRY } from "./bundle.ts";

const version = process.argv[2] ?? "";
// The version lands in a JS string literal and in JSON: keep it printable and short.
if (!/^[A-Za-z0-9._+-]{1,64}$/.test(version)) {
  process.stderr.write("stamp-version: give a version of 1-64 characters from [A-Za-z0-9._+-]\n");
  process.exit(2);
}
const file = fileURLToPath(new URL("../lib/runtime/version.js", import.meta.url));
const before = readFileSync(file, "utf8");
const after = before.replace(/export const BuildVersion = "[^"]*";/, `export const BuildVersion = "${version}";`);
if (after === before && !before.includes(`"${version}"`)) {
  process.stderr.write("stamp-version: BuildVersion declaration not found in dist/lib/runtime/version.js\n");
  process.exit(1);
}
writeFileSync(file, after);
await bundle(DEMO_ENTRY, DEMO_BUNDLE);
process.stdout.write(`stamp-version: BuildVersion = ${version}\n`);
