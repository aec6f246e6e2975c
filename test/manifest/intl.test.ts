/*
 * The manifest's Intl formatters are made once per locale and options
 * (lib/manifest/intl.ts, issue 27): a list page no longer builds one for
 * every amount and date it shows. The cache is bounded: past 256 formatters
 * of a kind it starts again. What a formatter answers for a currency (its
 * digits) and a locale (its separators) is kept too (issue 44): a list page
 * asked for them once per amount shown.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { dateTimeFormat, numberFormat } from "../../lib/manifest/intl.ts";
import { currencyDigits, formatMoney, numberSeparators } from "../../lib/manifest/money.ts";

describe("Intl formatters", () => {
  it("keeps one per locale and options, and starts again past 256 of a kind", () => {
    const first = numberFormat("de", { maximumFractionDigits: 2 });
    assert.equal(numberFormat("de", { maximumFractionDigits: 2 }), first);
    assert.notEqual(numberFormat("en", { maximumFractionDigits: 2 }), first);
    // 254 more option sets: 256 kept, the first among them.
    for (let k = 0; k < 254; k++) numberFormat("de", { minimumIntegerDigits: 1 + (k % 21), maximumFractionDigits: Math.floor(k / 21) });
    assert.equal(numberFormat("de", { maximumFractionDigits: 2 }), first, "256 kept");
    numberFormat("fr", { maximumFractionDigits: 2 });
    assert.notEqual(numberFormat("de", { maximumFractionDigits: 2 }), first, "the 257th started the cache again");
    const date = dateTimeFormat("de", { dateStyle: "medium", timeZone: "UTC" });
    assert.equal(dateTimeFormat("de", { dateStyle: "medium", timeZone: "UTC" }), date);
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
