/*
 * Rendering through the request context (SPEC §2.2): an action renders with
 * `Ctx.Render`; when the application never set it, the action answers a
 * logged 500 (SPEC §7 "Generated action with nil Render") instead of
 * crashing or answering an empty 200.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { HTTPError } from "../http/index.ts";
import type { Ctx } from "./options.ts";

/**
 * Renders `view` with `data` through `ctx.Render`. Throws `HTTPError`
 * ERR_HTTP_NO_RENDER when `Render` is unset; panic recovery logs it with a
 * reference and answers 500.
 */
export async function RenderView(ctx: Ctx, req: IncomingMessage, res: ServerResponse, view: string, data: unknown): Promise<void> {
  if (ctx.Render === undefined) {
    throw new HTTPError("ERR_HTTP_NO_RENDER", `render ${view}: Ctx.Render is not set`);
  }
  await ctx.Render(req, res, view, data);
}
