import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import type { DB } from "../../lib/db/index.ts";
import { discardLogger } from "../../lib/http/index.ts";
import { Handler, OpenDB, type Options } from "../../lib/index.ts";
import { validateOptions } from "../../lib/runtime/options.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "latch-handler-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const ok = (_req: IncomingMessage, res: ServerResponse): void => {
  res.end("ok");
};

describe("Handler()", () => {
  const invalid: { name: string; opts: () => Options; message: RegExp }[] = [
    { name: "neither Mux nor Router", opts: () => ({}), message: /exactly one of Mux and Router/ },
    { name: "both Mux and Router", opts: () => ({ Mux: ok, Router: () => ok }), message: /exactly one of Mux and Router/ },
    {
      name: "DB together with DBPath",
      opts: () => ({ Mux: ok, DB: OpenDB(":memory:"), DBPath: "app.db" }),
      message: /DBPath must be blank when DB is set/,
    },
    { name: "Wrap returning nothing", opts: () => ({ Mux: ok, Wrap: () => undefined }), message: /Wrap returned nothing/ },
    // An untyped (JavaScript) caller can return nothing from Router.
    { name: "Router returning nothing", opts: () => ({ Router: () => undefined as never }), message: /Router returned nothing/ },
    { name: "Migrations without a database", opts: () => ({ Mux: ok, Migrations: ["CREATE TABLE t (x)"] }), message: /migrations need/ },
    { name: "both Socket and Addr", opts: () => ({ Mux: ok, Socket: "/tmp/s", Addr: ":1" }), message: /at most one of Socket and Addr/ },
    {
      name: "an Origin that is not an http(s) URL",
      opts: () => ({ Mux: ok, Origin: "example.com" }),
      message: /Origin must be an http or https URL/,
    },
    {
      name: "a javascript: Origin",
      opts: () => ({ Mux: ok, Origin: "javascript:alert(1)" }),
      message: /Origin must be an http or https URL/,
    },
    // Node fires a timer longer than 2^31-1 ms after 1 ms: Infinity would cut connections at once.
    {
      name: "ShutdownGrace: Infinity",
      opts: () => ({ Mux: ok, ShutdownGrace: Infinity }),
      message: /ShutdownGrace must be at most 2147483647 ms/,
    },
    { name: "ShutdownGrace: 2^31", opts: () => ({ Mux: ok, ShutdownGrace: 2 ** 31 }), message: /ShutdownGrace must be at most/ },
    { name: "ShutdownGrace: 0", opts: () => ({ Mux: ok, ShutdownGrace: 0 }), message: /ShutdownGrace must be a whole number/ },
    { name: "SidecarInterval: Infinity", opts: () => ({ Mux: ok, SidecarInterval: Infinity }), message: /SidecarInterval must be at most/ },
    { name: "SidecarInterval: -1", opts: () => ({ Mux: ok, SidecarInterval: -1 }), message: /SidecarInterval must be a whole number/ },
  ];
  for (const { name, opts, message } of invalid) {
    test(`refuses ${name} at boot with ERR_HTTP_INVALID_OPTIONS`, () => {
      assert.throws(
        () => Handler({ Logger: discardLogger, ...opts() }),
        (err: unknown) => {
          assert.ok(err instanceof Error && "code" in err);
          assert.equal(err.code, "ERR_HTTP_INVALID_OPTIONS");
          assert.match(err.message, message);
          return true;
        },
      );
    });
  }

  test("validateOptions accepts exactly one of Mux and Router", () => {
    assert.doesNotThrow(() => validateOptions({ Mux: ok }));
    assert.doesNotThrow(() => validateOptions({ Router: () => ok }));
    assert.doesNotThrow(() => validateOptions({ Mux: ok, Origin: "https://example.com", ShutdownGrace: 2 ** 31 - 1, SidecarInterval: 1 }));
  });

  test("passes Router the handle it opened, with migrations and schema applied, and closes it in cleanup", (t) => {
    const path = join(tempDir(t), "nested", "app.db");
    let seen: DB | undefined;
    const [, cleanup] = Handler({
      Logger: discardLogger,
      DBPath: path,
      Migrations: ["CREATE TABLE old_style (x INTEGER)"],
      Schema: [{ Name: "t/001", SQL: "CREATE TABLE new_style (y INTEGER)" }],
      Router: (db) => {
        seen = db;
        return ok;
      },
    });
    assert.ok(seen !== undefined);
    assert.equal(seen.open, true);
    assert.equal(seen.name, path);
    assert.equal(seen.pragma("user_version", { simple: true }), 1);
    const tables = seen.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
    assert.deepEqual(
      tables.map((r) => r.name),
      ["latch_schema", "new_style", "old_style"],
    );
    cleanup();
    assert.equal(seen.open, false);
  });

  test("passes Router the application's own DB and never closes it", (t) => {
    const own = OpenDB(":memory:");
    t.after(() => own.close());
    let seen: DB | undefined;
    const [, cleanup] = Handler({
      Logger: discardLogger,
      DB: own,
      Router: (db) => {
        seen = db;
        return ok;
      },
    });
    assert.equal(seen, own);
    cleanup();
    assert.equal(own.open, true);
  });

  test("closes the database it opened when boot fails after opening", (t) => {
    const path = join(tempDir(t), "app.db");
    let seen: DB | undefined;
    assert.throws(() =>
      Handler({
        Logger: discardLogger,
        DBPath: path,
        Router: (db) => {
          seen = db;
          return ok;
        },
        Wrap: () => undefined,
      }),
    );
    assert.equal(seen?.open, false);
  });

  test("propagates an exception thrown by Wrap at boot", () => {
    assert.throws(
      () =>
        Handler({
          Logger: discardLogger,
          Mux: ok,
          Wrap: () => {
            throw new Error("wrap: misconfigured");
          },
        }),
      /wrap: misconfigured/,
    );
  });

  test("serves a Mux given as a { ServeHTTP } object whose method uses its own state", async (t) => {
    class Mux {
      readonly #greeting = "from the mux";
      ServeHTTP(_req: IncomingMessage, res: ServerResponse): void {
        res.end(this.#greeting);
      }
    }
    const { port } = await startHandler(t, { Mux: new Mux() });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 200);
    assert.equal(reply.body, "from the mux");
  });

  test("runs Wrap around the application's routes", async (t) => {
    const { port } = await startHandler(t, {
      Mux: ok,
      Wrap: (next) => (req, res) => {
        res.setHeader("X-Wrapped", "yes");
        return next(req, res);
      },
    });
    const reply = await fetchHTTP(port, "/anything");
    assert.equal(reply.body, "ok");
    assert.equal(reply.headers["x-wrapped"], "yes");
  });
});
