/*
 * Paths an application must route because a component links to them
 * (`needRoute` marks the handler); a router answers which have no route
 * (`bindRouteCheck`) and the runtime warns at boot (`unroutedNeeds`).
 */
/** One path a component links to. */
export interface RouteNeed {
  /** The path a GET must reach, as the warning shows it: `/account/approvals/{id}` (a `{name}` stands for any one segment). */

  readonly Path: string;
  /** The option that names it, as the application wrote it: `newToolsAPI ApprovalPath`. */
  readonly Option: string;
}

const tagged = new WeakMap<object, readonly RouteNeed[]>();
const checks = new WeakMap<object, () => readonly RouteNeed[]>();

/** Marks `handler` as linking to `need`'s path; returns `handler`. */
export function needRoute<H extends object>(handler: H, need: RouteNeed): H {
  tagged.set(handler, [...(tagged.get(handler) ?? []), Object.freeze({ ...need })]);
  return handler;
}

/** The paths `handler` links to (none for a handler no component marked). */
export function routeNeedsOf(handler: object): readonly RouteNeed[] {
  return tagged.get(handler) ?? [];
}

/** Binds to `serve` (a router's request handler) the function that returns its needs without a route. */
export function bindRouteCheck(serve: object, unrouted: () => readonly RouteNeed[]): void {
  checks.set(serve, unrouted);
}

/** The needs of the handlers registered behind `serve` that have no route; none when `serve` is not a router that checks. */
export function unroutedNeeds(serve: object): readonly RouteNeed[] {
  return checks.get(serve)?.() ?? [];
}
