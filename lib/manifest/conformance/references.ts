/*
 * The records a run's Reference fields point to (README "References"): before its first case the suite creates, as
 * the run's first person and within its team, one record in each referenced resource, the way a person would: it
 * finds the resource's route from its create tool (`<name>_create` in `ConformanceApp.tools`), reads its form
 * (`GET <route>/new`), fills every field with a valid value and posts it. A target's own required references are made
 * first, the same way; a chain that comes back to a resource already on it is refused, naming the chain.
 */
import { Kind } from "../kinds.ts";
import { routeIn } from "../scope.ts";
import type { Field } from "../spec.ts";
import { answerOf } from "./answers.ts";
import type { ConformanceApp, Send } from "./app.ts";
import { sample } from "./samples.ts";

/** Where a run makes its records: the application, how it sends, as whom, and in which team (a TeamScoped run). */
export interface Maker {
  readonly app: ConformanceApp;
  readonly send: Send;
  readonly cookie: string;
  readonly team?: string | undefined;
}

/**
 * Makes a record for each Reference field of `fields` (of resource `resource`), required or not, and returns their
 * ids by field name; one record per referenced resource, shared by the fields and chains that reach it.
 */
export async function referencedRecords(maker: Maker, resource: string, fields: readonly Field[]): Promise<Map<string, string>> {
  const made = new Map<string, string>();
  const ids = new Map<string, string>();
  for (const field of fields) {
    if (field.Kind !== Kind.Reference) continue;
    ids.set(field.Name, await recordIn(maker, made, field.References ?? "", [`${resource}.${field.Name}`]));
  }
  return ids;
}

// A record of `target`, made unless `made` holds one; `chain` is how the run came to need it ("loans.kit", "kits.part").
async function recordIn(maker: Maker, made: Map<string, string>, target: string, chain: readonly string[]): Promise<string> {
  const known = made.get(target);
  if (known !== undefined) return known;
  const route = targetRoute(maker, target, chain);
  const failed = (what: string): Error =>
    new Error(`the record ${chain[0] ?? ""} needs in ${target} (${[...chain, target].join(" → ")}): ${what}`);
  const page = await maker.send("GET", `${route}/new`, maker.cookie);
  if (page.status !== 200) throw failed(`reading its form, GET ${route}/new answered ${answerOf(page)}`);
  const fields = formFields(page.body, target);
  if (fields === undefined) throw failed(`GET ${route}/new shows no form of ${target} (form[data-resource="${target}"])`);
  const refs = new Map<string, string>();
  for (const field of fields) {
    if (field.Kind !== Kind.Reference || field.Required !== true) continue;
    const next = field.References ?? "";
    const longer = [...chain, `${target}.${field.Name}`];
    // Validate refuses a cycle among mounted resources; an application that serves one anyway is named, never looped.
    if (longer.some((link) => link.startsWith(`${next}.`))) {
      throw failed(`its required references form a cycle, ${[...longer, next].join(" → ")}`);
    }
    refs.set(field.Name, await recordIn(maker, made, next, longer));
  }
  const sent = sample(fields, "reference", refs);
  const res = await maker.send("POST", route, maker.cookie, sent);
  const id = res.status === 303 ? (res.headers.location ?? "").slice(route.length + 1) : "";
  if (!/^[A-Za-z0-9_-]+$/.test(id)) {
    const given = Object.entries(sent).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    throw failed(`creating it, POST ${route} with ${given.join(", ")} answered ${answerOf(res)}`);
  }
  made.set(target, id);
  return id;
}

// The route of `target`'s records (in the run's team), from the create tool bound to it.
function targetRoute(maker: Maker, target: string, chain: readonly string[]): string {
  const create = maker.app.tools.get(`${target}_create`);
  const where = `the record ${chain[0] ?? ""} needs in ${target} (${[...chain, target].join(" → ")})`;
  if (create === undefined) {
    throw new Error(`${where}: no tool ${target}_create in ConformanceApp.tools: mount ${target} with the same tool registry`);
  }
  const route = routeIn(create, maker.team ?? "");
  if (route.includes("{")) throw new Error(`${where}: ${target} is reached under ${create.Route}, and this run has no team`);
  return route;
}

/**
 * The fields of the create form of `resource` in `page`, read back from its controls (views.ts `controlHTML`: the input
 * type, `inputmode="decimal"` for an amount, a select's `data-reference`, `required`, `min`, `max`, `maxlength`, the
 * options); undefined when the page holds no such form.
 */
export function formFields(page: string, resource: string): Field[] | undefined {
  const form = new RegExp(`<form\\b[^>]*\\bdata-resource="${resource}"[^>]*>([\\s\\S]*?)</form>`).exec(page)?.[1];
  if (form === undefined) return undefined;
  const fields: Field[] = [];
  for (const control of form.matchAll(/<(input|textarea|select)\b([^>]*)>/g)) {
    const attrs = new Map([...(control[2] ?? "").matchAll(/([a-z-]+)(?:="([^"]*)")?/g)].map((a) => [a[1] ?? "", a[2] ?? ""]));
    const name = attrs.get("name") ?? "";
    // Each field's control has the id field-<name>; the version's hidden input has none.
    if (attrs.get("id") !== `field-${name}`) continue;
    const rest = form.slice((control.index ?? 0) + control[0].length);
    fields.push({ Name: name, Label: name, Required: attrs.has("required"), ...kindOf(control[1] ?? "", attrs, rest) });
  }
  return fields;
}

// The kind of one control and the options it carries.
function kindOf(tag: string, attrs: ReadonlyMap<string, string>, rest: string): Omit<Field, "Name" | "Label"> {
  const maxLength = attrs.has("maxlength") ? { MaxLength: Number(attrs.get("maxlength")) } : {};
  if (tag === "textarea") return { Kind: Kind.Textarea, ...maxLength };
  if (tag === "select") {
    const reference = attrs.get("data-reference");
    if (reference !== undefined) return { Kind: Kind.Reference, References: reference };
    const options = rest.slice(0, rest.indexOf("</select>"));
    const values = [...options.matchAll(/<option value="([^"]+)"/g)].map((o) => o[1] ?? "");
    return { Kind: Kind.Choice, Choices: values.map((value) => ({ Value: value, Label: value })) };
  }
  switch (attrs.get("type")) {
    case "date":
      return { Kind: Kind.Date };
    case "number":
      return { Kind: Kind.Integer, Min: Number(attrs.get("min")), Max: Number(attrs.get("max")) };
    case "checkbox":
      return { Kind: Kind.Boolean };
    case "email":
      return { Kind: Kind.Email };
    case "url":
      return { Kind: Kind.URL };
    default:
      return attrs.get("inputmode") === "decimal" ? { Kind: Kind.Money } : { Kind: Kind.Text, ...maxLength };
  }
}
