/*
 * Applications the conformance suite must fail on, for conformance-messages.test.ts, which runs this file with
 * `node --test` and reads what the failures say. `CONFORMANCE_BROKEN` picks one:
 * - "drift": the app mounts `notes` with a Text of at most 3 characters, while the suite is given the resource
 *   declared with the default 200: the server refuses the suite's value, and says why per field;
 * - "apart": `loans` requires a reference to `equipment`, whose tools went to another registry than the suite's;
 * - "cycle": an app (no latch behind it) whose create forms require references going round, x → y → x;
 * - "unreadable": the same app, whose z form answers a 500 of 300 characters of plain text.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { defineAction, ToolRegistry, ToolWrite } from "../../lib/agent/index.ts";
import { describeResourceConformance, type ConformanceApp } from "../../lib/manifest/conformance/index.ts";
import { Kind, Resource, ScopeKind, StoreKind, type Field } from "../../lib/manifest/index.ts";
import { catalogsOf, ownerApp } from "./conformance-apps.ts";

function resource(name: string, fields: Field[]): Resource {
  const spec = { Name: name, Route: `/${name}`, Store: StoreKind.Exclusive, Scope: ScopeKind.UserScoped };
  return new Resource({ ...spec, List: { Columns: [{ Field: fields[0]!.Name }] }, Form: { Fields: fields } });
}

const scenario = process.env["CONFORMANCE_BROKEN"];
if (scenario === "drift") {
  const fields = (max: number): Field[] => [
    { Name: "title", Label: "notes.title", Kind: Kind.Text, Required: true, MaxLength: max },
    { Name: "due", Label: "notes.due", Kind: Kind.Date },
  ];
  describeResourceConformance(resource("notes", fields(200)), ownerApp([resource("notes", fields(3))]));
}
if (scenario === "apart") {
  const equipment = resource("equipment", [{ Name: "name", Label: "equipment.name", Kind: Kind.Text, Required: true }]);
  const loans = resource("loans", [
    { Name: "borrower", Label: "loans.borrower", Kind: Kind.Text, Required: true },
    { Name: "equipment", Label: "loans.equipment", Kind: Kind.Reference, References: "equipment", Required: true },
  ]);
  describeResourceConformance(loans, ownerApp([equipment, loans], { apartTools: ["equipment"] }));
}
if (scenario === "cycle" || scenario === "unreadable") {
  const target = scenario === "cycle" ? "x" : "z";
  const loops = resource("loops", [{ Name: "start", Label: "loops.start", Kind: Kind.Reference, References: target, Required: true }]);
  describeResourceConformance(loops, fakeApp);
}

// Serves the create forms of x (requiring a y) and y (requiring an x), and a 500 for z's, with their create tools in the registry.
async function fakeApp(): Promise<ConformanceApp> {
  const forms: Record<string, string> = { "/x/new": "y", "/y/new": "x" };
  const server = createServer((req, res) => {
    const target = forms[req.url ?? ""];
    if (target === undefined) {
      res.statusCode = req.url === "/z/new" ? 500 : 404;
      res.setHeader("Content-Type", "text/plain; charset=utf-8");
      return void res.end(`error: ${"z".repeat(293)}`);
    }
    res.setHeader("Content-Type", "text/html; charset=utf-8");
    const name = (req.url ?? "").slice(1, 2);
    res.end(
      `<form method="post" data-resource="${name}"><select id="field-to" name="to" data-reference="${target}" required></select></form>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const tools = new ToolRegistry();
  for (const name of ["x", "y", "z"]) {
    tools.register(
      defineAction({
        name: `${name}_create`,
        method: "POST",
        route: `/${name}`,
        handler: (_req, res) => void res.end(),
        tool: { Description: `Creates ${name}`, Access: ToolWrite, Confirm: `Create ${name}?`, Args: [] },
      }),
    );
  }
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    origin: "http://cycle.test",
    signIn: async () => "",
    tools,
    catalogs: catalogsOf([]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
