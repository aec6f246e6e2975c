import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { contentTypeFor, DEFAULT_CONTENT_TYPE } from "../../lib/assets/content-type.ts";

describe("contentTypeFor()", () => {
  const cases: { input: string; want: string }[] = [
    { input: "app.css", want: "text/css; charset=utf-8" },
    { input: "app.js", want: "text/javascript; charset=utf-8" },
    { input: "mod.mjs", want: "text/javascript; charset=utf-8" },
    { input: "data.json", want: "application/json; charset=utf-8" },
    { input: "app.js.map", want: "application/json; charset=utf-8" },
    { input: "img/logo.svg", want: "image/svg+xml; charset=utf-8" },
    { input: "img/a.png", want: "image/png" },
    { input: "img/a.jpg", want: "image/jpeg" },
    { input: "img/a.JPEG", want: "image/jpeg" },
    { input: "img/a.webp", want: "image/webp" },
    { input: "favicon.ico", want: "image/x-icon" },
    { input: "fonts/inter.woff2", want: "font/woff2" },
    { input: "robots.txt", want: "text/plain; charset=utf-8" },
    { input: "offline.html", want: "text/html; charset=utf-8" },
    { input: "engine.wasm", want: "application/wasm" },
    { input: "blob.xyz", want: DEFAULT_CONTENT_TYPE },
    { input: "LICENSE", want: DEFAULT_CONTENT_TYPE },
    { input: "dir.css/file", want: DEFAULT_CONTENT_TYPE },
  ];
  for (const { input, want } of cases) {
    it(`maps ${input} to ${want}`, () => assert.equal(contentTypeFor(input), want));
  }
  it("marks text types, and only those, with charset=utf-8", () => {
    assert.equal(DEFAULT_CONTENT_TYPE, "application/octet-stream");
    assert.doesNotMatch(contentTypeFor("a.png"), /charset/);
  });
});
