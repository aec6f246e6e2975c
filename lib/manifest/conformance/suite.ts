/*
 * The conformance suite an application runs on its own mounted resources with `node --test` (README "Conformance"):
 * node:test cases that drive the application over HTTP as two people and check what the contract promises. It lives
 * in its own package entry, `latch/manifest/conformance`, never loaded at runtime.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ToolRead, ToolWrite } from "../../agent/index.ts";
import { Kind, StoreKind } from "../kinds.ts";
import { currencyDigits, formatMoneyInput, parseMoney } from "../money.ts";
import { INTEGER_LIMIT } from "../scalars.ts";
import { isOwned, isTeamScoped, routeIn } from "../scope.ts";
import { DEFAULT_CURRENCY, integerRange, maxLength } from "../values.ts";
import type { Resource } from "../resource.ts";
import type { Field } from "../spec.ts";
import { exchange, type ConformanceApp, type Reply } from "./app.ts";
import { teamFor, toolStatus } from "./teams.ts";

/** A valid value for every field (amounts and numbers in English notation). */
function sample(fields: readonly Field[], tag: string): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.Name, sampleValue(f, tag)]));
}

// A valid value of each kind whose value does not depend on the field.
const SAMPLES: Partial<Record<Kind, string>> = {
  [Kind.Money]: "12",
  [Kind.Date]: "2026-12-31",
  [Kind.Boolean]: "1",
  [Kind.Email]: "conformance@example.com",
  [Kind.URL]: "https://example.com/conformance",
  // No record of the target exists in the suite's database; a reference is optional unless Required.
  [Kind.Reference]: "",
};

function sampleValue(field: Field, tag: string): string {
  const { min, max } = integerRange(field);
  if (field.Kind === Kind.Integer) return String(min > 0 ? min : Math.min(12, max));
  if (field.Kind === Kind.Choice) return field.Choices?.[0]?.Value ?? "";
  if (field.Kind === Kind.Textarea) return `${tag} one\ntwo\nthree`;
  return SAMPLES[field.Kind] ?? `${tag} text`;
}

// Values each kind must refuse with 422: a day that does not exist, an unlisted choice, a scheme other than http(s), a record that does not exist.
const REFUSED: Partial<Record<Kind, string[]>> = {
  [Kind.Date]: ["2026-02-30", "31.12.2026", "tomorrow"],
  [Kind.Boolean]: ["maybe"],
  [Kind.Choice]: ["not-a-listed-value"],
  [Kind.Email]: ["nobody", "nobody@"],
  [Kind.URL]: ["javascript:alert(1)", "ftp://example.com/", "example.com"],
  [Kind.Reference]: ["no-such-record", "not an id"],
};

/** Values `field` must refuse with 422: its kind's (`REFUSED`), and for a whole number a fraction, a word and one past each bound. */
function refusedValues(field: Field): string[] {
  if (field.Kind !== Kind.Integer) return REFUSED[field.Kind] ?? [];
  const { min, max } = integerRange(field);
  return ["1.5", "twelve", ...(min > -INTEGER_LIMIT ? [String(min - 1)] : []), ...(max < INTEGER_LIMIT ? [String(max + 1)] : [])];
}

const ids = (body: string): string[] => [...new Set([...body.matchAll(/data-record-id="([^"]+)"/g)].map((m) => m[1] ?? ""))];
const versionOf = (body: string): string => /name="version" value="([0-9]+)"/.exec(body)?.[1] ?? "";

/**
 * Registers the conformance cases of `resource` (mounted in the app that
 * `start` returns). Call it at the top level of a test file.
 *
 * @example
 * describeResourceConformance(expenses, async () => ({ base, origin, signIn, tools, catalogs }));
 */
export function describeResourceConformance(resource: Resource, start: () => Promise<ConformanceApp>): void {
  describe(`resource ${resource.Name} (conformance)`, () => {
    let started: ConformanceApp | undefined;
    let run: Run | undefined;
    // Started by the first case that runs (none, when every case is filtered out); `started` is closed even if a sign-in failed.
    const ready = async (): Promise<Run> => (run ??= await startRun(resource, (started = await start())));
    after(async () => started?.close?.());
    scopeCase(resource, ready);
    if (isTeamScoped(resource)) teamCase(resource, ready);
    inputCases(resource, ready);
    writeCases(resource, ready);
  });
}

/** The running application the cases drive, the two people they drive it as (a team resource: inside Ada's team, Bob a stranger), and what they do most. */
async function startRun(resource: Resource, app: ConformanceApp) {
  const send = (method: string, path: string, cookie: string, form?: Record<string, string>, origin = app.origin): Promise<Reply> => {
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const headers: Record<string, string> = { Cookie: cookie, "Accept-Language": "en" };
    if (method !== "GET") headers["Origin"] = origin;
    if (body !== undefined) headers["Content-Type"] = "application/x-www-form-urlencoded";
    return exchange(app.base, method, path, headers, body);
  };
  const [ada, bob] = [await app.signIn("conformance-ada@example.com"), await app.signIn("conformance-bob@example.com")];
  const team = isTeamScoped(resource) ? await teamFor(app, send, ada) : undefined;
  const route = team === undefined ? resource.Route : routeIn(resource, team.id);
  // The ids the list shows the person of `cookie`.
  const listed = async (cookie: string): Promise<string[]> => ids((await send("GET", route, cookie)).body);
  // Creates a record of sample values as the person of `cookie`; returns its id.
  const created = async (cookie: string, tag: string): Promise<string> => {
    const res = await send("POST", route, cookie, sample(resource.Form.Fields, tag));
    assert.equal(res.status, 303, `create ${resource.Name}: ${res.status} ${res.body.slice(0, 200)}`);
    const id = res.headers.location?.slice(route.length + 1) ?? "";
    assert.match(id, /^[A-Za-z0-9_-]+$/);
    return id;
  };
  return { app, ada, bob, team, route, send, listed, created };
}

type Run = Awaited<ReturnType<typeof startRun>>;

// Always run: a resource names its Scope (docs/spec.md §2.5), and each scope promises something checkable.
function scopeCase(resource: Resource, ready: () => Promise<Run>): void {
  if (!isOwned(resource) && !isTeamScoped(resource)) {
    it("shares every record: unscoped means every signed-in person lists and reads another's record", async () => {
      const { route, ada, bob, send, listed, created } = await ready();
      const id = await created(ada, "shared");
      assert.ok((await listed(ada)).includes(id));
      assert.ok((await listed(bob)).includes(id), "in the other person's list too");
      assert.equal((await send("GET", `${route}/${id}`, bob)).status, 200, "the other person reads it");
    });
    return;
  }
  it("isolates owners: another person cannot list, read, edit, delete or reference a record (the same 404 as an unknown id)", async () => {
    const { route, ada, bob, send, listed, created } = await ready();
    const id = await created(ada, "isolation");
    const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
    assert.ok((await listed(ada)).includes(id));
    assert.ok(!(await listed(bob)).includes(id), "not in the other person's list");
    const unknown = "AAAAAAAAAAAA";
    for (const [method, path, form] of [
      ["GET", `${route}/${id}`, undefined],
      ["POST", `${route}/${id}`, { ...sample(resource.Form.Fields, "taken"), version }],
      ["POST", `${route}/${id}/delete`, {}],
    ] as const) {
      const foreign = await send(method, path, bob, form);
      const missing = await send(method, path.replace(id, unknown), bob, form);
      assert.equal(foreign.status, 404, `${method} ${path}`);
      assert.equal(missing.status, 404, `${method} ${path} (unknown id)`);
      assert.ok(!foreign.body.includes(id), `${method} ${path}: the answer does not echo the id`);
    }
    const own = await send("GET", `${route}/${id}`, ada);
    assert.equal(own.status, 200, "still there for its owner");
    assert.equal(versionOf(own.body), version, "unchanged by the other person");
  });
}

// A team's records answer its members as their role allows (README "Team resources"); others get an unknown id's 404.
function teamCase(resource: Resource, ready: () => Promise<Run>): void {
  const actions = ["list", "read", "create", "update", "delete"];
  it("isolates teams: a stranger and a removed member get 404 on every route and tool, a viewer's write 403, a member writes", async () => {
    const { app, route, ada, bob, send, listed, created, team } = await ready();
    const { member, viewer, remove } = team!;
    const id = await created(ada, "team");
    const mine = await created(member.cookie, "member");
    const seen = await send("GET", route, member.cookie);
    assert.ok(ids(seen.body).includes(mine), `a member writes: ${seen.status}`);
    const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
    const form = { ...sample(resource.Form.Fields, "taken"), version };
    const writes: [string, string, Record<string, string>?][] = [
      ["GET", `${route}/new`],
      ["POST", route, form],
      ["POST", `${route}/${id}`, form],
      ["POST", `${route}/${id}/delete`, {}],
    ];
    const routes = [
      ["GET", route],
      ["GET", `${route}.csv`],
      ["GET", `${route}/${id}`],
      ["GET", `${route}/events`],
      ...writes,
    ] as typeof writes;
    // A list or create names no record: a stranger's call is refused for the team alone, before its other arguments are read.
    const args = (action: string) => (action === "list" || action === "create" ? { team: team!.id } : { team: team!.id, id, version });
    const before = await listed(ada);
    const refused = async (cookie: string, subject: string, status: number, tried: typeof writes, tools: string[]) => {
      for (const [method, path, body] of tried)
        assert.equal((await send(method, path, cookie, body)).status, status, `${subject}: ${method} ${path}`);
      for (const action of tools)
        assert.equal(await toolStatus(app, resource, action, subject, args(action)), status, `${subject}: ${action} tool`);
    };
    await refused(bob, "conformance-bob@example.com", 404, routes, actions);
    await refused(viewer.cookie, viewer.address, 403, writes, actions.slice(2));
    await remove();
    await refused(member.cookie, member.address, 404, routes, actions);
    assert.deepEqual(await listed(ada), before, "nothing written");
    assert.equal(versionOf((await send("GET", `${route}/${id}`, ada)).body), version, "unchanged");
  });
}

// What a create accepts and refuses: declared fields only, required and overlong values, each kind's values, money.
function inputCases(resource: Resource, ready: () => Promise<Run>): void {
  const fields = resource.Form.Fields;
  it("accepts only declared fields, requires a version to update, and refuses cross-origin writes", async () => {
    const { route, ada, send, listed, created } = await ready();
    const before = (await listed(ada)).length;
    for (const extra of ["owner", "id", "created_at", "undeclared"]) {
      assert.equal((await send("POST", route, ada, { ...sample(fields, "extra"), [extra]: "x" })).status, 400, extra);
    }
    assert.equal((await send("POST", route, ada, sample(fields, "csrf"), "https://evil.example")).status, 403);
    const id = await created(ada, "version");
    assert.equal((await send("POST", `${route}/${id}`, ada, sample(fields, "noversion"))).status, 400);
    assert.equal((await listed(ada)).length, before + 1);
  });

  it("refuses empty required fields and overlong text inline, keeping the entered values", async () => {
    const { route, ada, send } = await ready();
    for (const field of fields) {
      if (field.Required === true) {
        const res = await send("POST", route, ada, { ...sample(fields, "req"), [field.Name]: "" });
        assert.equal(res.status, 422, field.Name);
        assert.ok(res.body.includes(`data-error-for="${field.Name}"`), field.Name);
      }
      if (field.Kind === Kind.Text || field.Kind === Kind.Textarea) {
        const res = await send("POST", route, ada, { ...sample(fields, "long"), [field.Name]: "x".repeat(maxLength(field) + 1) });
        assert.equal(res.status, 422, field.Name);
        assert.ok(res.body.includes(`data-error-for="${field.Name}"`));
      }
    }
  });

  it(
    "refuses a value its kind does not hold (dates, numbers, yes/no, choices, addresses) with 422 naming the field, storing nothing",
    { skip: fields.some((f) => refusedValues(f).length > 0) ? false : "no field of these kinds" },
    async () => {
      const { route, ada, send, listed } = await ready();
      const before = (await listed(ada)).length;
      for (const field of fields) {
        for (const bad of refusedValues(field)) {
          const res = await send("POST", route, ada, { ...sample(fields, "kind"), [field.Name]: bad });
          assert.equal(res.status, 422, `${field.Name}=${bad}`);
          assert.ok(res.body.includes(`data-error-for="${field.Name}"`), `${field.Name}=${bad}`);
        }
      }
      assert.equal((await listed(ada)).length, before);
    },
  );

  const money = fields.find((f) => f.Kind === Kind.Money);
  it("parses money in the request's locale and never rounds", { skip: money === undefined ? "no Money field" : false }, async () => {
    const { route, ada, send } = await ready();
    const field = money as Field;
    const currency = field.Currency ?? DEFAULT_CURRENCY;
    const digits = currencyDigits(currency);
    // One decimal more than the currency has is refused, never rounded; "1,2" groups wrongly in English.
    for (const bad of [`12.${"5".repeat(digits + 1)}`, "twelve", "1,2"]) {
      const res = await send("POST", route, ada, { ...sample(fields, "money"), [field.Name]: bad });
      assert.equal(res.status, 422, bad);
      assert.ok(res.body.includes(`value="${bad}"`), "the entered value is kept");
    }
    const typed = digits === 0 ? "1,234" : `1,234.${"5".padEnd(digits, "0")}`;
    const id = await send("POST", route, ada, { ...sample(fields, "money"), [field.Name]: typed });
    assert.equal(id.status, 303, typed);
    const page = await send("GET", id.headers.location ?? "", ada);
    const minor = parseMoney(typed, "en", currency);
    assert.ok(minor.ok);
    assert.ok(page.body.includes(`value="${formatMoneyInput(minor.minor, "en", currency)}"`), "shown back formatted in the locale");
  });
}

// Concurrent updates, the tools and the catalogs.
function writeCases(resource: Resource, ready: () => Promise<Run>): void {
  const fields = resource.Form.Fields;
  const exclusive = resource.Store === StoreKind.Exclusive;
  it(
    exclusive ? "refuses a stale update with the current values" : "merges or refuses concurrent updates without losing a value",
    async () => {
      const { route, ada, send, created } = await ready();
      const id = await created(ada, "race");
      const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
      const field = fields.find((f) => f.Kind === Kind.Text) ?? (fields[0] as Field);
      const edit = (money: string, text: string): Promise<Reply> =>
        send("POST", `${route}/${id}`, ada, { ...sample(fields, "race"), [field.Name]: field.Kind === Kind.Money ? money : text, version });
      assert.equal((await edit("1", "first")).status, 303);
      const second = await edit("2", "second");
      assert.equal(second.status, 409);
      assert.match(second.body, exclusive ? /data-outcome="stale"/ : /data-outcome="conflict"/);
    },
  );

  it("registers its tools with the right access", async () => {
    const { app } = await ready();
    const want = { list: ToolRead, read: ToolRead, create: ToolWrite, update: ToolWrite, delete: ToolWrite };
    for (const [action, access] of Object.entries(want)) {
      const def = app.tools.get(`${resource.Name}_${action}`);
      assert.ok(def !== undefined && def.Run !== undefined, action);
      assert.equal(def.Tool.Access, access, action);
      if (access === ToolWrite) assert.ok(def.Tool.Confirm.trim() !== "", `${action} has a confirm sentence`);
    }
    const create = app.tools.get(`${resource.Name}_create`);
    assert.deepEqual(
      create?.Tool.Args.map((a) => a.Name),
      [...(isTeamScoped(resource) ? ["team"] : []), ...fields.map((f) => f.Name)],
    );
  });

  it("has every label in every catalog", async () => {
    const { app } = await ready();
    const keys = [
      `${resource.Name}.title`,
      `${resource.Name}.new`,
      ...fields.flatMap((f) => [f.Label, ...(f.Help ? [f.Help] : []), ...(f.Choices ?? []).map((c) => c.Label)]),
    ];
    const missing: string[] = [];
    for (const [code, catalog] of app.catalogs) for (const key of keys) if (!catalog[key]) missing.push(`${code}: ${key}`);
    assert.ok(app.catalogs.size > 0);
    assert.deepEqual(missing, []);
  });
}
