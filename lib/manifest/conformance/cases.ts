/*
 * The conformance cases of what a resource's forms accept and refuse, of concurrent updates, of its tools and of its
 * labels (README "Conformance"); each failure names the case, the request and its fields, and what the server answered.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { ToolRead, ToolWrite } from "../../agent/index.ts";
import { Kind, StoreKind } from "../kinds.ts";
import { currencyDigits, formatMoneyInput, parseMoney } from "../money.ts";
import { isTeamScoped } from "../scope.ts";
import { DEFAULT_CURRENCY, maxLength } from "../values.ts";
import type { Resource } from "../resource.ts";
import type { Field } from "../spec.ts";
import { expectFieldError, expectStatus, expectThat, prefix } from "./answers.ts";
import { created, versionOf, type Ready } from "./run.ts";
import { refusedValues, step, validValues } from "./samples.ts";
import { comparing, ruleFields } from "../rules.ts";

// What a create accepts and refuses: declared fields only, required and overlong values, each kind's values, money.
export function inputCases(resource: Resource, ready: Ready): void {
  const fields = resource.Form.Fields;
  it("accepts only declared fields, requires a version to update, and refuses cross-origin writes", async (t) => {
    const c = await ready(t);
    const { route, ada, send, listed, fill, asking } = c;
    const before = (await listed(ada)).length;
    for (const extra of ["owner", "id", "created_at", "undeclared"]) {
      const res = await send("POST", route, ada, { ...fill("extra"), [extra]: "x" });
      expectStatus(asking, res, 400, `POST ${route} with every field and the undeclared ${extra}="x"`);
    }
    const evil = "https://evil.example";
    expectStatus(asking, await send("POST", route, ada, fill("csrf"), evil), 403, `POST ${route} from Origin ${evil}`);
    const id = await created(c, ada, "version");
    expectStatus(asking, await send("POST", `${route}/${id}`, ada, fill("noversion")), 400, `POST ${route}/${id} without a version`);
    const after = (await listed(ada)).length;
    expectThat(asking, after === before + 1, `the list holds ${after - before} more records, expected 1 (only the valid create stored)`);
  });

  it("refuses empty required fields and overlong text inline, keeping the entered values", async (t) => {
    const { route, ada, send, fill, asking } = await ready(t);
    for (const field of fields) {
      if (field.Required === true) {
        const res = await send("POST", route, ada, { ...fill("req"), [field.Name]: "" });
        expectFieldError(asking, res, field.Name, `POST ${route} with the required ${field.Name}=""`);
      }
      if (field.Kind === Kind.Text || field.Kind === Kind.Textarea) {
        const max = maxLength(field);
        const res = await send("POST", route, ada, { ...fill("long"), [field.Name]: "x".repeat(max + 1) });
        expectFieldError(asking, res, field.Name, `POST ${route} with ${field.Name} of ${max + 1} characters (at most ${max})`);
      }
    }
  });

  it(
    "refuses a value its kind does not hold (dates, numbers, yes/no, choices, addresses) with 422 naming the field, storing nothing",
    { skip: fields.some((f) => refusedValues(f).length > 0) ? false : "no field of these kinds" },
    async (t) => {
      const { route, ada, send, listed, fill, asking } = await ready(t);
      const before = (await listed(ada)).length;
      for (const field of fields) {
        for (const bad of refusedValues(field)) {
          const res = await send("POST", route, ada, { ...fill("kind"), [field.Name]: bad });
          expectFieldError(asking, res, field.Name, `POST ${route} with ${field.Name}=${JSON.stringify(bad)}`);
        }
      }
      expectThat(asking, (await listed(ada)).length === before, "a refused create stored a record");
    },
  );

  // A Money field no rule compares, where there is one: the amounts this case posts are its own.
  const ruled = new Set((resource.Rules ?? []).flatMap(ruleFields));
  const moneys = fields.filter((f) => f.Kind === Kind.Money);
  const money = moneys.find((f) => !ruled.has(f.Name)) ?? moneys[0];
  it("parses money in the request's locale and never rounds", { skip: money === undefined ? "no Money field" : false }, async (t) => {
    const { route, ada, send, fill, asking } = await ready(t);
    const field = money as Field;
    const currency = field.Currency ?? DEFAULT_CURRENCY;
    const digits = currencyDigits(currency);
    // One decimal more than the currency has is refused, never rounded; "1,2" groups wrongly in English.
    for (const bad of [`12.${"5".repeat(digits + 1)}`, "twelve", "1,2"]) {
      const res = await send("POST", route, ada, { ...fill("money"), [field.Name]: bad });
      const request = `POST ${route} with ${field.Name}=${JSON.stringify(bad)} (${currency})`;
      expectFieldError(asking, res, field.Name, request);
      expectThat(asking, res.body.includes(`value="${bad}"`), `${request}: the refusing form does not keep the entered value`);
    }
    const typed = digits === 0 ? "1,234" : `1,234.${"5".padEnd(digits, "0")}`;
    const res = await send("POST", route, ada, { ...fill("money"), [field.Name]: typed });
    expectStatus(asking, res, 303, `POST ${route} with ${field.Name}=${JSON.stringify(typed)} (${currency})`);
    const page = await send("GET", res.headers.location ?? "", ada);
    const minor = parseMoney(typed, "en", currency);
    assert.ok(minor.ok);
    const shown = formatMoneyInput(minor.minor, "en", currency);
    expectThat(
      asking,
      page.body.includes(`value="${shown}"`),
      `${field.Name} ${typed} is not shown back as ${shown} on its record's page`,
      page,
    );
  });
}

// A rule across fields (README "Rules across fields"): the first comparison broken, its field one step on the wrong side.
export function ruleCase(resource: Resource, ready: Ready): void {
  const rule = (resource.Rules ?? []).map(comparing).find((c) => c !== undefined);
  const skip = rule === undefined ? "no comparison rule" : false;
  it("refuses a write breaking a rule across fields with 422 naming both fields, storing nothing", { skip }, async (t) => {
    const { route, ada, send, listed, fill, asking } = await ready(t);
    const { field, other, comparison } = rule!;
    const form = fill("rule");
    const date = resource.Form.Fields.find((f) => f.Name === field)?.Kind === Kind.Date;
    // One step the wrong way from the other field breaks every comparison: later is earlier, earlier is later.
    const broken = { ...form, [field]: step(form[other] ?? "", date, comparison === "After" || comparison === "AtLeast" ? -1 : 1) };
    const before = (await listed(ada)).length;
    const res = await send("POST", route, ada, broken);
    const request = `POST ${route} with ${field}=${JSON.stringify(broken[field])} and ${other}=${JSON.stringify(broken[other])} (${field} ${comparison} ${other})`;
    expectFieldError(asking, res, field, request);
    expectFieldError(asking, res, other, request);
    expectThat(asking, (await listed(ada)).length === before, "a write breaking a rule stored a record");
  });
}

/**
 * The field two concurrent edits change and the values they give it: for a Mergeable store two values other than the
 * stored one and each other (a conflict); for an Exclusive one any change (the second edit is stale whatever it holds).
 */
function raceField(
  fields: readonly Field[],
  exclusive: boolean,
  ruled: ReadonlySet<string>,
): { field: Field; values: [string, string] } | undefined {
  // A field a rule relates could break it with the values below.
  for (const field of fields.filter((f) => !ruled.has(f.Name))) {
    const [, first, second] = validValues(field, "race", new Map());
    if (first !== undefined && (second !== undefined || exclusive)) return { field, values: [first, second ?? first] };
  }
  return undefined;
}

// Concurrent updates, the tools and the catalogs.
export function writeCases(resource: Resource, ready: Ready): void {
  const fields = resource.Form.Fields;
  const exclusive = resource.Store === StoreKind.Exclusive;
  const race = raceField(fields, exclusive, new Set((resource.Rules ?? []).flatMap(ruleFields)));
  it(
    exclusive ? "refuses a stale update with the current values" : "merges or refuses concurrent updates without losing a value",
    { skip: race === undefined ? `no field takes ${exclusive ? "a value" : "two values"} other than the stored one` : false },
    async (t) => {
      const c = await ready(t);
      const { route, ada, send, fill, asking } = c;
      const { field, values } = race!;
      const id = await created(c, ada, "race");
      const version = versionOf((await send("GET", `${route}/${id}`, ada)).body);
      const edit = (value: string) => send("POST", `${route}/${id}`, ada, { ...fill("race"), [field.Name]: value, version });
      const request = (value: string) => `POST ${route}/${id} at version ${version} with ${field.Name}=${JSON.stringify(value)}`;
      expectStatus(asking, await edit(values[0]), 303, request(values[0]));
      const second = await edit(values[1]);
      expectStatus(asking, second, 409, `${request(values[1])}, after another edit of that version`);
      const outcome = exclusive ? "stale" : "conflict";
      expectThat(
        asking,
        second.body.includes(`data-outcome="${outcome}"`),
        `the second edit's 409 page has no data-outcome="${outcome}"`,
        second,
      );
    },
  );

  it("registers its tools with the right access", async (t) => {
    const { app, asking } = await ready(t);
    const want = { list: ToolRead, read: ToolRead, create: ToolWrite, update: ToolWrite, delete: ToolWrite };
    for (const [action, access] of Object.entries(want)) {
      const def = app.tools.get(`${resource.Name}_${action}`);
      assert.ok(def !== undefined && def.Run !== undefined, `${prefix(asking)}: no tool ${resource.Name}_${action} with a Run`);
      assert.equal(def.Tool.Access, access, `${prefix(asking)}: the access of ${resource.Name}_${action}`);
      if (access === ToolWrite)
        assert.ok(def.Tool.Confirm.trim() !== "", `${prefix(asking)}: ${resource.Name}_${action} has no confirm sentence`);
    }
    const create = app.tools.get(`${resource.Name}_create`);
    assert.deepEqual(
      create?.Tool.Args.map((a) => a.Name),
      [...(isTeamScoped(resource) ? ["team"] : []), ...fields.map((f) => f.Name)],
      `${prefix(asking)}: the arguments of ${resource.Name}_create`,
    );
  });

  it("has every label in every catalog", async (t) => {
    const { app, asking } = await ready(t);
    const keys = [
      `${resource.Name}.title`,
      `${resource.Name}.new`,
      ...fields.flatMap((f) => [f.Label, ...(f.Help ? [f.Help] : []), ...(f.Choices ?? []).map((c) => c.Label)]),
    ];
    const missing: string[] = [];
    for (const [code, catalog] of app.catalogs) for (const key of keys) if (!catalog[key]) missing.push(`${code}: ${key}`);
    assert.ok(app.catalogs.size > 0, `${prefix(asking)}: no catalogs`);
    assert.deepEqual(missing, [], `${prefix(asking)}: labels missing from catalogs`);
  });
}
