import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defineAction, ToolRead, ToolRegistry, ToolWrite } from "../../lib/agent/index.ts";
import type { ActionSpec, ToolMethod } from "../../lib/agent/action.ts";

const handler = (): void => {};
const listSpec: ActionSpec = {
  name: "list_invoices",
  method: "GET",
  route: "/invoices",
  tool: { Description: "Lists invoices", Access: ToolRead },
  handler,
};
const deleteSpec: ActionSpec = {
  name: "delete_invoice",
  method: "POST",
  route: "/invoices/{id}/delete",
  tool: { Description: "Deletes an invoice", Access: ToolWrite, Confirm: "Delete this invoice?" },
  handler,
};

function assertCode(fn: () => unknown, code: string, fragment: string): void {
  assert.throws(fn, (e: unknown) => e instanceof Error && "code" in e && e.code === code && e.message.includes(fragment));
}

describe("defineAction()", () => {
  it("returns a frozen ToolDef binding the tool to its route", () => {
    const def = defineAction(deleteSpec);
    assert.equal(def.Name, "delete_invoice");
    assert.equal(def.Method, "POST");
    assert.equal(def.Route, "/invoices/{id}/delete");
    assert.equal(def.Tool.Confirm, "Delete this invoice?");
    assert.equal(def.Handler, handler);
    assert.ok(Object.isFrozen(def) && Object.isFrozen(def.Tool));
  });
  const bad: { name: string; spec: ActionSpec; code: string; want: string }[] = [
    { name: "bad name", spec: { ...listSpec, name: "List" }, code: "ERR_AGENT_INVALID_ACTION", want: "name must match" },
    { name: "unknown method", spec: { ...listSpec, method: "TRACE" as ToolMethod }, code: "ERR_AGENT_INVALID_ACTION", want: "method" },
    { name: "relative route", spec: { ...listSpec, route: "invoices" }, code: "ERR_AGENT_INVALID_ACTION", want: "route" },
    { name: "route with a space", spec: { ...listSpec, route: "/a b" }, code: "ERR_AGENT_INVALID_ACTION", want: "route" },
    { name: "route with CR/LF", spec: { ...listSpec, route: "/a\r\nb" }, code: "ERR_AGENT_INVALID_ACTION", want: "route" },
    {
      name: "read tool on POST",
      spec: { ...listSpec, method: "POST" },
      code: "ERR_AGENT_INVALID_ACTION",
      want: "a read tool cannot use POST",
    },
    {
      name: "write tool on GET",
      spec: { ...deleteSpec, method: "GET" },
      code: "ERR_AGENT_INVALID_ACTION",
      want: "a write tool cannot use GET",
    },
    {
      name: "check that is not a function",
      spec: { ...deleteSpec, check: "stale?" as unknown as ActionSpec["check"] },
      code: "ERR_AGENT_INVALID_ACTION",
      want: "check must be a function",
    },
    {
      name: "write tool without confirm",
      spec: { ...deleteSpec, tool: { ...deleteSpec.tool, Confirm: "" } },
      code: "ERR_AGENT_INVALID_TOOL",
      want: "validate tool delete_invoice: a write tool needs a Confirm sentence",
    },
    {
      name: "tool argument with a bad name, naming the tool",
      spec: { ...deleteSpec, tool: { ...deleteSpec.tool, Args: [{ Name: "Id", Type: "string", Description: "id" }] } },
      code: "ERR_AGENT_INVALID_TOOL",
      want: "validate tool delete_invoice: argument name must match",
    },
  ];
  for (const { name, spec, code, want } of bad) it(`rejects a ${name}`, () => assertCode(() => defineAction(spec), code, want));
});

describe("ToolRegistry", () => {
  it("lists registered tools sorted by name and finds them by name", () => {
    const tools = new ToolRegistry();
    tools.register(defineAction(listSpec));
    tools.register(defineAction(deleteSpec));
    assert.deepEqual(
      tools.list().map((d) => d.Name),
      ["delete_invoice", "list_invoices"],
    );
    assert.equal(tools.get("list_invoices")?.Route, "/invoices");
    assert.equal(tools.get("missing"), undefined);
  });
  it("refuses a duplicate name", () => {
    const tools = new ToolRegistry();
    tools.register(defineAction(listSpec));
    assertCode(
      () => tools.register(defineAction({ ...listSpec, route: "/other" })),
      "ERR_AGENT_DUPLICATE_TOOL",
      "list_invoices is already registered",
    );
  });
  it("refuses a second tool on the same method and route, naming both", () => {
    const tools = new ToolRegistry();
    tools.register(defineAction(listSpec));
    assertCode(
      () => tools.register(defineAction({ ...listSpec, name: "all_invoices" })),
      "ERR_AGENT_DUPLICATE_TOOL",
      "all_invoices and list_invoices both use GET /invoices",
    );
  });
  it("re-checks hand-built entries", () => {
    const tools = new ToolRegistry();
    const forged = { ...defineAction(deleteSpec), Tool: { Description: "x", Access: ToolWrite, Args: [], Confirm: "" } };
    assertCode(() => tools.register(forged), "ERR_AGENT_INVALID_TOOL", "Confirm");
    assert.deepEqual(tools.list(), []);
  });
});

describe("defineAction() records (RecordsRole)", () => {
  const readSpec: ActionSpec = {
    name: "read_invoice",
    method: "GET",
    route: "/invoices/{id}",
    tool: {
      Description: "Reads an invoice",
      Access: ToolRead,
      Args: [{ Name: "id", Type: "string", Required: true, Description: "Its id" }],
    },
    handler,
    records: { Collection: "invoices", Role: "read" },
  };
  const pagedSpec: ActionSpec = {
    ...listSpec,
    tool: { ...listSpec.tool, Args: [{ Name: "after", Type: "string", Description: "The next cursor" }] },
    records: { Collection: "invoices", Role: "list", Title: "number" },
  };

  it("keeps a read tool's collection and role, frozen, and the registry carries them", () => {
    const registry = new ToolRegistry();
    registry.register(defineAction(readSpec));
    registry.register(defineAction(pagedSpec));
    assert.deepEqual(registry.get("read_invoice")?.Records, { Collection: "invoices", Role: "read" });
    assert.deepEqual(registry.get("list_invoices")?.Records, { Collection: "invoices", Role: "list", Title: "number" });
    assert.ok(Object.isFrozen(registry.get("read_invoice")?.Records));
  });

  it("refuses records on a write tool, a bad collection, a role without its arguments, and a second tool of one role", () => {
    const invalid = "ERR_AGENT_INVALID_ACTION";
    assertCode(() => defineAction({ ...deleteSpec, records: { Collection: "invoices", Role: "read" } }), invalid, "read tool only");
    assertCode(() => defineAction({ ...readSpec, records: { Collection: "Invoices", Role: "read" } }), invalid, "Collection must match");
    assertCode(() => defineAction({ ...readSpec, records: { Collection: "a/b", Role: "read" } }), invalid, "Collection must match");
    assertCode(() => defineAction({ ...listSpec, records: { Collection: "invoices", Role: "read" } }), invalid, '"id" among them');
    assertCode(() => defineAction({ ...readSpec, records: { Collection: "invoices", Role: "list" } }), invalid, '"after"');
    const role = "edit" as "read";
    assertCode(() => defineAction({ ...readSpec, records: { Collection: "invoices", Role: role } }), invalid, "Role must be");
    const registry = new ToolRegistry();
    registry.register(defineAction(readSpec));
    assertCode(
      () => registry.register(defineAction({ ...readSpec, name: "read_invoice_2", route: "/invoices2/{id}" })),
      "ERR_AGENT_DUPLICATE_TOOL",
      "both read invoices",
    );
  });
});
