/*
 * The manifest's Intl formatters are made once per locale and options
 * object (lib/manifest/intl.ts, issues 27 and 44): a list page no longer
 * builds one for every amount and date it shows. The cache is bounded: past
 * 256 locales of one options object it starts again. What a formatter answers for a currency (its
 * digits) and a locale (its separators) is kept too (issue 44): a list page
 * asked for them once per amount shown.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dateTimeFormat, numberFormat } from "../../lib/manifest/intl.ts";
import { currencyDigits, formatMoney, formatMoneyInput, numberSeparators } from "../../lib/manifest/money.ts";
import { formatDate, formatInteger } from "../../lib/manifest/scalars.ts";

describe("Intl formatters", () => {
  it("keeps one per locale and options object, and starts again past 256 locales of one", () => {
    const twoDigits = { maximumFractionDigits: 2 };
    const first = numberFormat("de", twoDigits);
    assert.equal(numberFormat("de", twoDigits), first);
    assert.notEqual(numberFormat("en", twoDigits), first);
    // Kept by the options object (a constant at each caller), not by what it says: a new object is a new formatter.
    assert.notEqual(numberFormat("de", { maximumFractionDigits: 2 }), first);
    // 254 more locales of the same options: 256 kept, the first among them.
    const letter = (n: number): string => String.fromCharCode(97 + n);
    for (let k = 0; k < 254; k++) numberFormat(`de-u-cu-x${letter(Math.floor(k / 26))}${letter(k % 26)}`, twoDigits);
    assert.equal(numberFormat("de", twoDigits), first, "256 kept");
    numberFormat("fr", twoDigits);
    assert.notEqual(numberFormat("de", twoDigits), first, "the 257th started the cache again");
    const medium: Intl.DateTimeFormatOptions = { dateStyle: "medium", timeZone: "UTC" };
    const date = dateTimeFormat("de", medium);
    assert.equal(dateTimeFormat("de", medium), date);
  });

  // Issue 44: a list page formats every amount, number and date it shows with a formatter kept by its options object; it
  // makes none of them again, and writes no key from the options (JSON.stringify) to find them.
  it("makes no formatter again for the amounts, numbers and dates a page shows", (t) => {
    const show = (): string[] => [
      formatMoney(123456, "de", "EUR"),
      formatMoneyInput(123456, "de", "EUR"),
      formatInteger(1234, "de"),
      formatDate("2026-12-31", "de"),
    ];
    const first = show();
    const numbers = t.mock.method(Intl, "NumberFormat");
    const dates = t.mock.method(Intl, "DateTimeFormat");
    const stringify = t.mock.method(JSON, "stringify");
    for (let k = 0; k < 5; k++) assert.deepEqual(show(), first);
    assert.equal(numbers.mock.callCount() + dates.mock.callCount(), 0);
    assert.equal(stringify.mock.callCount(), 0);
    assert.deepEqual(first, ["1.234,56\u00a0€", "1.234,56", "1.234", "31.12.2026"]);
  });

  it("formats as a new formatter does", () => {
    assert.equal(
      formatMoney(123456, "de", "EUR"),
      new Intl.NumberFormat("de", { style: "currency", currency: "EUR", numberingSystem: "latn" }).format("1234.56"),
    );
    assert.equal(formatMoney(123456, "de", "EUR"), formatMoney(123456, "de", "EUR"));
  });

  it("asks Intl a currency's digits and a locale's separators once", (t) => {
    const resolved = t.mock.method(Intl.NumberFormat.prototype, "resolvedOptions");
    const parts = t.mock.method(Intl.NumberFormat.prototype, "formatToParts");
    assert.equal(currencyDigits("JPY"), 0);
    assert.equal(currencyDigits("KWD"), 3);
    const asked = resolved.mock.callCount();
    for (let k = 0; k < 20; k++) assert.equal(currencyDigits("KWD"), 3);
    assert.equal(resolved.mock.callCount(), asked, "the digits of KWD were kept");
    assert.deepEqual(numberSeparators("de"), { decimal: ",", group: "." });
    const split = parts.mock.callCount();
    for (let k = 0; k < 20; k++) assert.equal(numberSeparators("de").decimal, ",");
    assert.equal(parts.mock.callCount(), split, "the separators of de were kept");
  });
});
