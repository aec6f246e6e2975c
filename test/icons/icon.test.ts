import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { html, SafeHTML } from "../../lib/http/index.ts";
import { Icon, IconSlugs } from "../../lib/icons/index.ts";

const WANT = ["mail", "key", "lock", "check", "x", "alert", "info", "spinner", "user", "sign-out", "globe"];

interface Element {
  name: string;
  attrs: Map<string, string>;
}

// A strict little XML reader for our own markup: every tag well-formed, every
// attribute quoted and unique, tags balanced, no text between tags.
function parseSVG(markup: string): Element[] {
  const tag = /<(\/?)([a-z]+)((?:\s+[a-zA-Z:-]+="[^"<>&]*")*)\s*(\/?)>/y;
  const attr = /\s+([a-zA-Z:-]+)="([^"]*)"/g;
  const stack: string[] = [];
  const out: Element[] = [];
  let at = 0;
  while (at < markup.length) {
    tag.lastIndex = at;
    const m = tag.exec(markup);
    assert.ok(m, `malformed markup at ${at}: ${markup.slice(at, at + 30)}`);
    const [, close, name = "", attrText = "", selfClose] = m;
    if (close === "/") {
      assert.equal(stack.pop(), name, `unbalanced </${name}>`);
    } else {
      const attrs = new Map<string, string>();
      for (const [, key = "", value = ""] of attrText.matchAll(attr)) {
        assert.ok(!attrs.has(key), `duplicate attribute ${key}`);
        attrs.set(key, value);
      }
      out.push({ name, attrs });
      if (selfClose !== "/") stack.push(name);
    }
    at = tag.lastIndex;
    if (stack.length === 0) break;
  }
  assert.equal(at, markup.length, "content after the root element");
  assert.deepEqual(stack, [], "unclosed elements");
  return out;
}

describe("IconSlugs()", () => {
  it("returns exactly the 11 slugs", () => {
    assert.equal(IconSlugs().length, 11);
    assert.deepEqual(IconSlugs(), WANT);
  });
  it("returns a fresh array each call", () => {
    IconSlugs().pop();
    assert.equal(IconSlugs().length, 11);
  });
});

describe("Icon()", () => {
  for (const slug of WANT) {
    it(`renders ${slug} as a well-formed, decorative 24x24 stroked <svg>`, () => {
      const icon = Icon(slug);
      assert.ok(icon instanceof SafeHTML);
      const elements = parseSVG(icon.toString());
      const [root, ...shapes] = elements;
      assert.equal(root?.name, "svg");
      const want: [string, string][] = [
        ["xmlns", "http://www.w3.org/2000/svg"],
        ["viewBox", "0 0 24 24"],
        ["width", "24"],
        ["height", "24"],
        ["fill", "none"],
        ["stroke", "currentColor"],
        ["stroke-width", "2"],
        ["stroke-linecap", "round"],
        ["stroke-linejoin", "round"],
        ["aria-hidden", "true"],
        ["focusable", "false"],
        ["class", `icon icon-${slug}`],
      ];
      for (const [key, value] of want) assert.equal(root?.attrs.get(key), value, key);
      assert.ok(shapes.length > 0, "draws something");
      for (const shape of shapes) {
        assert.ok(["path", "circle", "rect"].includes(shape.name), shape.name);
        assert.ok(!shape.attrs.has("fill") && !shape.attrs.has("stroke-width"), "style lives on <svg>");
        const d = shape.attrs.get("d");
        if (d !== undefined) assert.match(d, /^M[MmLlHhVvCcSsAaZz0-9.,\s-]+$/);
        if (shape.name === "circle") {
          const [cx, cy, r] = ["cx", "cy", "r"].map((k) => Number(shape.attrs.get(k)));
          assert.ok(cx! - r! >= 2 && cx! + r! <= 22 && cy! - r! >= 2 && cy! + r! <= 22, "circle stays inside the margin");
        }
        if (shape.name === "rect") {
          const [x, y, w, h] = ["x", "y", "width", "height"].map((k) => Number(shape.attrs.get(k)));
          assert.ok(x! >= 2 && y! >= 2 && x! + w! <= 22 && y! + h! <= 22, "rect stays inside the margin");
        }
      }
    });
  }

  it("renders different markup for each slug", () => {
    assert.equal(new Set(WANT.map((s) => Icon(s).toString())).size, 11);
  });

  it("renders nothing for an unknown slug", () => {
    for (const slug of ["", "Mail", "unknown", "__proto__", "constructor", "toString", "mail "]) {
      const icon = Icon(slug);
      assert.ok(icon instanceof SafeHTML);
      assert.equal(icon.toString(), "", slug);
    }
  });

  it("interpolates into html`` without escaping", () => {
    const out = html`<button>${Icon("x")} Close</button>`.toString();
    assert.match(out, /^<button><svg [^>]*class="icon icon-x">.*<\/svg> Close<\/button>$/);
  });
});
