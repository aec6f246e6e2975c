import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { describe, test } from "node:test";
import { SafeHTML, html, raw } from "../../lib/http/index.ts";
import { escapeHTML } from "../../lib/http/html.ts";

// The reference: one character at a time, written independently of the library.
function referenceEscape(text: string): string {
  let out = "";
  for (const ch of text) {
    if (ch === "&") out += "&amp;";
    else if (ch === "<") out += "&lt;";
    else if (ch === ">") out += "&gt;";
    else if (ch === '"') out += "&quot;";
    else if (ch === "'") out += "&#39;";
    else out += ch;
  }
  return out;
}

describe("html()", () => {
  const cases: { name: string; got: () => SafeHTML; want: string }[] = [
    { name: "plain text", got: () => html`<p>${"hello"}</p>`, want: "<p>hello</p>" },
    {
      name: "markup in text",
      got: () => html`<p>${"<script>alert(1)</script>"}</p>`,
      want: "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>",
    },
    {
      name: "double quotes in an attribute",
      got: () => html`<a title="${'x" onclick="evil()'}">`,
      want: '<a title="x&quot; onclick=&quot;evil()">',
    },
    {
      name: "single quotes in an attribute",
      got: () => html`<a title='${"x' onclick='evil()"}'>`,
      want: "<a title='x&#39; onclick=&#39;evil()'>",
    },
    { name: "an ampersand entity", got: () => html`${"&amp;"}`, want: "&amp;amp;" },
    {
      name: "a nested template, not double-escaped",
      got: () => html`<ul>${html`<li>${"a&b"}</li>`}</ul>`,
      want: "<ul><li>a&amp;b</li></ul>",
    },
    {
      name: "an array of templates",
      got: () => html`<ul>${["<1>", "2"].map((x) => html`<li>${x}</li>`)}</ul>`,
      want: "<ul><li>&lt;1&gt;</li><li>2</li></ul>",
    },
    { name: "an array of strings", got: () => html`${["<a>", "<b>"]}`, want: "&lt;a&gt;&lt;b&gt;" },
    { name: "nested arrays", got: () => html`${[["<"], [html`<br>`]]}`, want: "&lt;<br>" },
    { name: "undefined", got: () => html`<p>${undefined}</p>`, want: "<p></p>" },
    { name: "null", got: () => html`<p>${null}</p>`, want: "<p></p>" },
    { name: "false", got: () => html`<p>${false}</p>`, want: "<p></p>" },
    { name: "a false conditional", got: () => html`<p>${1 > 2 && html`<b>no</b>`}</p>`, want: "<p></p>" },
    { name: "true, 0 and NaN as text", got: () => html`${true} ${0} ${Number.NaN}`, want: "true 0 NaN" },
    { name: "raw trusted markup", got: () => html`<div>${raw("<hr>")}</div>`, want: "<div><hr></div>" },
    { name: "an object's toString", got: () => html`${{ toString: () => "<o>" }}`, want: "&lt;o&gt;" },
    { name: "no interpolations", got: () => html`<p>static & literal</p>`, want: "<p>static & literal</p>" },
  ];
  for (const { name, got, want } of cases) {
    test(`renders ${name}`, () => {
      const out = got();
      assert.ok(out instanceof SafeHTML);
      assert.equal(out.toString(), want);
      assert.equal(`${out}`, want);
    });
  }

  // Issue 44: an array (a list's rows, a row's cells) is appended item by item; a join at each level copied every row again.
  test("renders nested arrays without joining them", () => {
    const want = "<table>" + [1, 2, 3].map((n) => `<tr><td>a</td><td>&lt;b&gt;</td><td>${n}</td></tr>`).join("") + "</table>";
    // node:test cannot mock a method of Array.prototype (an array itself): counted by hand, and put back.
    const originalJoin = Array.prototype.join;
    let joins = 0;
    Array.prototype.join = function (this: unknown[], separator?: string): string {
      joins++;
      return originalJoin.call(this, separator);
    };
    let got: string;
    try {
      const rows = [1, 2, 3].map((n) => html`<tr>${["a", "<b>", n].map((cell) => html`<td>${cell}</td>`)}</tr>`);
      got = html`<table>${rows}</table>`.toString();
    } finally {
      Array.prototype.join = originalJoin;
    }
    assert.equal(got, want);
    assert.equal(joins, 0);
  });
});

describe("escapeHTML()", () => {
  test("agrees with a reference escaper on random strings", () => {
    const alphabet = ["&", "<", ">", '"', "'", "a", " ", "é", "\u0000", "\n", "=", "`", "/", "😀", ";", "#"];
    for (let i = 0; i < 2000; i++) {
      let s = "";
      const len = randomInt(0, 40);
      for (let j = 0; j < len; j++) s += alphabet[randomInt(0, alphabet.length)];
      assert.equal(escapeHTML(s), referenceEscape(s), JSON.stringify(s));
      assert.equal(html`${s}`.toString(), referenceEscape(s));
    }
  });

  // Issue 44: a list page escapes every cell, and most cells have nothing to escape; they are returned as they are, with
  // no replace run over them.
  test("returns text with nothing to escape as it is, without replacing", (t) => {
    const replace = t.mock.method(String.prototype, "replace");
    assert.equal(escapeHTML("Taxi to the airport, 23.50 EUR"), "Taxi to the airport, 23.50 EUR");
    assert.equal(replace.mock.callCount(), 0);
    assert.equal(escapeHTML("Tom & Jerry"), "Tom &amp; Jerry");
    assert.equal(replace.mock.callCount(), 1);
  });

  test("leaves no markup-significant character unescaped", () => {
    assert.doesNotMatch(escapeHTML(`<>"'&`.repeat(3)), /[<>"']|&(?!amp;|lt;|gt;|quot;|#39;)/);
  });
});
