import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isHTTPError } from "../../lib/http/errors.ts";
import { writeJSON } from "../../lib/http/index.ts";
import { ctxFrom, OpenDB, withCtx, writeError, type Ctx, type ErrorPageFunc, type RenderFunc } from "../../lib/index.ts";
import { Mux } from "../../lib/router/index.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

describe("CtxFrom()", () => {
  it("gives every request the Ctx the runtime built: DB, Logger, Assets, Render, ErrorPage and a human Actor", async (t) => {
    const db = OpenDB(":memory:");
    t.after(() => db.close());
    const assets = { Path: (name: string) => `/static/${name}` };
    const render: RenderFunc = (_req, res, view) => void res.end(view);
    const errorPage: ErrorPageFunc = (_req, res, status, ref) => {
      res.statusCode = status;
      res.end(`page ${status} ${ref}`);
    };
    const seen: (Ctx | undefined)[] = [];
    const mux = new Mux();
    mux.Handle("GET /ctx", (req, res) => {
      const ctx = ctxFrom(req);
      seen.push(ctx);
      writeJSON(res, 200, { actor: ctx?.Actor.String(), frozen: Object.isFrozen(ctx) });
    });
    const { port, log } = await startHandler(t, { Mux: mux, DB: db, Assets: assets, Render: render, ErrorPage: errorPage });
    const reply = await fetchHTTP(port, "/ctx");
    assert.deepEqual(JSON.parse(reply.body), { actor: "human", frozen: true });
    const ctx = seen[0];
    assert.ok(ctx !== undefined);
    assert.equal(ctx.DB, db);
    assert.equal(ctx.Logger, log.logger);
    assert.equal(ctx.Assets, assets);
    assert.equal(ctx.Render, render);
    assert.equal(ctx.ErrorPage, errorPage);
    // SPEC §2.3: nothing but authentication sets the actor.
    assert.throws(() => Object.assign(ctx, { Actor: { Human: false, Name: "x", String: () => "agent:x" } }), TypeError);
  });

  it("is undefined for a request the runtime never saw", () => {
    const fake = {} as Parameters<typeof ctxFrom>[0];
    assert.equal(ctxFrom(fake), undefined);
  });
});

describe("withCtx()", () => {
  it("throws the coded ERR_HTTP_NO_CTX for a request the runtime never saw", () => {
    const handler = withCtx(() => undefined);
    const fake = {} as Parameters<typeof ctxFrom>[0];
    assert.throws(
      () => handler(fake, {} as Parameters<typeof handler>[1]),
      (e: unknown) => isHTTPError(e) && e.code === "ERR_HTTP_NO_CTX" && /^withCtx: /.test(e.message),
    );
  });

  it("hands the Ctx to the handler", async (t) => {
    const mux = new Mux();
    mux.Handle(
      "GET /w",
      withCtx((ctx, _req, res) =>
        writeJSON(res, 200, { hasDB: ctx.DB !== undefined, errorPage: ctx.ErrorPage === undefined ? "unset" : "set" }),
      ),
    );
    const { port } = await startHandler(t, { Mux: mux });
    assert.deepEqual(JSON.parse((await fetchHTTP(port, "/w")).body), { hasDB: false, errorPage: "unset" });
  });
});

describe("WriteError()", () => {
  const routes = (): Mux => {
    const mux = new Mux();
    mux.Handle("GET /missing", (req, res) => writeError(req, res, 404, "404 no such thing"));
    return mux;
  };

  it("answers through Ctx.ErrorPage with the status and a logged reference", async (t) => {
    const errorPage: ErrorPageFunc = (_req, res, status, ref) => {
      res.statusCode = status;
      res.end(`page ${status} ${ref}`);
    };
    const { port, log } = await startHandler(t, { Mux: routes(), ErrorPage: errorPage });
    const reply = await fetchHTTP(port, "/missing");
    assert.equal(reply.status, 404);
    const ref = /^page 404 ([a-z2-7]{6})$/.exec(reply.body)?.[1];
    assert.ok(ref !== undefined, reply.body);
    assert.ok(log.lines().some((line) => line["ref"] === ref && line["status"] === 404));
  });

  it("falls back to plain text when ErrorPage is unset", async (t) => {
    const { port } = await startHandler(t, { Mux: routes() });
    const reply = await fetchHTTP(port, "/missing");
    assert.equal(reply.status, 404);
    assert.match(String(reply.headers["content-type"]), /^text\/plain/);
    assert.equal(reply.body, "404 no such thing\n");
  });
});
