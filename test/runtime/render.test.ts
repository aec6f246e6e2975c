import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { discardLogger } from "../../lib/http/index.ts";
import { RenderView, type Ctx } from "../../lib/index.ts";
import { fetchHTTP, startHandler } from "../_support/http.ts";

function ctxWith(render: Ctx["Render"]): Ctx {
  return {
    DB: undefined,
    Logger: discardLogger,
    Assets: undefined,
    Actor: { Human: true, Name: "", String: () => "human" },
    Render: render,
    ErrorPage: undefined,
  };
}

describe("RenderView()", () => {
  test("renders through Ctx.Render with the view and data", async (t) => {
    const ctx = ctxWith((_req, res, view, data) => {
      res.end(`${view}:${JSON.stringify(data)}`);
    });
    const { port } = await startHandler(t, { Mux: (req, res) => RenderView(ctx, req, res, "notes/list", { n: 1 }) });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 200);
    assert.equal(reply.body, 'notes/list:{"n":1}');
  });

  test("answers a logged 500 when Ctx.Render is unset (SPEC §7)", async (t) => {
    const ctx = ctxWith(undefined);
    const { port, log } = await startHandler(t, { Mux: (req, res) => RenderView(ctx, req, res, "notes/list", {}) });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    const ref = /Reference: ([a-z2-7]{6})/.exec(reply.body)?.[1];
    assert.ok(ref !== undefined, reply.body);
    const line = log.lines().find((l) => l["ref"] === ref);
    assert.ok(line !== undefined, "the 500 is logged under its reference");
    assert.match(JSON.stringify(line), /ERR_HTTP_NO_RENDER/);
  });
});
