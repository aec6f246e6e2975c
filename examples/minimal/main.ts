/*
 * The README's example, compiled with the rest of the project so it cannot
 * drift: passwordless sign-in in front of one page. Run it with
 * `INSTANCE_KEY=... node dist/examples/minimal/main.js --addr 127.0.0.1:8080`.
 * test/e2e/minimal.test.ts checks that README.md's first sample is this
 * file and that the database stays out of the working directory.
 */
import { Mux, Run, StateDirectory } from "../../lib/index.ts";
import { crossOriginProtection, html, type HandlerFunc } from "../../lib/http/index.ts";
import { mergeSchemas } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";

const Origin = process.env["ORIGIN"] ?? "http://localhost:8080";

const signinPage: HandlerFunc = (_req, res) => {
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(html`<form method="post" action="/signin"><input name="email" type="email"><button>Email me a link</button></form>`.toString());
};

await Run({
  // A relative DBPath goes in $STATE_DIRECTORY when it is set (systemd), else in the working directory: so ./data here.
  DBPath: StateDirectory() === undefined ? "data/minimal.db" : "minimal.db",
  Origin,
  Schema: mergeSchemas(session.Schema, signin.Schema),
  Wrap: (next) => crossOriginProtection({ Origin })(next),
  Router: (db) => {
    if (db === undefined) throw new Error("minimal: no database");
    const auth = signin.create({
      DB: db,
      Origin,
      InstanceKey: process.env["INSTANCE_KEY"] ?? "",
      SigninPath: "/signin",
      SignedInPath: "/",
    });
    const mux = new Mux();
    mux.Handle("GET /signin", signinPage);
    mux.Handle("POST /signin", auth.Begin);
    mux.Handle("GET /auth/verify", auth.Verify);
    mux.With(auth.RequireSession).Handle("GET /{$}", (req, res) => {
      res.end(`Hello, ${signin.From(req)?.Subject ?? ""}\n`);
    });
    return mux;
  },
});
