/*
 * The export (lib/account, issue 24 item 3): every table's rows of the
 * person, found by scanning the demo's whole database for their address,
 * are in the document; nothing of the other person is; no secret is.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EXPORT_PAGE } from "../../lib/account/export.ts";
import { askChange, ROUTES, rowsWith, seed, startAccountApp } from "./harness.ts";

const ADA = "ada@example.com";
const BOB = "bob@example.org";

interface Exported {
  format: string;
  subject: string;
  head: { stream: string; seq: number; hash: string };
  tables: Record<string, unknown[]>;
  events: { stream: string; subject: string; data: unknown }[];
}

describe("account: export", () => {
  it("holds each table's rows of the person, none of anyone else's, and no secret", async (t) => {
    const app = await startAccountApp(t);
    await app.signIn(ADA);
    const ada = await app.signIn(ADA);
    await app.signIn(BOB);
    seed(app, ADA, "a");
    seed(app, BOB, "b");
    const res = await app.request("GET", ROUTES.export, { jar: ada });
    assert.equal(res.status, 200);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    assert.equal(res.headers["content-disposition"], 'attachment; filename="account.json"');
    assert.equal(res.headers["cache-control"], "no-store");
    const doc = JSON.parse(res.body) as Exported;
    assert.equal(doc.format, "latch.account-export.v1");
    assert.equal(doc.subject, ADA);
    // The head of the audit chain (issue 41, 3): the stream's last sequence and its hash as stored, in hex.
    const last = app.db
      .prepare("SELECT seq, hex(hash) AS hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1")
      .get(`audit:${ADA}`) as {
      seq: number;
      hash: string;
    };
    assert.deepEqual(doc.head, { stream: `audit:${ADA}`, seq: last.seq, hash: last.hash.toLowerCase() });
    assert.ok(last.seq > 0);

    const perTable = new Map<string, number>();
    for (const row of rowsWith(app.db, ADA)) {
      const table = row.slice(0, row.indexOf(" "));
      perTable.set(table, (perTable.get(table) ?? 0) + 1);
    }
    assert.ok(perTable.size >= 15, `the seed reaches every table (${[...perTable.keys()].join(", ")})`);
    for (const [table, n] of perTable) {
      const exported = table === "events" ? doc.events.length : doc.tables[table]?.length;
      assert.equal(exported, n, `${table}: every row of the person`);
    }

    assert.ok(!res.body.includes(BOB), "nothing names the other person");
    for (const id of ["tok-b", "exp-b", "note-b", "cred-b"]) assert.ok(!res.body.includes(id), `nothing of the other person's (${id})`);
    const hashes = app.db
      .prepare(
        "SELECT token_hash FROM sessions UNION ALL SELECT token_hash FROM agent_tokens UNION ALL SELECT code_hash FROM passkey_recovery_codes",
      )
      .pluck()
      .all() as string[];
    for (const hash of hashes) assert.ok(!res.body.includes(hash), "no token or code hash");
    for (const key of ["token_hash", "code_hash", "public_key", "salt", "sealed_previous", "binding_hash"]) {
      assert.ok(!res.body.includes(`"${key}"`), `no ${key} column`);
    }
  });

  it("reads events EXPORT_PAGE (500) at a time and misses none across the pages", async (t) => {
    assert.equal(EXPORT_PAGE, 500);
    const app = await startAccountApp(t);
    const ada = await app.signIn(ADA);
    const human = { String: () => "human" };
    const before = app.events.version(`audit:${ADA}`);
    app.db.transaction(() => {
      for (let i = 0; i < 2 * EXPORT_PAGE + 1; i++) app.events.appendAudit({ Type: "demo.tick", Data: { i }, Actor: human, Subject: ADA });
    })();
    const doc = JSON.parse((await app.request("GET", ROUTES.export, { jar: ada })).body) as Exported;
    assert.equal(doc.events.length, before + 2 * EXPORT_PAGE + 1);
    assert.deepEqual(
      doc.events.map((e) => (e as unknown as { seq: number }).seq),
      Array.from({ length: doc.events.length }, (_, i) => i + 1),
    );
  });

  it("after a change of address, holds the person's history under the old address too (issue 37: the streams are linked, not renamed)", async (t) => {
    const app = await startAccountApp(t);
    const ada = await app.signIn(ADA);
    const NEW = "ada.lovelace@example.net";
    seed(app, ADA, "a");
    const old = app.events.read(`audit:${ADA}`).map((e) => `${e.Stream} ${e.Seq}`);
    const { code } = await askChange(app, ada, NEW, ADA);
    assert.equal((await app.request("POST", ROUTES.code, { jar: ada, form: { code } })).location, "/account/security?address=changed");
    const doc = JSON.parse((await app.request("GET", ROUTES.export, { jar: ada })).body) as Exported;
    const exported = doc.events.map((e) => `${e.stream} ${(e as unknown as { seq: number }).seq}`);
    for (const event of [...old, `audit:${ADA} ${old.length + 1}`, `audit:${NEW} 1`, `audit:${NEW} 2`])
      assert.ok(exported.includes(event), event);
    assert.ok(
      doc.events.some((e) => e.stream === "notes:note-a" && e.subject === ADA),
      "and the events elsewhere recorded under the old address",
    );
  });
});
