import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { NewAssets } from "../../lib/assets/index.ts";
import { FIXTURES, rawGet, serve } from "./support.ts";

// test/fixtures/assets/secret.txt sits beside the served directory; no reply may carry it.
const SECRET = "SECRET-OUTSIDE-ASSET-ROOT";

describe("Assets.Handler() path traversal", () => {
  const assets = NewAssets(join(FIXTURES, "public"));
  const css = assets.Path("app.css");
  const logo = assets.Path("img/logo.svg");
  const nasty = [
    "/static/../secret.txt",
    "/static/..%2fsecret.txt",
    "/static/..%2Fsecret.txt",
    "/static/%2e%2e/secret.txt",
    "/static/%2E%2E%2Fsecret.txt",
    "/static/%252e%252e%252fsecret.txt",
    "/static/..%5csecret.txt",
    "/static/..\\secret.txt",
    "/static/img/../../secret.txt",
    "/static/img/..%2f..%2fsecret.txt",
    `${css}/../../secret.txt`,
    `${css}%00`,
    "/static/%00",
    "/static/\0../secret.txt",
    "/static//etc/passwd",
    "/etc/passwd",
    "/static/C:\\Windows\\win.ini",
    "/static/%2fetc%2fpasswd",
    "/static/.hidden",
    "/static/img",
    "/static/img/",
    `${css}/`,
    logo.replace("img/", "img%2f"),
    logo.replace("img/", "img%5c"),
    logo.replace("img/", "img\\"),
    "/static/app.css",
    `http://127.0.0.1/static/../secret.txt`,
    "*",
  ];

  it("has a table of at least 12 nasty paths", () => assert.ok(nasty.length >= 12));

  for (const target of nasty) {
    it(`refuses ${JSON.stringify(target)} with 404 or 400 and never leaks the secret`, async (t) => {
      const port = await serve(t, assets.Handler());
      const r = await rawGet(port, target);
      assert.ok(r.status === 404 || r.status === 400, `status ${r.status}`);
      assert.ok(!r.text.includes(SECRET));
      assert.ok(!r.text.includes("root:"));
    });
  }

  it("still serves the real assets on the same server", async (t) => {
    const port = await serve(t, assets.Handler());
    assert.equal((await rawGet(port, css)).status, 200);
    assert.equal((await rawGet(port, logo)).status, 200);
  });
});
