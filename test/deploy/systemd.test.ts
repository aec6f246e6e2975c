/*
 * The systemd units in deploy/systemd/ pass `systemd-analyze verify`. The one
 * finding tolerated is Litestream's binary missing on a machine without it
 * (verify checks that every ExecStart= command exists); the test says so.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const UNITS_DIR = fileURLToPath(new URL("../../../deploy/systemd/", import.meta.url));
const LITESTREAM = "/usr/bin/litestream";
const analyze = spawnSync("systemd-analyze", ["--version"]);
const missing = analyze.error !== undefined ? "systemd-analyze is not installed (apt-get install systemd; .ci/run does)" : undefined;

describe("deploy/systemd units", () => {
  const units = readdirSync(UNITS_DIR)
    .filter((f) => /\.(service|socket)$/.test(f))
    .sort();

  test("ship the socket, the service, Litestream and the restore-before-start step", () => {
    assert.deepEqual(units, ["latch-demo-restore.service", "latch-demo.service", "latch-demo.socket", "litestream.service"]);
    const service = readFileSync(join(UNITS_DIR, "latch-demo.service"), "utf8");
    for (const line of [
      "StateDirectory=latch-demo",
      "NoNewPrivileges=yes",
      "ProtectSystem=strict",
      "Requires=latch-demo.socket latch-demo-restore.service",
    ]) {
      assert.ok(service.includes(`\n${line}\n`), line);
    }
    assert.match(
      readFileSync(join(UNITS_DIR, "latch-demo-restore.service"), "utf8"),
      /\nExecStart=\/usr\/bin\/litestream restore .*-if-db-not-exists -if-replica-exists \/var\/lib\/latch-demo\/demo\.db\n/,
    );
    assert.match(
      readFileSync(join(UNITS_DIR, "litestream.yml"), "utf8"),
      /socket:\n {2}enabled: true\n {2}path: \/run\/litestream\/litestream\.sock\n/,
    );
    assert.match(service, /\nEnvironment=NODE_ENV=production LITESTREAM_SOCKET=\/run\/litestream\/litestream\.sock\n/);
    // docs/durability.md "Units": the bundle, for the cold start, and no V8 heap flag (one costs every cold start 20-50 ms on Node 20).
    assert.match(service, /\nExecStart=\/usr\/bin\/node \/opt\/latch-demo\/dist\/bundle\/demo\.js\n/);
    assert.ok(existsSync(join(UNITS_DIR, "../../dist/bundle/demo.js")), "npm run build writes the bundle the unit runs");
  });

  test("pass systemd-analyze verify", { skip: missing }, (t) => {
    const r = spawnSync("systemd-analyze", ["verify", ...units.map((u) => join(UNITS_DIR, u))], { encoding: "utf8" });
    const tolerated = `Command ${LITESTREAM} is not executable: No such file or directory`;
    const findings = `${r.stdout}${r.stderr}`.split("\n").filter((l) => l.trim() !== "");
    const others = findings.filter((l) => existsSync(LITESTREAM) || !l.endsWith(tolerated));
    if (findings.length > others.length) t.diagnostic(`${LITESTREAM} is not installed here: its absence is the one finding tolerated`);
    assert.deepEqual(others, []);
    if (others.length === findings.length) assert.equal(r.status, 0);
  });
});
