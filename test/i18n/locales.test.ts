import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "node:test";
import { isI18nError } from "../../lib/i18n/errors.ts";
import { NewLocales, interpolate, type Catalog } from "../../lib/i18n/index.ts";

function catalogDir(t: TestContext, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "latch-i18n-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const BASE: Catalog = {
  "app.greet": "Hello (compiled)",
  "app.only_default": "Only in the default catalog",
  "error.title": "Oops, the app says",
  "app.items_one": "{count} item",
  "app.items_other": "{count} items",
};

describe("NewLocales()", () => {
  const rows: { name: string; codes: string[]; def: string; code: string; message: string }[] = [
    { name: "refuses an empty code list", codes: [], def: "en", code: "ERR_I18N_NO_LOCALES", message: "no locale codes" },
    {
      name: "refuses a default outside the list",
      codes: ["en", "fr"],
      def: "de",
      code: "ERR_I18N_UNKNOWN_DEFAULT",
      message: "not in the list",
    },
    {
      name: "refuses a malformed code",
      codes: ["en", "english"],
      def: "en",
      code: "ERR_I18N_BAD_LOCALE",
      message: "malformed locale code",
    },
    { name: "refuses a path in a code", codes: ["en", "../x"], def: "en", code: "ERR_I18N_BAD_LOCALE", message: "malformed" },
    { name: "refuses an extension", codes: ["en-u-ca-buddhist"], def: "en", code: "ERR_I18N_BAD_LOCALE", message: "malformed" },
    { name: "refuses a code declared twice", codes: ["en", "EN"], def: "en", code: "ERR_I18N_DUPLICATE_LOCALE", message: "declared twice" },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.throws(
        () => NewLocales(row.codes, row.def, undefined, undefined),
        (e: unknown) => isI18nError(e) && e.code === row.code && e.message.includes(row.message),
      );
    });
  }

  it("refuses a catalog directory that does not exist", () => {
    assert.throws(
      () => NewLocales(["en"], "en", undefined, join(tmpdir(), "latch-i18n-missing-dir")),
      (e: unknown) => isI18nError(e) && e.code === "ERR_I18N_CATALOG_UNREADABLE",
    );
  });

  const invalid: { name: string; text: string; message: string }[] = [
    { name: "invalid JSON", text: "{ nope", message: "invalid JSON" },
    { name: "a JSON array", text: '["a"]', message: "not a JSON object" },
    { name: "a non-string value", text: '{"a": 1}', message: "is not a string" },
    { name: "a nested object", text: '{"a": {"b": "c"}}', message: "is not a string" },
  ];
  for (const row of invalid) {
    it(`refuses a catalog file holding ${row.name}`, (t) => {
      const dir = catalogDir(t, { "fr.json": row.text });
      assert.throws(
        () => NewLocales(["en", "fr"], "en", undefined, dir),
        (e: unknown) =>
          isI18nError(e) && e.code === "ERR_I18N_CATALOG_INVALID" && e.message.includes(row.message) && e.message.includes("fr.json"),
      );
    });
  }

  it("canonicalises codes and answers Has and FrameworkHas", () => {
    const locales = NewLocales(["EN", "pt-br", "it"], "en", undefined, undefined);
    assert.deepEqual(locales.Codes, ["en", "pt-BR", "it"]);
    assert.equal(locales.Default, "en");
    assert.equal(locales.Has("PT-BR"), true);
    assert.equal(locales.Has("fr"), false);
    assert.equal(locales.FrameworkHas("ko"), true);
    assert.equal(locales.FrameworkHas("zh-cn"), true);
    assert.equal(locales.FrameworkHas("it"), false);
  });
});

describe("Locales.T()", () => {
  function build(t: TestContext) {
    const dir = catalogDir(t, {
      "en.json": JSON.stringify({ "app.greet": "Hello" }),
      "fr.json": JSON.stringify({ "app.greet": "Bonjour", "signin.title": "Entrez" }),
    });
    return NewLocales(["en", "fr", "de", "it"], "en", BASE, dir);
  }

  it("1. uses the app's catalog of the requested locale", (t) => {
    assert.equal(build(t).T("fr", "app.greet"), "Bonjour");
    assert.equal(build(t).T("fr", "signin.title"), "Entrez");
  });

  it("2. falls back to the app's default catalog, the dir file merged over baseCatalog", (t) => {
    const locales = build(t);
    assert.equal(locales.T("fr", "app.only_default"), "Only in the default catalog");
    assert.equal(locales.T("de", "app.greet"), "Hello");
    assert.equal(locales.T("en", "app.greet"), "Hello");
  });

  it("2. puts the app's default catalog before the framework's catalog of the locale", (t) => {
    assert.equal(build(t).T("de", "error.title"), "Oops, the app says");
  });

  it("3. falls back to the framework's catalog of the requested locale", (t) => {
    assert.equal(build(t).T("de", "signin.title"), "Anmelden");
    assert.equal(build(t).T("fr", "signin.signout"), "Se déconnecter");
  });

  it("4. falls back to the framework's English catalog", (t) => {
    assert.equal(build(t).T("it", "signin.title"), "Sign in");
  });

  it("5. shows the key itself when no catalog has it", (t) => {
    assert.equal(build(t).T("fr", "nowhere.to.be.found"), "nowhere.to.be.found");
    assert.equal(build(t).Tf("fr", "nowhere.{x}", { x: "y" }), "nowhere.{x}");
  });

  it("works without any app catalog", () => {
    const locales = NewLocales(["ja"], "ja", undefined, undefined);
    assert.equal(locales.T("ja", "signin.signout"), "ログアウト");
  });
});

describe("Locales.Tf()", () => {
  const locales = NewLocales(["en", "fr", "ru", "ar"], "en", BASE, undefined);

  it("fills {name} placeholders and leaves unknown ones visible", () => {
    assert.equal(locales.Tf("en", "error.reference", { ref: "abc234" }), "Reference: abc234");
    assert.equal(locales.Tf("fr", "error.reference", { ref: "abc234" }), "Référence\u00a0: abc234");
    assert.equal(locales.Tf("en", "signin.sent", { minutes: 15 }).includes("expires in 15 minutes"), true);
    assert.equal(locales.Tf("en", "jobs.failed", {}), "This job failed: {err}");
    assert.equal(locales.Tf("en", "jobs.failed", { err: "{ref}", ref: "no" }), "This job failed: {ref}");
  });

  const plural: { locale: string; count: number; want: string }[] = [
    { locale: "en", count: 1, want: "1 recovery code left" },
    { locale: "en", count: 0, want: "0 recovery codes left" },
    { locale: "en", count: 7, want: "7 recovery codes left" },
    { locale: "ru", count: 1, want: "Остался 1 код восстановления" },
    { locale: "ru", count: 21, want: "Остался 21 код восстановления" },
    { locale: "ru", count: 3, want: "Осталось 3 кода восстановления" },
    { locale: "ru", count: 5, want: "Осталось 5 кодов восстановления" },
    { locale: "ru", count: 11, want: "Осталось 11 кодов восстановления" },
    { locale: "ru", count: 1.5, want: "Осталось 1.5 кода восстановления" },
    { locale: "ar", count: 0, want: "لم يتبقَّ أي رمز استرداد" },
    { locale: "ar", count: 1, want: "يتبقى رمز استرداد واحد" },
    { locale: "ar", count: 2, want: "يتبقى رمزا استرداد" },
    { locale: "ar", count: 3, want: "يتبقى 3 رموز استرداد" },
    { locale: "ar", count: 11, want: "يتبقى 11 رمزًا للاسترداد" },
    { locale: "ar", count: 100, want: "يتبقى 100 رمز استرداد" },
  ];
  for (const row of plural) {
    it(`selects the ${row.locale} plural form for ${row.count}`, () => {
      assert.equal(locales.Tf(row.locale, "passkey.recovery.remaining", { count: row.count }), row.want);
    });
  }

  it("chooses the plural form by the rules of the catalog that answers", () => {
    // No ru entry for app.items: the English default answers, so 21 is "other", not Russian "one".
    assert.equal(locales.Tf("ru", "app.items", { count: 21 }), "21 items");
    assert.equal(locales.Tf("ru", "app.items", { count: 1 }), "1 item");
  });

  it("falls back to the plain key when a message has no plural variants", () => {
    assert.equal(locales.Tf("en", "jobs.failed", { count: 2, err: "disk full" }), "This job failed: disk full");
  });

  // Issue 44: every label of every page is looked up; a declared locale's catalogs are worked out once, not matched
  // (lowercased, compared, shortened) on each lookup, and a message without a count is found once, then kept.
  it("looks a declared locale's message up without matching the locale again", (t) => {
    assert.equal(locales.T("fr", "app.greet"), locales.T("fr", "app.greet"));
    const lowered = t.mock.method(String.prototype, "toLowerCase");
    const read = t.mock.method(Map.prototype, "get");
    for (let k = 0; k < 10; k++) assert.equal(locales.T("fr", "app.greet"), "Hello (compiled)");
    assert.equal(lowered.mock.callCount(), 0, "no locale matched");
    // Per lookup: the locale's levels and its found messages (two reads), then the message itself.
    assert.ok(read.mock.callCount() <= 30, `${read.mock.callCount()} map reads for 10 lookups`);
    // A count still picks its plural form on every lookup, by the number given.
    assert.equal(locales.Tf("fr", "app.items", { count: 1 }), "1 item");
    assert.equal(locales.Tf("fr", "app.items", { count: 2 }), "2 items");
    assert.equal(locales.Tf("fr", "app.items", { count: 1 }), "1 item");
  });

  it("ignores a count that is not a number", () => {
    assert.equal(locales.Tf("en", "passkey.recovery.remaining", { count: "1" }), "passkey.recovery.remaining");
  });
});

describe("interpolate()", () => {
  it("fills own arguments only: an inherited name such as constructor stays as written", () => {
    assert.equal(interpolate("{constructor} {toString} {max} {missing}", { max: 3 }), "{constructor} {toString} 3 {missing}");
    assert.equal(interpolate("{n} of {total}", { n: 0, total: "12" }), "0 of 12");
  });

  it("fills every placeholder, an unknown name's as written, and the text around and between", () => {
    assert.equal(interpolate("{a}{b} {c}, {a}!", { a: "x" }), "x{b} {c}, x!");
    assert.equal(interpolate("no placeholder { here }", { here: 1 }), "no placeholder { here }");
    assert.equal(interpolate("", {}), "");
  });

  it("splits a message at its placeholders once, then fills it (issue 44: one label a list row)", (t) => {
    const split = t.mock.method(String.prototype, "split");
    for (let i = 0; i < 50; i++)
      assert.equal(interpolate("Select {name} (split once)", { name: `row ${i}` }), `Select row ${i} (split once)`);
    assert.equal(split.mock.callCount(), 1);
  });
});
