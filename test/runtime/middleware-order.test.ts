/*
 * The middleware order of SPEC §4.4 where it concerns locales: the chrome
 * strips a declared locale prefix OUTSIDE `Wrap`, so the application's own
 * middleware sees the same path and locale as its routes; `/static/` is never
 * stripped; the probes stay outside `Wrap` with locales declared. The rest
 * of the order (recovery outside the security headers, probes outside
 * `Wrap`, headers on a probe's 500) is pinned in test/runtime/security-headers.test.ts
 * and test/runtime/chrome.test.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { NewAssets } from "../../lib/assets/index.ts";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { type HandlerFunc } from "../../lib/http/index.ts";
import { LocaleFrom } from "../../lib/i18n/index.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

const PUBLIC = fileURLToPath(new URL("../../../test/fixtures/assets/public/", import.meta.url));
const LOCALES = ["en", "fr", "de"];

interface Seen {
  wrap: { url: string | undefined; locale: string }[];
  app: (string | undefined)[];
}

/** Options whose Wrap and routes record the path (and, for Wrap, the locale) they see. */
function recording(app: HandlerFunc = (_req, res) => void res.end("app")): {
  seen: Seen;
  Mux: HandlerFunc;
  Wrap: (next: HandlerFunc) => HandlerFunc;
} {
  const seen: Seen = { wrap: [], app: [] };
  return {
    seen,
    Mux: (req, res) => {
      seen.app.push(req.url);
      return app(req, res);
    },
    Wrap: (next) => (req, res) => {
      seen.wrap.push({ url: req.url, locale: LocaleFrom(req) });
      return next(req, res);
    },
  };
}

describe("Handler() locale-prefix stripping outside Wrap (SPEC §4.4)", () => {
  test("Wrap sees /x and the locale fr for a request to /fr/x, as the routes do", async (t) => {
    const { seen, Mux, Wrap } = recording();
    const { port } = await startHandler(t, { Mux, Wrap, Locales: LOCALES });
    for (const path of ["/fr/x", "/fr/x/y?q=1", "/de", "/x"]) assert.equal((await fetchHTTP(port, path)).status, 200, path);
    assert.deepEqual(seen.wrap, [
      { url: "/x", locale: "fr" },
      { url: "/x/y?q=1", locale: "fr" },
      { url: "/", locale: "de" },
      { url: "/x", locale: "en" },
    ]);
    assert.deepEqual(seen.app, ["/x", "/x/y?q=1", "/", "/x"]);
  });

  test("leaves /static/ unstripped through Wrap to the asset handler, whatever locale the request asks for", async (t) => {
    const assets = NewAssets(PUBLIC);
    const serveAssets = assets.Handler();
    const { seen, Mux, Wrap } = recording((req, res) =>
      (req.url ?? "").startsWith("/static/") ? serveAssets(req, res) : void res.end("app"),
    );
    const { port } = await startHandler(t, { Mux, Wrap, Locales: LOCALES });
    const css = assets.Path("app.css");
    assert.match(css, /^\/static\//);
    const reply = await fetchHTTP(port, css, { headers: { Cookie: "framework_locale=fr", "Accept-Language": "de" } });
    assert.equal(reply.status, 200);
    assert.equal(reply.body, readFileSync(join(PUBLIC, "app.css"), "utf8"));
    assert.equal(reply.headers["cache-control"], "public, max-age=31536000, immutable");
    assert.deepEqual(
      seen.wrap.map((w) => w.url),
      [css],
    );
    assert.deepEqual(seen.app, [css]);
  });

  test("answers the probes outside Wrap with locales declared", async (t) => {
    const refuseAll = (): HandlerFunc => (_req, res) => {
      res.statusCode = 403;
      res.end("forbidden by Wrap");
    };
    const { port } = await startHandler(t, {
      Mux: (_req: IncomingMessage, res: ServerResponse) => void res.end("app"),
      Wrap: refuseAll,
      Locales: LOCALES,
    });
    for (const path of ["/healthz", "/api/version"]) {
      const reply = await fetchHTTP(port, path);
      assert.equal(reply.status, 200, path);
      assert.equal(reply.headers["x-frame-options"], "DENY", `${path} carries the baseline headers`);
    }
    assert.equal((await fetchHTTP(port, "/fr/x")).status, 403, "everything else goes through Wrap");
  });

  test("recovers a panic in a localized route with a 500 that keeps the baseline headers", async (t) => {
    const { seen, Mux, Wrap } = recording(() => {
      throw new Error("route exploded");
    });
    const { port, log } = await startHandler(t, { Mux, Wrap, Locales: LOCALES });
    const reply = await fetchHTTP(port, "/fr/boom");
    assert.equal(reply.status, 500);
    for (const [name, value] of securityHeaderList()) assert.equal(reply.headers[name.toLowerCase()], value, name);
    assert.deepEqual(seen.wrap, [{ url: "/boom", locale: "fr" }]);
    assert.equal(log.lines().filter((l) => l["level"] === "error").length, 1);
  });
});
