/*
 * The sign-in module's own pages (signin/message.ts), answered outside the
 * application's layout: the code page for a browser without the binding and
 * the page of a failed send are both complete documents in the request's
 * locale, written with their type and length.
 */
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, it } from "node:test";
import { codePage, sendFailurePage } from "../../lib/signin/message.ts";
import { sendRequest } from "../_support/http-client.ts";
import { startServer } from "../_support/server.ts";

const pages: { name: string; status: number; write: (req: IncomingMessage, res: ServerResponse) => void }[] = [
  { name: "code page", status: 200, write: (req, res) => codePage(req, res, { address: "ann@example.com", code: "123456", minutes: 10 }) },
  { name: "send failure page", status: 503, write: (req, res) => sendFailurePage(req, res, "abc234") },
];

describe("the sign-in module's own pages", () => {
  for (const page of pages) {
    it(`${page.name}: a complete document in the request's locale, with its type and length`, async (t) => {
      const { base } = await startServer(t, page.write);
      const r = await sendRequest(base, "GET", "/", {}, base);
      assert.equal(r.status, page.status);
      assert.equal(r.headers["content-type"], "text/html; charset=utf-8");
      assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.body)));
      assert.match(r.body, /^<!doctype html>\s*<html lang="en" dir="ltr">\s*<head>\s*<meta charset="utf-8">/);
      const title = /<title>([^<]+)<\/title>/.exec(r.body)?.[1];
      assert.ok(title !== undefined && title !== "", "a translated title");
      assert.ok(r.body.includes(`<h1>${title}</h1>`), "headed by its title");
      assert.match(r.body, /<\/body>\s*<\/html>$/);
    });
  }

  it("code page: no-store, no Referer, and the address and code it names", async (t) => {
    const { base } = await startServer(t, pages[0]!.write);
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.equal(r.headers["cache-control"], "no-store");
    assert.equal(r.headers["referrer-policy"], "no-referrer");
    assert.match(r.body, /<meta name="referrer" content="no-referrer">/);
    assert.ok(r.body.includes(`data-signin-address="ann@example.com"`));
    assert.ok(r.body.includes(`<code data-signin-code="123456">123456</code>`));
  });

  it("send failure page: names the reference", async (t) => {
    const { base } = await startServer(t, pages[1]!.write);
    const r = await sendRequest(base, "GET", "/", {}, base);
    assert.ok(r.body.includes("abc234"));
    assert.equal(r.headers["cache-control"], undefined);
  });
});
