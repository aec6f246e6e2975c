// Rendering through `Ctx.Render`; unset, a logged 500 (SPEC §7 "Generated action with nil Render"), not an empty 200.
import type { IncomingMessage, ServerResponse } from "node:http";
import { HTTPError } from "../http/index.ts";
import type { Ctx } from "./options.ts";

/** Renders `view` with `data` through `ctx.Render`; throws `HTTPError` ERR_HTTP_NO_RENDER when `Render` is unset. */
export async function renderView(ctx: Ctx, req: IncomingMessage, res: ServerResponse, view: string, data: unknown): Promise<void> {
  if (ctx.Render === undefined) throw new HTTPError("ERR_HTTP_NO_RENDER", `render ${view}: Ctx.Render is not set`);

  await ctx.Render(req, res, view, data);
}
