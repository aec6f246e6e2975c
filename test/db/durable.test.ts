import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { awaitDurable, OpenDB, setDurable } from "../../lib/db/index.ts";
import { LITESTREAM_SOCKET } from "../../lib/db/durable.ts";
import { DEFAULT_DURABLE_TIMEOUT, syncLitestream } from "../../lib/db/durable.ts";
import { Handler } from "../../lib/index.ts";
import { PLAIN_503 } from "../../lib/runtime/recover.ts";
import { count, startSigninApp } from "../_support/signin-app.ts";
import { startFakeLitestream } from "../_support/litestream-ipc.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

const NOT_DURABLE = { code: "ERR_DB_NOT_DURABLE", status: 503 };

describe("syncLitestream()", () => {
  test("defaults: Litestream's socket, 10 s", () => {
    assert.equal(LITESTREAM_SOCKET, "/var/run/litestream.sock");
    assert.equal(DEFAULT_DURABLE_TIMEOUT, 10_000);
  });

  test("POSTs /sync with the path, wait and the timeout in seconds, as JSON over the unix socket", async (t) => {
    const fake = await startFakeLitestream(t);
    fake.answer = { status: 200, body: { status: "synced", path: "/srv/app.db", txid: 7, replicated_txid: 7 } };
    const answer = await syncLitestream({ socket: fake.socket, path: "/srv/app.db", timeout: 2_500 });
    assert.deepEqual(answer, { status: "synced", txid: 7, replicatedTXID: 7 });
    assert.deepEqual(fake.requests, [
      { method: "POST", url: "/sync", contentType: "application/json", body: { path: "/srv/app.db", wait: true, timeout: 3 } },
    ]);
  });

  test("no_change is replicated too", async (t) => {
    const fake = await startFakeLitestream(t);
    fake.answer = { status: 200, body: { status: "no_change", path: "/srv/app.db", txid: 7, replicated_txid: 7 } };
    assert.equal((await syncLitestream({ socket: fake.socket, path: "/srv/app.db" })).status, "no_change");
  });

  test("anything but a replicated position rejects with ERR_DB_NOT_DURABLE, status 503", async (t) => {
    const fake = await startFakeLitestream(t);
    const cases: { answer: typeof fake.answer; message: RegExp }[] = [
      { answer: { status: 500, body: { error: "sync failed", details: "s3: access denied" } }, message: /answered 500: sync failed/ },
      { answer: { status: 404, body: { error: "database not found" } }, message: /answered 404: database not found/ },
      { answer: { status: 200, body: { status: "synced_local", txid: 8, replicated_txid: 7 } }, message: /status "synced_local"/ },
      {
        answer: { status: 200, body: { status: "synced", txid: 8, replicated_txid: 7 } },
        message: /replicated txid 7 behind local txid 8/,
      },
      { answer: { status: 200, body: "ok" }, message: /without a sync status/ },
      { answer: "hang", message: /did not confirm within 200 ms/ },
    ];
    for (const c of cases) {
      fake.answer = c.answer;
      await assert.rejects(
        syncLitestream({ socket: fake.socket, path: "/srv/app.db", timeout: 200 }),
        { ...NOT_DURABLE, message: c.message },
        JSON.stringify(c.answer),
      );
    }
    await assert.rejects(syncLitestream({ socket: `${fake.socket}.missing`, path: "/srv/app.db" }), {
      ...NOT_DURABLE,
      message: /unreachable/,
    });
  });
});

describe("awaitDurable()", () => {
  test("resolves at once without a barrier, asks Litestream with one, and stops after setDurable(db, undefined)", async (t) => {
    const fake = await startFakeLitestream(t);
    const db = OpenDB(":memory:");
    t.after(() => db.close());
    await awaitDurable(db);
    setDurable(db, { socket: fake.socket, path: "/srv/app.db" });
    await awaitDurable(db);
    assert.equal(fake.requests.length, 1);
    setDurable(db, undefined);
    await awaitDurable(db);
    assert.equal(fake.requests.length, 1);
  });
});

describe("Options.Durable", () => {
  test("binds the barrier to the opened file's absolute path; a failed barrier is a 503 with a reference", async (t) => {
    const fake = await startFakeLitestream(t);
    const dir = mkdtempSync(join(tmpdir(), "latch-durable-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const { port, log } = await startHandler(t, {
      DBPath: `${dir}/app.db`,
      Durable: { socket: fake.socket, timeout: 1_000 },
      Router: (db) => {
        return async (_req, res) => {
          db?.exec("CREATE TABLE IF NOT EXISTS t (x); INSERT INTO t VALUES (1)");
          if (db !== undefined) await awaitDurable(db);
          res.end("committed");
        };
      },
    });
    const ok = await fetchHTTP(port, "/commit");
    assert.deepEqual([ok.status, ok.body], [200, "committed"]);
    assert.deepEqual(fake.requests[0]?.body, { path: `${dir}/app.db`, wait: true, timeout: 1 });
    fake.answer = { status: 500, body: { error: "sync failed" } };
    const failed = await fetchHTTP(port, "/commit");
    assert.equal(failed.status, 503);
    const ref = /^Reference: ([A-Za-z0-9]{6})$/m.exec(failed.body)?.[1];
    assert.ok(failed.body.startsWith(PLAIN_503) && ref !== undefined, failed.body);
    const logged = await log.waitFor((l) => l["msg"] === "unavailable");
    assert.equal(logged["ref"], ref);
  });

  test("validateOptions refuses Durable without a database and an unusable timeout", () => {
    const mux = (): void => {};
    assert.throws(() => Handler({ Mux: mux, Durable: { socket: "/x" } }), {
      code: "ERR_HTTP_INVALID_OPTIONS",
      message: /Durable needs DBPath or DB/,
    });
    assert.throws(() => Handler({ Mux: mux, DBPath: ":memory:", Durable: { timeout: 0 } }), {
      code: "ERR_HTTP_INVALID_OPTIONS",
      message: /Durable.timeout/,
    });
  });
});

describe("sign-in with the durability barrier", () => {
  test("a session is handed out only after Litestream confirms it; a failed sync is a 503 without the cookie", async (t) => {
    const fake = await startFakeLitestream(t);
    const app = await startSigninApp(t);
    setDurable(app.db, { socket: fake.socket, path: app.dbPath });
    const jar = await app.signIn("ann@example.com");
    assert.equal(fake.requests.length, 1, "one sync for one new session");
    assert.equal((await app.request("GET", "/me", { jar })).status, 200);

    fake.answer = { status: 500, body: { error: "sync failed" } };
    const before = count(app.db, "sessions");
    await app.begin("bob@example.com");
    const refused = await app.request("GET", await app.linkFor("bob@example.com"));
    assert.equal(refused.status, 503);
    assert.match(refused.body, /Reference: [A-Za-z0-9]{6}/);
    assert.equal(refused.headers["set-cookie"], undefined, "no session cookie for a session that may be lost");
    assert.equal(count(app.db, "sessions"), before + 1, "the row was written locally; only the cookie is withheld");
  });
});
