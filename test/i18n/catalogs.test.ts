/*
 * Completeness of the shipped catalogs and of the demo's and starter's catalogs:
 * every English key is present, plural keys carry exactly the categories
 * the language's Intl.PluralRules produces, placeholders match English and
 * nothing is left untranslated by accident.
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { describe, it } from "node:test";
import { BaseCatalogs, BaseKeys, BaseLocales, type Catalog } from "../../lib/i18n/index.ts";

const PLURAL = /_(zero|one|two|few|many|other)$/;

function placeholders(message: string): string[] {
  return [...message.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1] ?? "").sort();
}

/** Plural stems of a reference catalog: keys `<stem>_other`. */
function pluralStems(reference: Catalog): Set<string> {
  return new Set(
    Object.keys(reference)
      .filter((k) => k.endsWith("_other"))
      .map((k) => k.slice(0, -"_other".length)),
  );
}

function categories(locale: string): string[] {
  return new Intl.PluralRules(locale).resolvedOptions().pluralCategories.map(String);
}

/** Checks `catalog` (of `locale`) against the English `reference`; returns the problems found. */
function problems(locale: string, catalog: Catalog, reference: Catalog): string[] {
  const out: string[] = [];
  const stems = pluralStems(reference);
  const allowed = new Set<string>();
  for (const key of Object.keys(reference)) {
    const stem = key.replace(PLURAL, "");
    if (PLURAL.test(key) && stems.has(stem)) continue;
    allowed.add(key);
    if (catalog[key] === undefined) out.push(`${locale}: missing ${key}`);
    else if (catalog[key].trim() === "") out.push(`${locale}: empty ${key}`);
    else if (placeholders(catalog[key]).join() !== placeholders(reference[key] ?? "").join()) out.push(`${locale}: placeholders of ${key}`);
  }
  for (const stem of stems) {
    const want = placeholders(reference[`${stem}_other`] ?? "");
    for (const category of categories(locale)) {
      const key = `${stem}_${category}`;
      allowed.add(key);
      const message = catalog[key];
      if (message === undefined) out.push(`${locale}: missing plural ${key}`);
      else if (placeholders(message).some((p) => !want.includes(p))) out.push(`${locale}: unknown placeholder in ${key}`);
    }
    if (!placeholders(catalog[`${stem}_other`] ?? "").includes("count")) out.push(`${locale}: ${stem}_other must show {count}`);
  }
  for (const key of Object.keys(catalog)) if (!allowed.has(key)) out.push(`${locale}: unexpected key ${key}`);
  return out;
}

describe("BaseCatalogs()", () => {
  const all = BaseCatalogs();
  const en = all.get("en") ?? {};

  it("ships the 12 catalogs of the contract", () => {
    assert.deepEqual([...all.keys()], ["en", "es", "pt-BR", "fr", "de", "ru", "ar", "zh-CN", "ja", "id", "tr", "ko"]);
    assert.deepEqual([...all.keys()], BaseLocales());
  });

  it("has every catalog complete for every base key, with the plural categories its language needs", () => {
    const found: string[] = [];
    for (const [code, catalog] of all) found.push(...problems(code, catalog, en));
    assert.deepEqual(found, []);
  });

  it("needs the full Arabic and Russian plural sets", () => {
    const ar = all.get("ar") ?? {};
    const ru = all.get("ru") ?? {};
    for (const c of ["zero", "one", "two", "few", "many", "other"]) assert.ok(ar[`passkey.recovery.remaining_${c}`], `ar ${c}`);
    for (const c of ["one", "few", "many", "other"]) assert.ok(ru[`passkey.recovery.remaining_${c}`], `ru ${c}`);
  });

  it("translates: no catalog repeats English for most of its messages", () => {
    for (const [code, catalog] of all) {
      if (code === "en") continue;
      const same = BaseKeys().filter((k) => catalog[k] === en[k]);
      assert.ok(same.length <= 2, `${code} repeats English for ${same.join(", ")}`);
    }
  });

  it("names the files by their locale code only", () => {
    const files = readdirSync(new URL("../../../catalogs/", import.meta.url)).sort();
    assert.deepEqual(
      files,
      BaseLocales()
        .map((c) => `${c}.json`)
        .sort(),
    );
  });
});

for (const example of ["demo", "starter"])
  describe(`examples/${example}/locales`, () => {
    const dir = new URL(`../../../examples/${example}/locales/`, import.meta.url);
    const load = (code: string): Catalog => {
      const parsed: unknown = JSON.parse(readFileSync(new URL(`${code}.json`, dir), "utf8"));
      assert.ok(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed));
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(parsed)) {
        assert.equal(typeof v, "string", `${code} ${k}`);
        out[k] = String(v);
      }
      return out;
    };

    it("has one catalog per shipped locale", () => {
      assert.deepEqual(
        readdirSync(dir).sort(),
        BaseLocales()
          .map((c) => `${c}.json`)
          .sort(),
      );
    });

    it(`has every ${example} catalog complete against English`, () => {
      const en = load("en");
      assert.ok(Object.keys(en).length >= 12);
      const found: string[] = [];
      for (const code of BaseLocales()) found.push(...problems(code, load(code), en));
      assert.deepEqual(found, []);
    });

    // A page left in English (a new page's strings copied, not translated) fails; a few words languages share (Notes, Admin, Name) pass.
    it(`translates: no ${example} catalog repeats English for more than 8 messages`, () => {
      const en = load("en");
      for (const code of BaseLocales().filter((c) => c !== "en")) {
        const catalog = load(code);
        const same = Object.keys(en).filter((k) => catalog[k] === en[k]);
        assert.ok(same.length <= 8, `${code} repeats English for ${same.join(", ")}`);
      }
    });
  });
