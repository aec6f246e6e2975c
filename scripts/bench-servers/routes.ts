/*
 * The application every HTTP benchmark server implements, so that all of
 * them do the same work: `GET /` answers a plain-text hello, 50 REST-style
 * routes are registered (10 resources x list, read, create, update,
 * delete), `GET /users/{id}` answers a small JSON object naming the id, and
 * anything else is a 404. The comparison servers in bench/ import this
 * compiled module, so the route table is defined once.
 */

/** The hello-world body, `text/plain`. */
export const HELLO_BODY: string = "Hello, World!";

/** The 404 body (the same text the latch router writes). */
export const NOT_FOUND_BODY: string = "404 page not found\n";

/** Resources of the route table; `users` is the one the routed scenario hits. */
export const RESOURCES: readonly string[] = [
  "users",
  "posts",
  "comments",
  "teams",
  "projects",
  "invoices",
  "orders",
  "products",
  "tags",
  "files",
];

/** One registered route: method and a path with `{name}` wildcards. */
export interface BenchRoute {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
}

/** The 50 routes, in registration order. */
export const ROUTES: readonly BenchRoute[] = RESOURCES.flatMap((r): BenchRoute[] => [
  { method: "GET", path: `/${r}` },
  { method: "GET", path: `/${r}/{id}` },
  { method: "POST", path: `/${r}` },
  { method: "PUT", path: `/${r}/{id}` },
  { method: "DELETE", path: `/${r}/{id}` },
]);

/** Rewrites `{name}` wildcards as `:name` (Fastify, Hono and Express syntax). */
export function colonPath(path: string): string {
  return path.replace(/\{([a-z]+)\}/g, ":$1");
}

/** The JSON body of `GET /users/{id}` (and of the other resources' reads). */
export function userBody(resource: string, id: string): string {
  return JSON.stringify({ id, kind: resource, name: `${resource} ${id}` });
}

/** The body other routes answer with (never hit by the benchmark). */
export function otherBody(method: string, path: string): string {
  return JSON.stringify({ ok: true, route: `${method} ${path}` });
}

/**
 * Writes the port the server listens on as one JSON line on stdout (the
 * orchestrator reads it) and exits cleanly on SIGTERM, so that
 * `--cpu-prof` gets to write its profile.
 */
export function announce(port: number): void {
  process.on("SIGTERM", () => process.exit(0));
  process.stdout.write(JSON.stringify({ port }) + "\n");
}
