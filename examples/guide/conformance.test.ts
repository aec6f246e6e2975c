/*
 * The conformance suite (`latch/manifest/conformance`) on the guide's own
 * resources (`projects`, and `expenses` that refers to it), as step 6 of
 * docs/guide.md runs it: an app factory builds the application the way
 * main.ts does (the runtime's Handler, emailed-link sign-in, the guide's
 * `mountExpenses` and `renderResource` in the starter's layout) with the
 * suite's capturing mailer; `startApp` serves it and signs people in; the
 * labels are looked up in the starter's catalogs, in the 12 locales it
 * ships. Copied with the rest of the guide's app (`src/`), it runs as
 * `node --test dist/src/conformance.test.js`; latch's own suite runs it
 * from test/manifest/guide-conformance.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Handler, Mux } from "latch";
import { ToolRegistry } from "latch/agent";
import { CLIENT_DIR, NewAssets } from "latch/assets";
import { mergeSchemas } from "latch/db";
import { Schema as eventsSchema } from "latch/events";
import { crossOriginProtection } from "latch/http";
import { BaseLocales } from "latch/i18n";
import { describeResourceConformance, startApp, type AppFactory } from "latch/manifest/conformance";
import * as session from "latch/session";
import * as signin from "latch/signin";
import { LOCALES_DIR, STATIC_DIR } from "../starter/files.ts";
import { expenses, mountExpenses, projects, renderResource } from "./expenses.ts";

// The starter's catalogs by locale code (starter/locales/<code>.json): the suite finds every label in each.
const catalogs = new Map(
  BaseLocales().map((code) => [code, JSON.parse(readFileSync(join(LOCALES_DIR, `${code}.json`), "utf8")) as Record<string, string>]),
);

// The application, built as main.ts builds it, with the mailer the suite gives.
const app: AppFactory = ({ Origin, Mailer }) => {
  const tools = new ToolRegistry();
  const [handler, close] = Handler({
    DBPath: ":memory:",
    Schema: mergeSchemas(session.Schema, signin.Schema, eventsSchema),
    Wrap: (next) => crossOriginProtection({ Origin })(next),
    Render: renderResource(NewAssets([STATIC_DIR, CLIENT_DIR])), // as main.ts: the pages load live.js
    Router: (db) => {
      if (db === undefined) throw new Error("conformance: no database");
      const InstanceKey = "conformance-instance-key-0123456789abcdef";
      const auth = signin.create({ DB: db, Origin, InstanceKey, SigninPath: "/signin", SignedInPath: "/", Mailer });
      const mux = new Mux();
      mux.Handle("POST /signin", auth.Begin);
      mux.Handle("GET /auth/verify", auth.Verify);
      mountExpenses({ db, mux, tools, auth, Origin });
      return mux;
    },
  });
  return { Handler: handler, Tools: tools, Catalogs: catalogs, Close: close };
};

describeResourceConformance(projects, () => startApp(app));
describeResourceConformance(expenses, () => startApp(app));
