/*
 * The field kinds beyond text and money (issue 25): each kind's parsing of
 * what a person types (in their locale where a locale writes it
 * differently), its display, its JSON Schema for agents, the manifest rules
 * of its options, and the `CHECK` its column carries, tried on a real
 * SQLite table with rows that skip parsing.
 */
import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import { applySchema } from "../../lib/db/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, resourceSchema } from "../../lib/manifest/index.ts";
import { argSchema } from "../../lib/mcp/tools.ts";
import {
  EMAIL_MAX_LENGTH,
  INTEGER_LIMIT,
  URL_MAX_LENGTH,
  formatDate,
  formatInteger,
  isEmail,
  parseDate,
  parseLocalDate,
  parseInteger,
  parseWebAddress,
} from "../../lib/manifest/scalars.ts";
import { valueArg } from "../../lib/manifest/tools.ts";
import { CHOICE_VALUE_PATTERN, MAX_CHOICES } from "../../lib/manifest/validate.ts";
import { maxEventBytes, parseValues } from "../../lib/manifest/values.ts";
import type { Field } from "../../lib/manifest/spec.ts";
import { open, tempFile } from "../_support/db.ts";

const choices = [
  { Value: "travel", Label: "trips.kind.travel" },
  { Value: "meals", Label: "trips.kind.meals" },
];

const fields: Field[] = [
  { Name: "title", Label: "trips.title", Kind: Kind.Text, Required: true },
  { Name: "starts", Label: "trips.starts", Kind: Kind.Date },
  { Name: "people", Label: "trips.people", Kind: Kind.Integer, Min: 1, Max: 40 },
  { Name: "booked", Label: "trips.booked", Kind: Kind.Boolean },
  { Name: "kind", Label: "trips.kind", Kind: Kind.Choice, Choices: choices },
  { Name: "contact", Label: "trips.contact", Kind: Kind.Email },
  { Name: "site", Label: "trips.site", Kind: Kind.URL },
];

const trips = new Resource({
  Name: "trips",
  Route: "/trips",
  Store: StoreKind.Exclusive,
  Scope: ScopeKind.UserScoped,
  List: { Columns: [{ Field: "title" }] },
  Form: { Fields: fields },
});

const parse = (entered: Record<string, string>, locale = "en") =>
  parseValues(trips, new Map(Object.entries({ title: "Lisbon", ...entered })), locale);

const problemOf = (entered: Record<string, string>, field: string, locale = "en"): string | undefined => {
  const parsed = parse(entered, locale);
  return parsed.ok ? undefined : parsed.errors.get(field)?.key;
};

describe("Kind values", () => {
  it("are the stable strings a JSON manifest writes", () => {
    assert.deepEqual(
      { ...Kind },
      {
        Text: "text",
        Textarea: "textarea",
        Money: "money",
        Date: "date",
        Integer: "integer",
        Boolean: "boolean",
        Choice: "choice",
        Email: "email",
        URL: "url",
        Reference: "reference",
        File: "file",
      },
    );
  });
});

describe("Date", () => {
  it("parses ISO YYYY-MM-DD dates that exist, and nothing else", () => {
    assert.equal(parseDate("2026-12-31"), "2026-12-31");
    assert.equal(parseDate("2028-02-29"), "2028-02-29", "a leap year");
    assert.equal(parseDate("2000-02-29"), "2000-02-29", "divisible by 400");
    for (const bad of [
      "2026-02-29",
      "1900-02-29",
      "2026-04-31",
      "2026-13-01",
      "2026-00-10",
      "0000-01-01",
      "31.12.2026",
      "2026-1-5",
      "2026-12-31T00:00",
    ]) {
      assert.equal(parseDate(bad), undefined, bad);
    }
  });

  it("is shown in the person's locale on the day it names, whatever the server's time zone", () => {
    assert.equal(formatDate("2026-12-31", "de"), "31.12.2026");
    assert.equal(formatDate("2026-12-31", "en"), "Dec 31, 2026");
    assert.equal(formatDate("2026-01-01", "ja"), "2026/01/01");
  });

  it("reads ISO in every locale, and the locale's short notation unless it puts the month first", () => {
    const read: [string, string, string | undefined][] = [
      ["2026-12-31", "en", "2026-12-31"],
      ["2026-12-31", "de", "2026-12-31"],
      ["31.12.2026", "de", "2026-12-31"],
      ["1.6.2026", "de", "2026-06-01"],
      [" 01.06.2026 ", "de", "2026-06-01"],
      ["31.12.2026", "ru", "2026-12-31"],
      ["31/12/2026", "fr", "2026-12-31"],
      ["31/12/2026", "pt-BR", "2026-12-31"],
      ["2026/12/31", "ja", "2026-12-31"],
      ["2026/12/31", "zh-CN", "2026-12-31"],
      ["2026. 12. 31.", "ko", "2026-12-31"],
      ["2026.12.31", "ko", "2026-12-31"],
      ["٣١/١٢/٢٠٢٦", "ar", "2026-12-31"],
      // English's short notation is month first: "01/04/2026" is 4 January to most of the world, so it is not read.
      ["12/31/2026", "en", undefined],
      ["31/12/2026", "en", undefined],
      ["31/12/2026", "de", undefined],
      ["31.12.2026", "fr", undefined],
      ["31.12.26", "de", undefined],
      ["30.02.2026", "de", undefined],
      ["31.12.2026x", "de", undefined],
      ["131.12.2026", "de", undefined],
    ];
    for (const [text, locale, iso] of read) assert.equal(parseLocalDate(text, locale), iso, `${text} (${locale})`);
  });

  it("stores the date as ISO, typed in the person's notation or ISO, empty as nothing, and refuses a date that does not exist", () => {
    const parsed = parse({ starts: "2026-06-01" }, "de");
    assert.ok(parsed.ok);
    assert.equal(parsed.values["starts"], "2026-06-01");
    const german = parse({ starts: "01.06.2026" }, "de");
    assert.ok(german.ok);
    assert.equal(german.values["starts"], "2026-06-01");
    const empty = parse({ starts: "" });
    assert.ok(empty.ok);
    assert.equal(empty.values["starts"], null);
    assert.equal(problemOf({ starts: "2026-02-30" }, "starts"), "resource.err.date_invalid");
    assert.equal(problemOf({ starts: "30.02.2026" }, "starts", "de"), "resource.err.date_invalid");
    assert.equal(problemOf({ starts: "01.06.2026" }, "starts", "en"), "resource.err.date_invalid");
  });
});

describe("Integer", () => {
  it("reads whole numbers in the locale's notation, groups of three only, no decimals", () => {
    assert.deepEqual(parseInteger("1.234", "de"), { ok: true, value: 1234 });
    assert.deepEqual(parseInteger("1,234", "en"), { ok: true, value: 1234 });
    assert.deepEqual(parseInteger("-12", "en"), { ok: true, value: -12 });
    assert.deepEqual(parseInteger("1234", "de"), { ok: true, value: 1234 }, "what <input type=number> posts");
    assert.deepEqual(parseInteger("١٢", "ar"), { ok: true, value: 12 }, "Arabic-Indic digits");
    for (const [bad, locale] of [
      ["1.5", "en"],
      ["1,5", "de"],
      ["1.23", "de"],
      ["12a", "en"],
      ["", "en"],
      ["1e3", "en"],
    ] as const) {
      assert.deepEqual(parseInteger(bad, locale), { ok: false, reason: "invalid" }, `${bad} (${locale})`);
    }
  });

  it("holds at most INTEGER_LIMIT (2^53 - 1) either way, exact in JSON", () => {
    assert.equal(INTEGER_LIMIT, 9_007_199_254_740_991);
    assert.deepEqual(parseInteger(String(INTEGER_LIMIT), "en"), { ok: true, value: INTEGER_LIMIT });
    assert.deepEqual(parseInteger(`-${INTEGER_LIMIT}`, "en"), { ok: true, value: -INTEGER_LIMIT });
    assert.deepEqual(parseInteger("9007199254740992", "en"), { ok: false, reason: "range" });
    assert.deepEqual(parseInteger("99999999999999999999", "en"), { ok: false, reason: "range" });
  });

  it("keeps a field's Min and Max, naming them in the person's notation", () => {
    assert.equal(problemOf({ people: "0" }, "people"), "resource.err.integer_range");
    assert.equal(problemOf({ people: "41" }, "people"), "resource.err.integer_range");
    const parsed = parse({ people: "40" });
    assert.ok(parsed.ok);
    assert.equal(parsed.values["people"], 40);
    const wide = parseValues(
      { ...trips, Form: { Fields: [{ Name: "n", Label: "n", Kind: Kind.Integer, Min: 1000, Max: 5000 }] } },
      new Map([["n", "1"]]),
      "de",
    );
    assert.ok(!wide.ok);
    assert.deepEqual(wide.errors.get("n"), { key: "resource.err.integer_range", args: { min: "1.000", max: "5.000" } });
    assert.equal(formatInteger(1234567, "de"), "1.234.567");
  });
});

describe("Boolean", () => {
  it("is yes when the box is checked and no when it is not (an unchecked box posts nothing)", () => {
    for (const [entered, value] of [
      ["1", 1],
      ["on", 1],
      ["", 0],
    ] as const) {
      const parsed = parse({ booked: entered });
      assert.ok(parsed.ok);
      assert.equal(parsed.values["booked"], value, entered);
    }
    const missing = parseValues(trips, new Map([["title", "x"]]), "en");
    assert.ok(missing.ok);
    assert.equal(missing.values["booked"], 0);
    assert.equal(problemOf({ booked: "maybe" }, "booked"), "resource.err.boolean_invalid");
  });
});

describe("Choice", () => {
  it("accepts one of its values and nothing else", () => {
    const parsed = parse({ kind: "meals" });
    assert.ok(parsed.ok);
    assert.equal(parsed.values["kind"], "meals");
    assert.equal(problemOf({ kind: "Meals" }, "kind"), "resource.err.choice_invalid");
    assert.equal(problemOf({ kind: "shopping" }, "kind"), "resource.err.choice_invalid");
  });
});

describe("Email and URL", () => {
  it("accept what <input type=email> accepts, up to EMAIL_MAX_LENGTH (254, RFC 5321)", () => {
    assert.equal(EMAIL_MAX_LENGTH, 254);
    assert.ok(isEmail("ada.lovelace+trips@example.co.uk"));
    for (const bad of ["ada", "ada@", "@example.com", "ada @example.com", "ada@exa mple.com", "ada@-example.com"])
      assert.ok(!isEmail(bad), bad);
    const longest = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    assert.equal(longest.length, EMAIL_MAX_LENGTH);
    assert.ok(isEmail(longest));
    assert.ok(!isEmail(`a${longest}`));
    assert.equal(problemOf({ contact: "not an address" }, "contact"), "resource.err.email_invalid");
  });

  it("accept only http and https addresses with a host and no credentials, stored normalized, up to URL_MAX_LENGTH (2048)", () => {
    assert.equal(URL_MAX_LENGTH, 2048);
    assert.equal(parseWebAddress("HTTPS://Example.com"), "https://example.com/");
    assert.equal(parseWebAddress("http://example.com/a b?q=1"), "http://example.com/a%20b?q=1");
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,hi",
      "ftp://example.com/",
      "example.com",
      "http:example.com",
      "https://ada:secret@example.com/",
      "https://",
    ]) {
      assert.equal(parseWebAddress(bad), undefined, bad);
    }
    const long = `https://example.com/${"a".repeat(URL_MAX_LENGTH - 20)}`;
    assert.equal(long.length, URL_MAX_LENGTH);
    const parsed = parse({ site: long });
    assert.ok(parsed.ok);
    assert.equal(problemOf({ site: `${long}a` }, "site"), "resource.err.too_long");
    assert.equal(problemOf({ site: "javascript:alert(1)" }, "site"), "resource.err.url_invalid");
  });
});

describe("The tools' JSON Schema of each kind", () => {
  const schema = (name: string): Record<string, unknown> => {
    const field = fields.find((f) => f.Name === name) as Field;
    const { description: _, ...rest } = argSchema({ ...valueArg(field, (k) => k), Name: name });
    return rest;
  };
  it("gives dates format date, numbers integer with their bounds, yes/no boolean, choices enum, email and uri formats", () => {
    assert.deepEqual(schema("starts"), { type: "string", format: "date" });
    assert.deepEqual(schema("people"), { type: "integer", minimum: 1, maximum: 40 });
    assert.deepEqual(schema("booked"), { type: "boolean" });
    assert.deepEqual(schema("kind"), { type: "string", enum: ["travel", "meals"] });
    assert.deepEqual(schema("contact"), { type: "string", format: "email" });
    assert.deepEqual(schema("site"), { type: "string", format: "uri" });
    assert.deepEqual(schema("title"), { type: "string" });
    const unbounded = valueArg({ Name: "n", Label: "n", Kind: Kind.Integer }, (k) => k);
    assert.deepEqual([unbounded.Minimum, unbounded.Maximum], [-INTEGER_LIMIT, INTEGER_LIMIT]);
  });
});

describe("Field options in the manifest", () => {
  const invalid = (field: Partial<Field> & Pick<Field, "Kind">, reason: RegExp) =>
    assert.throws(
      () =>
        new Resource({
          ...trips,
          List: { Columns: [{ Field: "f" }] },
          Form: { Fields: [{ Name: "f", Label: "f", ...field } as Field] },
        }).Validate(),
      (err: unknown) => (err as { code?: string }).code === "ERR_MANIFEST_INVALID_FIELD" && reason.test(String(err)),
    );
  it("refuses Min and Max off an Integer, out of range or crossed", () => {
    invalid({ Kind: Kind.Text, Min: 1 }, /Min and Max are for Integer fields/);
    invalid({ Kind: Kind.Integer, Min: 1.5 }, /whole numbers/);
    invalid({ Kind: Kind.Integer, Max: INTEGER_LIMIT + 1 }, /whole numbers/);
    invalid({ Kind: Kind.Integer, Min: 5, Max: 4 }, /Min must not exceed Max/);
    new Resource({
      ...trips,
      List: { Columns: [{ Field: "f" }] },
      Form: { Fields: [{ Name: "f", Label: "f", Kind: Kind.Integer, Min: -INTEGER_LIMIT, Max: INTEGER_LIMIT }] },
    }).Validate();
  });
  it("refuses a Required Boolean, and MaxLength on a kind with its own length", () => {
    invalid({ Kind: Kind.Boolean, Required: true }, /cannot be Required/);
    invalid({ Kind: Kind.Email, MaxLength: 10 }, /MaxLength is for Text and Textarea/);
  });
  it("refuses a Choice without choices, with too many, a malformed or repeated value, or an empty label", () => {
    assert.equal(MAX_CHOICES, 100);
    assert.equal(CHOICE_VALUE_PATTERN.source, "^[a-z0-9_-]{1,63}$");
    invalid({ Kind: Kind.Choice }, /needs Choices/);
    invalid({ Kind: Kind.Choice, Choices: [] }, /needs Choices/);
    const many = Array.from({ length: MAX_CHOICES + 1 }, (_, n) => ({ Value: `v${n}`, Label: "l" }));
    invalid({ Kind: Kind.Choice, Choices: many }, /needs Choices: 1 to 100/);
    new Resource({
      ...trips,
      List: { Columns: [{ Field: "f" }] },
      Form: { Fields: [{ Name: "f", Label: "f", Kind: Kind.Choice, Choices: many.slice(1) }] },
    }).Validate();
    invalid({ Kind: Kind.Choice, Choices: [{ Value: "Big", Label: "l" }] }, /Value must match/);
    invalid({ Kind: Kind.Choice, Choices: [{ Value: "x".repeat(64), Label: "l" }] }, /Value must match/);
    invalid(
      {
        Kind: Kind.Choice,
        Choices: [
          { Value: "a", Label: "l" },
          { Value: "a", Label: "m" },
        ],
      },
      /declared twice/,
    );
    invalid({ Kind: Kind.Choice, Choices: [{ Value: "a", Label: " " }] }, /empty Label/);
    invalid({ Kind: Kind.Text, Choices: choices }, /Choices are for Choice fields/);
  });
  it("fits a Mergeable resource of every kind in one event", () => {
    assert.ok(maxEventBytes(fields) < 64 * 1024);
    new Resource({ ...trips, Store: StoreKind.Mergeable }).Validate();
  });
});

describe("Each kind's column CHECK", () => {
  const table = (t: TestContext) => {
    const db = open(t, tempFile(t));
    applySchema(db, resourceSchema(trips));
    let n = 0;
    const insert = (values: Record<string, unknown>): void => {
      const row = { id: `r${++n}`, owner: "ada", created_at: 1, updated_at: 1, title: "x", ...values };
      const names = Object.keys(row);
      db.prepare(`INSERT INTO trips (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`).run(...Object.values(row));
    };
    return { db, insert };
  };
  const refused = (insert: (v: Record<string, unknown>) => void, values: Record<string, unknown>): void =>
    assert.throws(() => insert(values), /(CHECK|NOT NULL) constraint failed|cannot store/, JSON.stringify(values));

  it("stores what parsing produces, and the empty value of each kind", (t) => {
    const { db, insert } = table(t);
    insert({});
    insert({ starts: "2028-02-29", people: -INTEGER_LIMIT, booked: 1, kind: "meals", contact: "a@b.c", site: "https://example.com/" });
    const row = db.prepare("SELECT starts, people, booked, kind, contact, site FROM trips WHERE id = 'r1'").get();
    assert.deepEqual({ ...(row as object) }, { starts: null, people: null, booked: 0, kind: "", contact: "", site: "" });
  });

  it("refuses a date that is not ISO or does not exist, a number past INTEGER_LIMIT, a yes/no other than 0 and 1", (t) => {
    const { insert } = table(t);
    for (const starts of ["2026-02-30", "31.12.2026", "2026-1-1", "2026-12-31 10:00"]) refused(insert, { starts });
    refused(insert, { people: INTEGER_LIMIT + 1 });
    refused(insert, { people: "twelve" });
    refused(insert, { booked: 2 });
    refused(insert, { booked: null });
  });

  it("refuses a choice value of another shape, an email without @, a URL of another scheme, and overlong ones", (t) => {
    const { insert } = table(t);
    for (const kind of ["Meals", "a b", "x".repeat(64)]) refused(insert, { kind });
    insert({ kind: "z".repeat(63) });
    refused(insert, { contact: "ada" });
    refused(insert, { contact: `${"a".repeat(250)}@b.cd` });
    for (const site of ["javascript:alert(1)", "ftp://example.com", "https://", `https://example.com/${"a".repeat(URL_MAX_LENGTH)}`])
      refused(insert, { site });
  });

  it("adds a new field's column to a table that holds records (an additive step at the next boot)", (t) => {
    const db = open(t, tempFile(t));
    const before = new Resource({ ...trips, Form: { Fields: fields.slice(0, 1) } });
    applySchema(db, resourceSchema(before));
    db.prepare("INSERT INTO trips (id, owner, created_at, updated_at, title) VALUES ('old', 'ada', 1, 1, 'Old trip')").run();
    applySchema(db, resourceSchema(trips));
    const row = db.prepare("SELECT title, starts, people, booked, kind, contact, site FROM trips").get();
    assert.deepEqual({ ...(row as object) }, { title: "Old trip", starts: null, people: null, booked: 0, kind: "", contact: "", site: "" });
    applySchema(db, resourceSchema(trips));
  });
});
