import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const child = fileURLToPath(new URL("./escape-child.js", import.meta.url));

function run(scenario: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, scenario], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    p.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    p.on("error", reject);
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("Registry escaped errors", () => {
  it("fails the job whose timer, immediate or floating promise threw, and the process lives", async () => {
    const { code, stdout, stderr } = await run("job");
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), ["failed:boom in timer", "failed:floating rejection", "failed:boom in immediate"]);
  });

  for (const [scenario, message] of [
    ["unrelated-exception", "unrelated crash"],
    ["unrelated-rejection", "unrelated rejection"],
  ] as const) {
    it(`keeps Node's default crash for an error outside any job (${scenario})`, async () => {
      const { code, stdout, stderr } = await run(scenario);
      assert.equal(stdout.trim(), '"started"', "the registry was running a job");
      assert.equal(code, 1);
      assert.ok(stderr.includes(message), stderr);
      assert.ok(stderr.includes("    at "), "Node printed the stack as usual");
    });
  }

  for (const [scenario, message] of [
    ["finished-exception", "late crash"],
    ["finished-rejection", "late rejection"],
  ] as const) {
    it(`keeps Node's default crash for an error escaping a job that already finished (${scenario})`, async () => {
      const { code, stdout, stderr } = await run(scenario);
      assert.equal(stdout.trim(), '"done:"', "the job had finished before its callback threw");
      assert.equal(code, 1, "the process did not carry on");
      assert.ok(stderr.includes(message), stderr);
      assert.ok(stderr.includes("    at "), "Node printed the stack as usual");
    });
  }

  it("leaves unrelated errors to the application's own listener", async () => {
    const { code, stdout, stderr } = await run("app-listener");
    assert.equal(code, 0, stderr);
    assert.deepEqual(JSON.parse(stdout), { seen: ["handled by the app"], job: "running:" });
  });
});
