/*
 * Paths an application must route because a component links to them, or
 * declared a handler for them (`needRoute` marks the handler); a router
 * answers which have no route (`bindRouteCheck`) and the runtime warns at
 * boot (`unroutedNeeds`).
 */
/** One path a component links to, or one route an action declares. */
export interface RouteNeed {
  /** The path a GET must reach, as the warning shows it: `/account/approvals/{id}` (a `{name}` stands for any one segment). */

  readonly Path: string;
  /** The option that names it, as the application wrote it: `newToolsAPI ApprovalPath`. */
  readonly Option: string;
  /**
   * A route an action declares (lib/agent `defineAction`): served only by a pattern of its own for `Method` and `Path`
   * (wildcard names aside), since a wider one such as `GET /items/{id}` answers `/items/summary` with another handler.
   * Absent: any route reaching a GET of `Path` serves it.
   */
  readonly Declared?: { readonly Method: string } | undefined;
}

const tagged = new WeakMap<object, (() => readonly RouteNeed[])[]>();
const checks = new WeakMap<object, () => readonly RouteNeed[]>();

/**
 * Marks `handler` as needing `need`'s route, or each route `need()` returns when the router is checked (a registry
 * that grows after the handler is mounted); returns `handler`.
 */
export function needRoute<H extends object>(handler: H, need: RouteNeed | (() => readonly RouteNeed[])): H {
  const frozen = typeof need === "function" ? undefined : Object.freeze({ ...need });
  tagged.set(handler, [...(tagged.get(handler) ?? []), frozen === undefined ? (need as () => readonly RouteNeed[]) : () => [frozen]]);
  return handler;
}

/** Reports whether `handler` needs any route (its needs are read with `routeNeedsOf` when the router is checked). */
export function needsRoutes(handler: object): boolean {
  return tagged.has(handler);
}

/** The routes `handler` needs now (none for a handler no component marked). */
export function routeNeedsOf(handler: object): readonly RouteNeed[] {
  return (tagged.get(handler) ?? []).flatMap((needs) => needs());
}

/** Binds to `serve` (a router's request handler) the function that returns its needs without a route. */
export function bindRouteCheck(serve: object, unrouted: () => readonly RouteNeed[]): void {
  checks.set(serve, unrouted);
}

/** The needs of the handlers registered behind `serve` that have no route; none when `serve` is not a router that checks. */
export function unroutedNeeds(serve: object): readonly RouteNeed[] {
  return checks.get(serve)?.() ?? [];
}
