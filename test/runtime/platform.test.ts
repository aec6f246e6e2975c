import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Resolve, Serve, type Options } from "../../lib/index.ts";
import { StateDirectory, parseActivation } from "../../lib/runtime/platform.ts";
import { originMismatch } from "../../lib/runtime/serve.ts";
import { captureLog, spawnChild, supportScript } from "../_support/http.ts";

const mux = (): void => {};

function assertInvalid(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof Error && "code" in err);
    assert.equal(err.code, "ERR_HTTP_INVALID_OPTIONS");
    assert.match(err.message, message);
    return true;
  });
}

describe("parseActivation()", () => {
  const good: { argv: string[]; want: ReturnType<typeof parseActivation> }[] = [
    { argv: [], want: { mode: "serve", socket: undefined, addr: undefined } },
    { argv: ["--socket", "/run/app.sock"], want: { mode: "serve", socket: "/run/app.sock", addr: undefined } },
    { argv: ["--socket=/run/app.sock"], want: { mode: "serve", socket: "/run/app.sock", addr: undefined } },
    { argv: ["--addr", "127.0.0.1:9000"], want: { mode: "serve", socket: undefined, addr: "127.0.0.1:9000" } },
    { argv: ["--addr=:9000"], want: { mode: "serve", socket: undefined, addr: ":9000" } },
    { argv: ["--addr=[::1]:9000"], want: { mode: "serve", socket: undefined, addr: "[::1]:9000" } },
    { argv: ["sidecar", "run"], want: { mode: "sidecar", socket: undefined, addr: undefined } },
    { argv: ["--help"], want: { mode: "help", socket: undefined, addr: undefined } },
    { argv: ["--addr", ":1", "-h"], want: { mode: "help", socket: undefined, addr: undefined } },
  ];
  for (const { argv, want } of good) {
    test(`parses ${JSON.stringify(argv)}`, () => assert.deepEqual(parseActivation(argv), want));
  }

  const bad: { argv: string[]; message: RegExp }[] = [
    { argv: ["--port", "80"], message: /unknown argument "--port"/ },
    { argv: ["serve"], message: /unknown argument "serve"/ },
    { argv: ["-s", "x"], message: /unknown argument/ },
    { argv: ["--socket"], message: /--socket needs a value/ },
    { argv: ["--addr="], message: /--addr needs a value/ },
    { argv: ["--socket", "/a", "--addr", ":1"], message: /at most one/ },
    { argv: ["sidecar"], message: /sidecar run/ },
    { argv: ["sidecar", "start"], message: /sidecar run/ },
    { argv: ["sidecar", "run", "--addr", ":1"], message: /sidecar run/ },
  ];
  for (const { argv, message } of bad) {
    test(`refuses ${JSON.stringify(argv)}`, () => assertInvalid(() => parseActivation(argv), message));
  }
});

describe("Resolve()", () => {
  test("lets --socket replace the application's Addr, and --addr its Socket", () => {
    const bySocket = Resolve({ Mux: mux, Addr: ":8080" }, ["--socket", "/run/a.sock"], {});
    assert.equal(bySocket.Socket, "/run/a.sock");
    assert.equal("Addr" in bySocket, false);
    const byAddr = Resolve({ Mux: mux, Socket: "/run/a.sock" }, ["--addr=127.0.0.1:1"], {});
    assert.equal(byAddr.Addr, "127.0.0.1:1");
    assert.equal("Socket" in byAddr, false);
  });

  test("keeps the options untouched without argv, and does not mutate its input", () => {
    const opts: Options = { Mux: mux, Addr: ":9", DBPath: "app.db" };
    const resolved = Resolve(opts, [], {});
    assert.deepEqual(resolved, opts);
    Resolve(opts, ["--socket", "/s"], { STATE_DIRECTORY: "/var/lib/app" });
    assert.deepEqual(opts, { Mux: mux, Addr: ":9", DBPath: "app.db" });
  });

  test("refuses unknown arguments", () => {
    assertInvalid(() => Resolve({ Mux: mux }, ["--verbose"], {}), /unknown argument/);
  });

  const paths: { name: string; dbPath: string; state: string | undefined; want: string }[] = [
    { name: "a relative DBPath lives in $STATE_DIRECTORY", dbPath: "app.db", state: "/var/lib/app", want: "/var/lib/app/app.db" },
    {
      name: "the first entry of a colon list is used",
      dbPath: "data/app.db",
      state: "/var/lib/one:/var/lib/two",
      want: "/var/lib/one/data/app.db",
    },
    { name: "an absolute DBPath is kept", dbPath: "/srv/app.db", state: "/var/lib/app", want: "/srv/app.db" },
    { name: ":memory: is kept", dbPath: ":memory:", state: "/var/lib/app", want: ":memory:" },
    { name: "without $STATE_DIRECTORY the path is kept", dbPath: "app.db", state: undefined, want: "app.db" },
    { name: "an empty $STATE_DIRECTORY is ignored", dbPath: "app.db", state: "", want: "app.db" },
  ];
  for (const { name, dbPath, state, want } of paths) {
    test(name, () => {
      const env = state === undefined ? {} : { STATE_DIRECTORY: state };
      assert.equal(Resolve({ Mux: mux, DBPath: dbPath }, [], env).DBPath, want);
    });
  }

  test("StateDirectory names the directory a relative DBPath goes to: the first entry of the list, none when unset or empty", () => {
    assert.equal(StateDirectory({ STATE_DIRECTORY: "/var/lib/one:/var/lib/two" }), "/var/lib/one");
    assert.equal(StateDirectory({ STATE_DIRECTORY: "/var/lib/app" }), "/var/lib/app");
    assert.equal(StateDirectory({ STATE_DIRECTORY: "" }), undefined);
    assert.equal(StateDirectory({}), undefined);
  });
});

describe("Run()", () => {
  test("under `sidecar run`, runs the pass repeatedly on the resolved database and stops on SIGTERM", async (t) => {
    const state = mkdtempSync(join(tmpdir(), "latch-sidecar-"));
    t.after(() => rmSync(state, { recursive: true, force: true }));
    const child = spawnChild(t, supportScript("sidecar-app.js"), ["sidecar", "run"], {
      env: { ...process.env, STATE_DIRECTORY: `${state}:/nonexistent` },
    });
    await child.waitForLog("sidecar started");
    // Pass 2 throws; the loop goes on to pass 3.
    await child.waitFor((l) => l["msg"] === "pass" && l["count"] === 3);
    child.process.kill("SIGTERM");
    assert.equal(await child.exited, 0);
    const lines = child.lines();
    const passes = lines.filter((l) => l["msg"] === "pass");
    assert.deepEqual(
      passes.slice(0, 3).map((l) => l["count"]),
      [1, 2, 3],
    );
    for (const p of passes) assert.equal(p["db"], join(state, "sidecar.db"));
    assert.ok(existsSync(join(state, "sidecar.db")));
    const failed = lines.filter((l) => l["msg"] === "sidecar pass failed");
    assert.equal(failed.length, 1);
    assert.match(String(failed[0]?.["ref"]), /^[a-z2-7]{6}$/);
    assert.equal(lines.at(-1)?.["msg"], "sidecar stopped");
    assert.equal(lines.filter((l) => l["msg"] === "listening").length, 0);
  });
});

describe("Run() at a terminal", () => {
  const run = (args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const r = spawnSync(process.execPath, [supportScript("sidecar-app.js"), ...args], { encoding: "utf8" });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  test("--help prints the usage on stdout and exits 0, without serving", () => {
    const r = run(["--help"]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^usage: sidecar-app\.js \[--socket PATH \| --addr HOST:PORT\]/);
    assert.match(r.stdout, /sidecar-app\.js sidecar run/);
    assert.doesNotMatch(r.stderr, /listening|at .*\(/);
  });

  test("an unknown argument prints the reason and the usage, no stack trace, and exits 2", () => {
    const r = run(["--port", "80"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^argv: unknown argument "--port" \(see --help\)\n\nusage: /);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
});

describe("Serve() and ORIGIN", () => {
  test("warns when ORIGIN names this machine on another port than the one listened on", async () => {
    const log = captureLog();
    await Serve({ Addr: "127.0.0.1:0", Origin: "http://localhost:8080", Mux: () => {}, Logger: log.logger, Signal: AbortSignal.abort() });
    const listening = log.lines().find((l) => l["msg"] === "listening");
    const port = String(listening?.["addr"]).split(":").at(-1) ?? "";
    assert.equal(listening?.["url"], `http://localhost:${port}`);
    const warning = log.lines().find((l) => l["level"] === "warn");
    assert.equal(
      warning?.["msg"],
      `ORIGIN http://localhost:8080 and the listen address (port ${port}) disagree: links, cookies and passkeys point at http://localhost:8080; set ORIGIN (Options.Origin) to http://localhost:${port}`,
    );
  });

  const cases: { origin: string | undefined; where: string; warns: boolean }[] = [
    { origin: "http://localhost:8080", where: ":::8080", warns: false },
    { origin: "http://127.0.0.1:9090", where: "127.0.0.1:9090", warns: false },
    { origin: "http://localhost", where: ":::80", warns: false },
    { origin: "http://localhost:8080", where: ":::9090", warns: true },
    { origin: "http://[::1]:8080", where: "::1:9090", warns: true },
    { origin: "https://app.example.com", where: ":::8080", warns: false },
    { origin: undefined, where: ":::9090", warns: false },
    { origin: "http://localhost:8080", where: "/run/app.sock", warns: false },
  ];
  for (const { origin, where, warns } of cases) {
    test(`${warns ? "warns" : "is quiet"} for ORIGIN ${String(origin)} listening on ${where}`, () => {
      assert.equal(originMismatch(origin, where) !== undefined, warns);
    });
  }
});
