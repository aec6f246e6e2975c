import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { ASSET_CACHE_CONTROL } from "../../lib/assets/assets.ts";
import { NewAssets } from "../../lib/assets/index.ts";
import { hashBytes } from "../../lib/assets/load.ts";
import { FIXTURES, fetchRaw, serve } from "./support.ts";

const PUBLIC = join(FIXTURES, "public");
const CSS = readFileSync(join(PUBLIC, "app.css"));

describe("Assets.Handler()", () => {
  const assets = NewAssets(PUBLIC);
  const handler = assets.Handler();
  const css = assets.Path("app.css");

  it("serves identity with immutable caching, a strong ETag, type, nosniff and length", async (t) => {
    const port = await serve(t, handler);
    const r = await fetchRaw(port, css);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, CSS);
    assert.equal(r.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.equal(ASSET_CACHE_CONTROL, "public, max-age=31536000, immutable");
    assert.equal(r.headers["etag"], `"${hashBytes(CSS)}"`);
    assert.equal(r.headers["content-type"], "text/css; charset=utf-8");
    assert.equal(r.headers["x-content-type-options"], "nosniff");
    assert.equal(r.headers["content-length"], String(CSS.length));
    assert.equal(r.headers["content-encoding"], undefined);
    assert.equal(r.headers["vary"], "Accept-Encoding");
  });

  it("ignores a query string", async (t) => {
    const port = await serve(t, handler);
    assert.equal((await fetchRaw(port, css + "?v=1")).status, 200);
  });

  it("negotiates br and gzip; each body decompresses to the original with its own ETag", async (t) => {
    const port = await serve(t, handler);
    const br = await fetchRaw(port, css, { headers: { "accept-encoding": "gzip, deflate, br" } });
    assert.equal(br.headers["content-encoding"], "br");
    assert.ok(br.body.length < CSS.length);
    assert.equal(br.headers["content-length"], String(br.body.length));
    assert.deepEqual(brotliDecompressSync(br.body), CSS);
    assert.equal(br.headers["etag"], `"${hashBytes(br.body)}"`);
    const gz = await fetchRaw(port, css, { headers: { "accept-encoding": "gzip;q=1, br;q=0" } });
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.deepEqual(gunzipSync(gz.body), CSS);
    assert.equal(gz.headers["etag"], `"${hashBytes(gz.body)}"`);
    assert.equal(gz.headers["vary"], "Accept-Encoding");
    const plain = await fetchRaw(port, css, { headers: { "accept-encoding": "br;q=0, gzip;q=0" } });
    assert.equal(plain.headers["content-encoding"], undefined);
    assert.deepEqual(plain.body, CSS);
    const etags = new Set([br.headers["etag"], gz.headers["etag"], plain.headers["etag"]]);
    assert.equal(etags.size, 3);
  });

  it("sends identity when compression would not shrink the file", async (t) => {
    const port = await serve(t, handler);
    const r = await fetchRaw(port, assets.Path("robots.txt"), { headers: { "accept-encoding": "br, gzip" } });
    assert.equal(r.headers["content-encoding"], undefined);
    assert.equal(r.body.toString(), "ok\n");
  });

  it("answers 406 when every coding it holds is refused", async (t) => {
    const port = await serve(t, handler);
    const r = await fetchRaw(port, assets.Path("robots.txt"), { headers: { "accept-encoding": "identity;q=0" } });
    assert.equal(r.status, 406);
  });

  it("refuses in plain text with nosniff and a length: 404, 405 and 406 bodies", async (t) => {
    const port = await serve(t, handler);
    const refusals: [string, Record<string, string>, number, string][] = [
      ["GET", {}, 404, "404 page not found\n"],
      ["POST", {}, 405, "405 method not allowed\n"],
      ["GET", { "accept-encoding": "identity;q=0" }, 406, "406 no acceptable content coding\n"],
    ];
    for (const [method, headers, status, body] of refusals) {
      const r = await fetchRaw(port, status === 404 ? "/static/missing.css" : assets.Path("robots.txt"), { method, headers });
      assert.equal(r.status, status);
      assert.equal(r.body.toString(), body);
      assert.equal(r.headers["content-type"], "text/plain; charset=utf-8");
      assert.equal(r.headers["x-content-type-options"], "nosniff");
      assert.equal(r.headers["content-length"], String(body.length));
    }
  });

  it("answers 304 to a matching If-None-Match, including lists, weak tags and *", async (t) => {
    const port = await serve(t, handler);
    const first = await fetchRaw(port, css, { headers: { "accept-encoding": "br" } });
    const etag = first.headers["etag"] ?? "";
    for (const inm of [etag, `"nope", ${etag}`, `W/${etag}`, "*"]) {
      const r = await fetchRaw(port, css, { headers: { "accept-encoding": "br", "if-none-match": inm } });
      assert.equal(r.status, 304, inm);
      assert.equal(r.body.length, 0);
      assert.equal(r.headers["etag"], etag);
      assert.equal(r.headers["cache-control"], ASSET_CACHE_CONTROL);
    }
    const other = await fetchRaw(port, css, { headers: { "accept-encoding": "gzip", "if-none-match": etag } });
    assert.equal(other.status, 200, "the br tag does not validate the gzip variant");
  });

  it("answers HEAD with the GET headers and no body", async (t) => {
    const port = await serve(t, handler);
    const r = await fetchRaw(port, css, { method: "HEAD", headers: { "accept-encoding": "gzip" } });
    assert.equal(r.status, 200);
    assert.equal(r.body.length, 0);
    assert.equal(r.headers["content-encoding"], "gzip");
    assert.ok(Number(r.headers["content-length"]) > 0);
  });

  it("answers 405 with Allow to other methods", async (t) => {
    const port = await serve(t, handler);
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const r = await fetchRaw(port, css, { method });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers["allow"], "GET, HEAD");
    }
  });

  it("answers 404 to unknown names, bare names and stale hashes", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "latch-assets-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "a.css"), "one");
    const stale = NewAssets(dir).Path("a.css");
    writeFileSync(join(dir, "a.css"), "two");
    const fresh = NewAssets(dir);
    const port = await serve(t, fresh.Handler());
    assert.equal((await fetchRaw(port, fresh.Path("a.css"))).status, 200);
    for (const path of [stale, "/static/a.css", "/static/missing-0123456789.css", "/static/"]) {
      const r = await fetchRaw(port, path);
      assert.equal(r.status, 404, path);
      assert.equal(r.headers["x-content-type-options"], "nosniff");
    }
  });

  it("serves the content type of the table, octet-stream for unknown extensions", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "latch-assets-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "app.js"), "export const x = 1;\n");
    const local = NewAssets([dir, PUBLIC]);
    const port = await serve(t, local.Handler());
    const cases = [
      { name: "app.js", want: "text/javascript; charset=utf-8" },
      { name: "img/logo.svg", want: "image/svg+xml; charset=utf-8" },
      { name: "blob.xyz", want: "application/octet-stream" },
    ];
    for (const { name, want } of cases) {
      const r = await fetchRaw(port, local.Path(name));
      assert.equal(r.headers["content-type"], want, name);
    }
  });
});
