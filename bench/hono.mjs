// Hono 4 on @hono/node-server serving the benchmark application
// (scripts/bench-servers/routes.ts), default router. With the argument
// `headers`, a middleware first sets latch's security headers
// (securityHeaderList()) on every response, so it sends latch's bytes.
// Usage: node bench/hono.mjs [headers]
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { securityHeaderList } from "../dist/lib/runtime/security-headers.js";
import { announce, colonPath, HELLO_BODY, otherBody, ROUTES, userBody } from "../dist/scripts/bench-servers/routes.js";

const app = new Hono();
if (process.argv[2] === "headers") {
  const headers = securityHeaderList();
  app.use((c, next) => {
    for (const [name, value] of headers) c.header(name, value);
    return next();
  });
}
app.get("/", (c) => c.text(HELLO_BODY));
for (const route of ROUTES) {
  const resource = route.path.split("/")[1];
  const read = route.method === "GET" && route.path.endsWith("{id}");
  const handler = read
    ? (c) => c.body(userBody(resource, c.req.param("id")), 200, { "Content-Type": "application/json" })
    : (c) => c.body(otherBody(route.method, route.path), 200, { "Content-Type": "application/json" });
  app.on(route.method, colonPath(route.path), handler);
}
app.notFound((c) => c.text("404 page not found\n", 404));
serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => announce(info.port));
