/*
 * The README's example, compiled with the rest of the project so it cannot
 * drift: passwordless sign-in in front of one page. Run it with
 * `INSTANCE_KEY=... node dist/examples/minimal/main.js --addr 127.0.0.1:8080`.
 */
import { crossOriginProtection, Mux, Run, html, type HandlerFunc } from "../../lib/index.ts";
import { mergeSchemas } from "../../lib/db/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";

const Origin = process.env["ORIGIN"] ?? "http://localhost:8080";

const signinPage: HandlerFunc = (_req, res) => {
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.end(html`<form method="post" action="/signin"><input name="email" type="email"><button>Email me a link</button></form>`.toString());
};

await Run({
  DBPath: "minimal.db", // relative: lives in $STATE_DIRECTORY when set
  Origin,
  Schema: mergeSchemas(session.Schema, signin.Schema),
  Wrap: (next) => crossOriginProtection({ Origin })(next),
  Router: (db) => {
    if (db === undefined) throw new Error("minimal: no database");
    const auth = signin.create({ DB: db, Origin, InstanceKey: process.env["INSTANCE_KEY"] ?? "", SigninPath: "/signin", SignedInPath: "/" });
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
