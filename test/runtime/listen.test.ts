import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { DEFAULT_ADDR, parseAddr } from "../../lib/runtime/listen.ts";
import { Serve } from "../../lib/index.ts";
import { chooseListen, listenFailure } from "../../lib/runtime/listen.ts";
import { captureLog, fetchHTTP, portOf, spawnChild, supportScript } from "../_support/http.ts";

function tempDir(t: TestContext): string {
  // Short: a unix socket path is limited to about 100 bytes.
  const dir = mkdtempSync(join(tmpdir(), "lt-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function getOverSocket(socketPath: string, path: string): Promise<{ status: number | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("parseAddr()", () => {
  const good: { addr: string; host: string | undefined; port: number }[] = [
    { addr: ":8080", host: undefined, port: 8080 },
    { addr: "127.0.0.1:0", host: "127.0.0.1", port: 0 },
    { addr: "localhost:65535", host: "localhost", port: 65535 },
    { addr: "[::1]:443", host: "::1", port: 443 },
  ];
  for (const { addr, host, port } of good) {
    test(`parses ${addr}`, () => assert.deepEqual(parseAddr(addr), { host, port }));
  }
  for (const addr of ["8080", "host:", "host:65536", "host:-1", "host:1.5", "host:http", "", "::1:80"]) {
    test(`refuses ${JSON.stringify(addr)}`, () => assert.throws(() => parseAddr(addr), { code: "ERR_HTTP_INVALID_OPTIONS" }));
  }
  test("DEFAULT_ADDR is :8080", () => assert.equal(DEFAULT_ADDR, ":8080"));
});

describe("chooseListen()", () => {
  const cases: { name: string; socket?: string; addr?: string; env: NodeJS.ProcessEnv; want: ReturnType<typeof chooseListen> }[] = [
    { name: "Socket wins over activation", socket: "/s", env: { LISTEN_FDS: "1" }, want: { socket: "/s" } },
    { name: "Addr wins over activation", addr: ":1", env: { LISTEN_FDS: "1" }, want: { host: undefined, port: 1 } },
    { name: "LISTEN_FDS without LISTEN_PID", env: { LISTEN_FDS: "1" }, want: { fd: 3 } },
    { name: "LISTEN_PID equal to our pid", env: { LISTEN_FDS: "2", LISTEN_PID: String(process.pid) }, want: { fd: 3 } },
    {
      name: "LISTEN_PID of another process",
      env: { LISTEN_FDS: "1", LISTEN_PID: String(process.pid + 1) },
      want: { host: undefined, port: 8080 },
    },
    { name: "LISTEN_FDS=0", env: { LISTEN_FDS: "0" }, want: { host: undefined, port: 8080 } },
    { name: "nothing at all", env: {}, want: { host: undefined, port: 8080 } },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(chooseListen(c.socket, c.addr, c.env), c.want));
  }
});

describe("Serve() listeners", () => {
  test("serves on a systemd-activated listener passed as fd 3", async (t) => {
    const listening = createServer();
    await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
    const port = portOf(listening.address());
    // The descriptor of the parent's listening socket, handed to the child as its fd 3.
    const handle: unknown = Reflect.get(listening, "_handle");
    assert.ok(typeof handle === "object" && handle !== null && "fd" in handle && typeof handle.fd === "number");
    const env: NodeJS.ProcessEnv = { ...process.env, LISTEN_FDS: "1" };
    delete env["LISTEN_PID"];
    const child = spawnChild(t, supportScript("activated-server.js"), [], { env, stdio: ["ignore", "pipe", "pipe", handle.fd] });
    // The child now holds the socket; the parent lets go so only the child accepts.
    await new Promise((resolve) => listening.close(resolve));
    const line = await child.waitForLog("listening");
    assert.equal(line["addr"], `127.0.0.1:${port}`);
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 200);
    assert.equal(reply.body, "activated");
    child.process.kill("SIGTERM");
    assert.equal(await child.exited, 0);
    await child.waitForLog("stopped");
  });

  test("serves HTTP over a unix socket and removes it on shutdown", async (t) => {
    const socketPath = join(tempDir(t), "app.sock");
    const log = captureLog();
    const stop = new AbortController();
    const served = Serve({
      Mux: (req, res) => void res.end(`unix ${req.url}`),
      Socket: socketPath,
      Signal: stop.signal,
      Logger: log.logger,
    });
    await log.waitFor((l) => l["msg"] === "listening");
    assert.ok(lstatSync(socketPath).isSocket());
    assert.deepEqual(await getOverSocket(socketPath, "/hi"), { status: 200, body: "unix /hi" });
    assert.equal((await getOverSocket(socketPath, "/healthz")).status, 200);
    stop.abort();
    await served;
    assert.throws(() => lstatSync(socketPath), { code: "ENOENT" });
  });

  test("replaces a stale socket left by a killed process", async (t) => {
    const socketPath = join(tempDir(t), "stale.sock");
    const holder = spawnChild(t, "-e", [
      `require("node:net").createServer().listen(process.argv[1], () => console.error(JSON.stringify({ msg: "ready" })))`,
      socketPath,
    ]);
    await holder.waitForLog("ready");
    holder.process.kill("SIGKILL");
    await holder.exited;
    assert.ok(lstatSync(socketPath).isSocket(), "the killed process should leave its socket file");
    const log = captureLog();
    const stop = new AbortController();
    const served = Serve({ Mux: (_req, res) => void res.end("fresh"), Socket: socketPath, Signal: stop.signal, Logger: log.logger });
    await log.waitFor((l) => l["msg"] === "listening");
    assert.deepEqual(await getOverSocket(socketPath, "/"), { status: 200, body: "fresh" });
    stop.abort();
    await served;
  });

  test("names the address in use and the ways out (--addr, PORT, socket activation)", async (t) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    t.after(() => holder.close());
    const addr = `127.0.0.1:${portOf(holder.address())}`;
    await assert.rejects(Serve({ Mux: () => {}, Addr: addr, Logger: captureLog().logger }), (err: unknown) => {
      assert.ok(err instanceof Error && "code" in err);
      assert.equal(err.code, "ERR_HTTP_INVALID_OPTIONS");
      assert.equal(
        err.message,
        `listen: ${addr} is already in use (EADDRINUSE): stop the other server, or choose another address with --addr HOST:PORT (or PORT=N in the environment of an application that reads it), or let systemd pass the socket (socket activation)`,
      );
      assert.equal((err.cause as { code?: string }).code, "EADDRINUSE");
      return true;
    });
  });

  test("names the address refused for lack of privilege (EACCES) and the ways out", () => {
    const denied = Object.assign(new Error("listen EACCES: permission denied 0.0.0.0:80"), { code: "EACCES" });
    const err = listenFailure(denied, { host: undefined, port: 80 });
    assert.equal((err as Error & { code: string }).code, "ERR_HTTP_INVALID_OPTIONS");
    assert.equal(
      err.message,
      "listen: :80 is not allowed for this user (EACCES): ports below 1024 need privilege; choose a port of 1024 or more with --addr HOST:PORT (or PORT=N in the environment of an application that reads it), or let systemd pass the socket (socket activation)",
    );
    assert.equal(err.cause, denied);
    const other = new Error("boom");
    assert.equal(listenFailure(other, { host: undefined, port: 80 }), other, "any other error passes through");
  });

  test("refuses a path that exists and is not a socket, leaving it alone", async (t) => {
    const path = join(tempDir(t), "not-a-socket");
    writeFileSync(path, "precious");
    await assert.rejects(Serve({ Mux: () => {}, Socket: path, Logger: captureLog().logger }), (err: unknown) => {
      assert.ok(err instanceof Error && "code" in err);
      assert.equal(err.code, "ERR_HTTP_INVALID_OPTIONS");
      assert.match(err.message, /exists and is not a socket/);
      return true;
    });
    assert.ok(lstatSync(path).isFile());
  });

  test("refuses a socket another process is serving on", async (t) => {
    const socketPath = join(tempDir(t), "live.sock");
    const live = createServer((c) => c.end());
    await new Promise<void>((resolve) => live.listen(socketPath, resolve));
    t.after(() => new Promise((resolve) => live.close(resolve)));
    await assert.rejects(Serve({ Mux: () => {}, Socket: socketPath, Logger: captureLog().logger }), {
      code: "ERR_HTTP_INVALID_OPTIONS",
      message: /another process is serving/,
    });
    assert.ok(lstatSync(socketPath).isSocket());
  });

  test("rejects when the TCP address is taken, closing the database it opened", async (t) => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise((resolve) => taken.close(resolve)));
    let db: { open: boolean } | undefined;
    await assert.rejects(
      Serve({
        Addr: `127.0.0.1:${portOf(taken.address())}`,
        DBPath: ":memory:",
        Router: (handle) => {
          db = handle;
          return () => {};
        },
        Logger: captureLog().logger,
      }),
      { code: "ERR_HTTP_INVALID_OPTIONS" },
    );
    assert.equal(db?.open, false);
  });
});
