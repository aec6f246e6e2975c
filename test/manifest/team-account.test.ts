/*
 * A team resource's records in a person's account life (issue 38, 6; lib/manifest `accountRows` in lib/account): the
 * export holds the records the person authored, a change of address moves the authorship, and a deletion keeps the
 * records (they are the team's) with the author replaced by the pseudonym the person's events get.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { accountRows } from "../../lib/manifest/index.ts";
import { count } from "../_support/signin-app.ts";
import { tasks, teamWorld } from "./team-world.ts";

describe("a TeamScoped resource's records in account life", () => {
  it("exports the records the person authored, and no one else's", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const own = (await app.post(jars.bob, `/teams/${team}/tasks`, { title: "Plane boards" })).location?.split("/").pop();
    assert.equal((await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" })).status, 303);
    const got = await app.request("GET", "/account/export", { jar: jars.bob });
    assert.equal(got.status, 200);
    const doc = JSON.parse(got.body) as { tables: Record<string, Record<string, unknown>[]> };
    assert.deepEqual(
      doc.tables["tasks"]?.map((r) => [r["id"], r["team"], r["author"], r["title"]]),
      [[own, team, "bob@example.com", "Plane boards"]],
    );
  });

  it("moves the authorship of the person's team records with a change of address", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    await app.post(jars.bob, `/teams/${team}/tasks`, { title: "Plane boards" });
    await app.post(jars.ann, `/teams/${team}/tasks`, { title: "Order oak" });
    const rows = accountRows(app.db, [tasks]);
    app.db.transaction(() => rows.move("bob@example.com", "bob@new.example", false))();
    const authors = app.db.prepare("SELECT title, author FROM tasks ORDER BY title").all();
    assert.deepEqual(authors, [
      { title: "Order oak", author: "ann@example.com" },
      { title: "Plane boards", author: "bob@new.example" },
    ]);
    assert.equal((await app.request("GET", `/teams/${team}/tasks?q=boards`, { jar: jars.ann })).body.includes("Plane boards"), true);
  });

  it("keeps a deleted person's team records, their author the pseudonym their events get, and no trace of the address", async (t) => {
    const { app, team, jars } = await teamWorld(t);
    const id = (await app.post(jars.bob, `/teams/${team}/tasks`, { title: "Plane boards" })).location?.split("/").pop() ?? "";
    assert.equal((await app.post(jars.bob, "/account/delete", { email: "bob@example.com" })).location, "/signin?account=deleted");
    const [row] = app.db.prepare("SELECT id, team, author, title FROM tasks").all() as { author: string }[];
    const [event] = app.db.prepare("SELECT subject FROM events WHERE stream = ?").all(`tasks:${id}`) as { subject: string }[];
    assert.match(event?.subject ?? "", /^deleted:[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(row, { id, team, author: event?.subject, title: "Plane boards" });
    assert.equal(count(app.db, "tasks", "author = ?", "bob@example.com"), 0);
    // The team still reads it.
    const page = await app.request("GET", `/teams/${team}/tasks/${id}`, { jar: jars.ann });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /bob@example\.com/);
  });
});
