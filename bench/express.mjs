// Express 5 serving the benchmark application (scripts/bench-servers/routes.ts),
// default settings (x-powered-by and etag left on, as shipped). Usage: node bench/express.mjs
import express from "express";
import { announce, colonPath, HELLO_BODY, otherBody, ROUTES, userBody } from "../dist/scripts/bench-servers/routes.js";

const app = express();
app.get("/", (_req, res) => res.type("text/plain; charset=utf-8").send(HELLO_BODY));
for (const route of ROUTES) {
  const resource = route.path.split("/")[1];
  const read = route.method === "GET" && route.path.endsWith("{id}");
  app[route.method.toLowerCase()](
    colonPath(route.path),
    read
      ? (req, res) => res.type("application/json").send(userBody(resource, req.params.id))
      : (_req, res) => res.type("application/json").send(otherBody(route.method, route.path)),
  );
}
const server = app.listen(0, "127.0.0.1", () => announce(server.address().port));
server.keepAliveTimeout = 60_000;
