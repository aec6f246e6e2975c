/*
 * Downloads that cannot hurt others (issue 36): the export and a
 * resource's CSV stream in pages while the client reads (a note added
 * after the first bytes is in the export), a person has at most
 * MAX_DOWNLOADS_PER_PERSON running, exports and CSV together (one more is
 * 429 with a whole-second Retry-After, another person is served), and the
 * count is released when a download ends, fails or its client goes away.
 * The write deadline itself: test/internal/respond.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, it, type TestContext } from "node:test";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { ctxFrom } from "../../lib/index.ts";
import { DOWNLOAD_RETRY_AFTER, MAX_DOWNLOADS_PER_PERSON } from "../../lib/internal/download-share.ts";
import { mountResource } from "../../lib/manifest/index.ts";
import { expenses, notes } from "../../examples/demo/resources.ts";
import type { CookieJar } from "../_support/signin-app.ts";
import { ROUTES, startAccountApp, type AccountApp } from "./harness.ts";

const ADA = "ada@example.com";
const BOB = "bob@example.org";
// 20,000 notes of 1,000 characters: 20 MB, more than the socket buffers of both ends hold.
const NOTES = 20_000;
const BODY = "b".repeat(1000);
const CSV = "/notes.csv?sort=id&dir=asc";

async function start(t: TestContext): Promise<AccountApp> {
  // The expenses' receipts (a File field) need a directory of their own.
  const files = mkdtempSync(join(tmpdir(), "latch-downloads-"));
  t.after(() => rmSync(files, { recursive: true, force: true }));
  return startAccountApp(t, {
    extend: (mux, auth, db, _logger, events) => {
      // A note references an expense: expenses are mounted first.
      for (const resource of [expenses, notes]) {
        mountResource(resource, {
          db,
          mux,
          tools: new ToolRegistry(),
          events,
          origin: "http://localhost",
          requireSession: auth.RequireSession,
          ctxFrom,
          files,
        });
      }
    },
  });
}

const noteID = (i: number): string => `n${String(i).padStart(5, "0")}`;

function seedNotes(app: AccountApp, owner: string): void {
  const insert = app.db.prepare("INSERT INTO notes (id, owner, created_at, updated_at, title, body) VALUES (?, ?, ?, ?, ?, ?)");
  app.db.transaction(() => {
    for (let i = 0; i < NOTES; i++) insert.run(noteID(i), owner, i, i, `note ${i}`, BODY);
  })();
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A download on a raw connection: its first bytes arrive, then it reads nothing until `read()`. */
interface Held {
  socket: Socket;
  /** The first bytes (the status line and headers, and maybe some body). */
  head: string;
  /** Reads on to the end; resolves with everything the server sent. */
  read(): Promise<Buffer>;
  /** Resolves when the connection closes, however. */
  closed: Promise<void>;
}

async function hold(app: AccountApp, jar: CookieJar, path: string): Promise<Held> {
  const socket = connect(Number(new URL(app.base).port), "127.0.0.1");
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.on("error", () => {});
  const parts: Buffer[] = [];
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nCookie: ${jar.header() ?? ""}\r\nConnection: close\r\n\r\n`);
  await new Promise<void>((resolve) =>
    socket.once("data", (part: Buffer) => {
      parts.push(part);
      socket.pause();
      resolve();
    }),
  );
  const read = async (): Promise<Buffer> => {
    socket.on("data", (part: Buffer) => parts.push(part));
    socket.resume();
    await closed;
    return Buffer.concat(parts);
  };
  return { socket, head: parts[0]?.toString("latin1") ?? "", read, closed };
}

// The answer to `path` once the server has seen the last download end (its close is handled in a later turn than the client's).
async function onceReleased(app: AccountApp, jar: CookieJar, path: string): Promise<number> {
  for (let tries = 0; ; tries++) {
    const res = await app.request("GET", path, { jar });
    if (res.status !== 429 || tries === 50) return res.status;
    await settle();
  }
}

// The body of a chunked HTTP/1.1 answer (RFC 9112 §7.1).
function dechunk(raw: Buffer): string {
  const parts: Buffer[] = [];
  let at = raw.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const line = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.subarray(at, line).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts).toString("utf8");
    parts.push(raw.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
}

describe("account: export, streamed", () => {
  it("sends its first bytes before it reads the last rows: a note added while the download runs is in it", async (t) => {
    const app = await start(t);
    const ada = await app.signIn(ADA);
    seedNotes(app, ADA);
    const held = await hold(app, ada, ROUTES.export);
    assert.match(held.head, /^HTTP\/1\.1 200 /);
    // Sorted after every other note, added once the first bytes are out: in the export only if the rest is read later.
    app.db.prepare("INSERT INTO notes (id, owner, created_at, updated_at, title, body) VALUES ('zzz', ?, 1, 1, 'late', '')").run(ADA);
    const doc = JSON.parse(dechunk(await held.read())) as { tables: Record<string, { id: string }[]> };
    const ids = (doc.tables["notes"] ?? []).map((n) => n.id);
    assert.equal(ids.length, NOTES + 1, "every note, and the one added during the download");
    assert.deepEqual(ids.slice(0, 3), [noteID(0), noteID(1), noteID(2)], "in key order");
    assert.equal(ids.at(-1), "zzz");
    const stored = app.db.prepare("SELECT * FROM notes WHERE owner = ? ORDER BY id").all(ADA);
    assert.deepEqual(doc.tables["notes"], stored, "each row as stored, every column");
  });
});

describe("downloads per person", () => {
  it(`answers a person's download past ${MAX_DOWNLOADS_PER_PERSON} running 429 with a whole-second Retry-After, exports and CSV together, while another person is served`, async (t) => {
    assert.equal(MAX_DOWNLOADS_PER_PERSON, 2);
    assert.equal(DOWNLOAD_RETRY_AFTER, 5);
    const app = await start(t);
    const ada = await app.signIn(ADA);
    const bob = await app.signIn(BOB);
    seedNotes(app, ADA);
    const held = [await hold(app, ada, ROUTES.export), await hold(app, ada, CSV)];
    t.after(() => held.forEach((h) => h.socket.destroy()));
    for (const path of [ROUTES.export, CSV]) {
      const refused = await app.request("GET", path, { jar: ada });
      assert.equal(refused.status, 429, path);
      assert.equal(refused.headers["retry-after"], String(DOWNLOAD_RETRY_AFTER));
      assert.match(String(refused.headers["retry-after"]), /^[1-9][0-9]*$/, "RFC 9110 §10.2.3: delay-seconds");
    }
    for (const path of [ROUTES.export, CSV]) assert.equal((await app.request("GET", path, { jar: bob })).status, 200, `bob's ${path}`);

    // The client goes away: its count is released.
    held[0]?.socket.destroy();
    assert.equal(await onceReleased(app, ada, CSV), 200, "a client gone releases its download");
  });

  it("serves a client that reads slowly every row, and releases its count when the download ends", async (t) => {
    const app = await start(t);
    const ada = await app.signIn(ADA);
    seedNotes(app, ADA);
    const csv = await hold(app, ada, CSV);
    const json = await hold(app, ada, ROUTES.export);
    assert.equal((await app.request("GET", CSV, { jar: ada })).status, 429);
    const [slowCSV, slowJSON] = [dechunk(await csv.read()), dechunk(await json.read())];
    assert.equal(await onceReleased(app, ada, ROUTES.export), 200, "both ended: released");
    const [fastCSV, fastJSON] = [
      (await app.request("GET", CSV, { jar: ada })).body,
      (await app.request("GET", ROUTES.export, { jar: ada })).body,
    ];
    assert.equal(slowCSV.split("\r\n").length, NOTES + 2, "header, every note, the final CRLF");
    assert.equal(slowCSV, fastCSV, "the same bytes as a client that reads at once");
    assert.equal(slowJSON, fastJSON);
  });

  it("releases the count of a download that fails half-way", async (t) => {
    const app = await start(t);
    const ada = await app.signIn(ADA);
    seedNotes(app, ADA);
    const held = await hold(app, ada, CSV);
    t.after(() => held.socket.destroy());
    const failing = await hold(app, ada, CSV);
    assert.equal((await app.request("GET", ROUTES.export, { jar: ada })).status, 429, "two running");
    // The next page's read fails: the runtime cuts the response (a panic after the first byte).
    app.db.exec("ALTER TABLE notes RENAME TO notes_away");
    void failing.read();
    await failing.closed;
    app.db.exec("ALTER TABLE notes_away RENAME TO notes");
    assert.ok(
      app.log.lines().some((l) => l["msg"] === "panic after response started; response cut"),
      "the download failed",
    );
    assert.equal(await onceReleased(app, ada, ROUTES.export), 200, "the failed download no longer counts");
  });
});
