/*
 * The conformance suite (`latch/manifest/conformance`) on the guide's own
 * resources (`projects`, and `expenses` that refers to it), as docs/guide.md step 6 tells an application to run it: an
 * app factory builds the application the way the guide's main.ts does (the
 * runtime's Handler, emailed-link sign-in, the guide's `mountExpenses` and
 * `renderResource` in the starter's layout) with the suite's capturing
 * mailer; `startApp` serves it and signs people in; the labels are checked
 * against the starter's catalogs in the 12 shipped locales.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Handler, Mux } from "../../lib/index.ts";
import { ToolRegistry } from "../../lib/agent/index.ts";
import { CLIENT_DIR, NewAssets } from "../../lib/assets/index.ts";
import { mergeSchemas } from "../../lib/db/index.ts";
import { Schema as eventsSchema } from "../../lib/events/index.ts";
import { crossOriginProtection } from "../../lib/http/index.ts";
import { BaseLocales } from "../../lib/i18n/index.ts";
import { describeResourceConformance, startApp, type AppFactory } from "../../lib/manifest/conformance/index.ts";
import * as session from "../../lib/session/index.ts";
import * as signin from "../../lib/signin/index.ts";
import { expenses, mountExpenses, projects, renderResource } from "../../examples/guide/expenses.ts";
import { LOCALES_DIR, STATIC_DIR } from "../../examples/starter/files.ts";

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
