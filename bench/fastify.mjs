// Fastify 5 serving the benchmark application (scripts/bench-servers/routes.ts),
// default options, no plugins. With the argument `headers`, an onRequest hook
// first sets latch's security headers (securityHeaderList()) on every reply,
// so it sends latch's bytes. Usage: node bench/fastify.mjs [headers]
import Fastify from "fastify";
import { securityHeaderList } from "../dist/lib/runtime/security-headers.js";
import { announce, colonPath, HELLO_BODY, otherBody, ROUTES, userBody } from "../dist/scripts/bench-servers/routes.js";

const app = Fastify({ logger: false });
if (process.argv[2] === "headers") {
  const headers = Object.fromEntries(securityHeaderList());
  app.addHook("onRequest", (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
}
app.get("/", (_req, reply) => reply.type("text/plain; charset=utf-8").send(HELLO_BODY));
for (const route of ROUTES) {
  const resource = route.path.split("/")[1];
  const read = route.method === "GET" && route.path.endsWith("{id}");
  app.route({
    method: route.method,
    url: colonPath(route.path),
    handler: read
      ? (req, reply) => reply.type("application/json").send(userBody(resource, req.params.id))
      : (_req, reply) => reply.type("application/json").send(otherBody(route.method, route.path)),
  });
}
const address = await app.listen({ port: 0, host: "127.0.0.1" });
announce(Number(new URL(address).port));
