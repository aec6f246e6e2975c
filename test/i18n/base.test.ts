import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BaseCatalog, BaseKeys, BaseLocales, Dir, IsBaseKey } from "../../lib/i18n/index.ts";
import { tableDirection } from "../../lib/i18n/direction.ts";

describe("BaseCatalog()", () => {
  it("returns the framework's English messages as a frozen copy", () => {
    const en = BaseCatalog();
    assert.equal(en["signin.submit"], "Email me a sign-in link");
    assert.equal(en["error.title"], "Something went wrong");
    assert.equal(Object.isFrozen(en), true);
    assert.notEqual(BaseCatalog(), en);
  });
});

describe("BaseKeys()", () => {
  it("lists the English keys sorted, including the contract's keys", () => {
    const keys = BaseKeys();
    assert.deepEqual(keys, [...keys].sort());
    for (const key of [
      "locale.switch",
      "error.reference",
      "signin.err.keymail",
      "mail.signin.body",
      "passkey.recovery.remaining_other",
      "jobs.busy",
      "account.method",
    ]) {
      assert.ok(keys.includes(key), key);
    }
  });
});

describe("BaseLocales()", () => {
  it("returns the 12 codes, English first, as a fresh array", () => {
    const codes = BaseLocales();
    assert.equal(codes.length, 12);
    assert.equal(codes[0], "en");
    codes.pop();
    assert.equal(BaseLocales().length, 12);
  });
});

describe("IsBaseKey()", () => {
  const rows: { key: string; want: boolean }[] = [
    { key: "signin.title", want: true },
    { key: "passkey.recovery.remaining_other", want: true },
    { key: "passkey.recovery.remaining_few", want: true },
    { key: "passkey.recovery.remaining", want: false },
    { key: "signin.title_few", want: false },
    { key: "demo.title", want: false },
    { key: "", want: false },
  ];
  for (const row of rows) it(`reports ${row.want} for ${JSON.stringify(row.key)}`, () => assert.equal(IsBaseKey(row.key), row.want));
});

describe("Dir()", () => {
  it("makes one Intl.Locale per code, keeping 256 codes before it starts again (issue 44)", (t) => {
    const made: string[] = [];
    const Real = Intl.Locale;
    t.mock.property(
      Intl,
      "Locale",
      class extends Real {
        constructor(tag: string | Intl.Locale, options?: Intl.LocaleOptions) {
          super(tag, options);
          made.push(String(tag));
        }
      },
    );
    const codes = Array.from({ length: 256 }, (_, k) => `en-x-dir${k}`);
    for (const code of codes) Dir(code);
    const first = codes[0] ?? "";
    assert.equal(Dir(first), "ltr");
    assert.equal(made.filter((c) => c === first).length, 1, "the 256th code kept the first");
    Dir("en-x-dir256");
    Dir(first);
    assert.equal(made.filter((c) => c === first).length, 2, "the 257th code started the table again");
  });
  const rows: { locale: string; want: "rtl" | "ltr" }[] = [
    { locale: "ar", want: "rtl" },
    { locale: "ar-EG", want: "rtl" },
    { locale: "he", want: "rtl" },
    { locale: "fa", want: "rtl" },
    { locale: "ur", want: "rtl" },
    { locale: "az-Arab", want: "rtl" },
    { locale: "dv", want: "rtl" },
    { locale: "yi", want: "rtl" },
    { locale: "sr-Cyrl", want: "ltr" },
    { locale: "en", want: "ltr" },
    { locale: "zh-CN", want: "ltr" },
    { locale: "ja", want: "ltr" },
    { locale: "ru", want: "ltr" },
    { locale: "", want: "ltr" },
    { locale: "not a locale!", want: "ltr" },
  ];
  for (const row of rows) it(`is ${row.want} for ${JSON.stringify(row.locale)}`, () => assert.equal(Dir(row.locale), row.want));

  it("gives every shipped catalog a direction, only ar right-to-left", () => {
    assert.deepEqual(
      BaseLocales().filter((c) => Dir(c) === "rtl"),
      ["ar"],
    );
  });
});

describe("tableDirection()", () => {
  const rows: { locale: string; want: "rtl" | "ltr" }[] = [
    { locale: "ar", want: "rtl" },
    { locale: "he", want: "rtl" },
    { locale: "fa-IR", want: "rtl" },
    { locale: "ckb", want: "rtl" },
    { locale: "dv", want: "rtl" },
    { locale: "uz-Arab", want: "rtl" },
    { locale: "en", want: "ltr" },
    { locale: "ko", want: "ltr" },
    { locale: "uz", want: "ltr" },
    { locale: "sr-Cyrl", want: "ltr" },
  ];
  for (const row of rows) {
    it(`is ${row.want} for ${row.locale} without Intl text info`, () =>
      assert.equal(tableDirection(new Intl.Locale(row.locale)), row.want));
  }
});
