/*
 * Every write path is attributed (scripts/write-paths.ts): the writing
 * names of the API reports and the demo's writing routes are all in its
 * table, and every route, driven once against a running demo, appends its
 * event with the right actor to the events table.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { OpenDB, type DB } from "../../lib/db/index.ts";
import { ADDRESS, WRITE_PATHS, writingNames, writingRoutes, type Driver } from "../../scripts/write-paths.ts";
import { OPERATOR } from "../../scripts/write-paths-operators.ts";
import { mintAgentToken, passkeyConfirmedOverHTTP, signInOverHTTP, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest, type CookieJar } from "../_support/http-client.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const known = new Set(WRITE_PATHS.map((p) => p.name));
const BOUNDARY = "----latch-write-paths";

describe("write paths: the table knows every one", () => {
  it("every writing name of the API reports is in the table", () => {
    const names = writingNames();
    assert.ok(names.includes("agent: AgentTokens.mint") && names.includes("session: Sessions.RevokeAll"), names.join(", "));
    assert.deepEqual(
      names.filter((n) => !known.has(n)),
      [],
    );
  });

  it("every writing route of the demo is in the table", () => {
    const routes = writingRoutes();
    assert.ok(routes.includes("POST /expenses/{id}/delete") && routes.includes("/mcp"), routes.join(", "));
    assert.deepEqual(
      routes.filter((r) => !known.has(r)),
      [],
    );
  });

  it("every row is still a writing name or route, says how it is attributed, and names an existing failure-injection test", () => {
    const found = new Set([...writingNames(), ...writingRoutes()]);
    for (const path of WRITE_PATHS) {
      assert.ok(found.has(path.name), `${path.name}: no longer a writing name or route`);
      assert.equal([path.event, path.via, path.none].filter((x) => x !== undefined).length, 1, `${path.name}: one of event, via, none`);
      if (path.event !== undefined)
        assert.ok(
          path.drive !== undefined && path.atomic !== undefined,
          `${path.name}: an event needs a drive and a failure-injection test`,
        );
      if (path.via !== undefined)
        assert.ok(
          WRITE_PATHS.find((p) => p.name === path.via)?.event !== undefined,
          `${path.name}: via ${path.via}, a route with an event`,
        );
      if (path.atomic !== undefined) assert.ok(existsSync(join(ROOT, path.atomic)), `${path.name}: ${path.atomic} does not exist`);
    }
  });

  it("a new writing name fails the check", () => {
    // The rule the reports are read with: a method named for a write is found.
    assert.ok(writingNames(join(ROOT, "test/fixtures/write-paths")).includes("widget: Widgets.deleteAll"));
  });
});

describe("write paths: each route driven once against the demo appends its event", () => {
  let demo: Demo;
  let db: DB;
  let jar: CookieJar;
  let token = "";
  let operator: Promise<CookieJar> | undefined;
  before(async () => {
    demo = await startDemo({ OPERATORS: OPERATOR });
    db = OpenDB(join(demo.stateDir, "demo.db"));
    jar = await signInOverHTTP(demo, ADDRESS);
    token = await mintAgentToken(demo, jar, "driver", "write");
  });
  after(async () => {
    db.close();
    await demo.close();
  });

  const driver = (): Driver => ({
    get: (path) => sendRequest(demo.origin, "GET", path, { jar }, demo.origin),
    post: (path, form = {}) => sendRequest(demo.origin, "POST", path, { jar, form }, demo.origin),
    upload: (path, filename, bytes) => {
      const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
      const body = Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
      return sendRequest(
        demo.origin,
        "POST",
        path,
        { jar, headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` }, body },
        demo.origin,
      );
    },
    call: (tool, args) =>
      sendRequest(
        demo.origin,
        "POST",
        `/api/tools/${tool}`,
        { headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(args) },
        demo.origin,
      ),
    one: (sql, ...params) => db.prepare(sql).get(...params) as Record<string, unknown> | undefined,
    signIn: async () => void (await signInOverHTTP(demo, ADDRESS)),
    operate: async (path, form) => {
      operator ??= passkeyConfirmedOverHTTP(demo, OPERATOR);
      return sendRequest(demo.origin, "POST", path, { jar: await operator, form }, demo.origin);
    },
  });
  // The last seq of every stream: events appended after are those with a higher one.
  const marks = (): Map<string, number> =>
    new Map(
      (db.prepare("SELECT stream, max(seq) AS seq FROM events GROUP BY stream").all() as { stream: string; seq: number }[]).map((r) => [
        r.stream,
        r.seq,
      ]),
    );
  const since = (mark: Map<string, number>): { type: string; actor: string }[] =>
    (db.prepare("SELECT stream, seq, type, actor FROM events").all() as { stream: string; seq: number; type: string; actor: string }[])
      .filter((e) => e.seq > (mark.get(e.stream) ?? 0))
      .map(({ type, actor }) => ({ type, actor }));

  for (const path of WRITE_PATHS.filter((p) => p.drive !== undefined)) {
    it(`${path.name} ${path.event === undefined ? "is driven" : `appends ${path.event.type} by ${path.event.actor}`}`, async () => {
      const mark = marks();
      const answer = (await path.drive?.(driver())) as { status: number } | undefined;
      const fresh = since(mark);
      assert.ok(answer === undefined || answer.status < 500, `${path.name} answered ${answer?.status}`);
      if (path.event !== undefined)
        assert.ok(
          fresh.some((e) => e.type === path.event?.type && (e.actor === path.event.actor || e.actor.startsWith(`${path.event.actor}:`))),
          `${path.name}: no ${path.event.type} by ${path.event.actor} among ${JSON.stringify(fresh)} (answered ${answer?.status})`,
        );
    });
  }
});
