/*
 * What the conformance suite says when a case fails (README "Failure messages"): the case, the resource, the request
 * and the field(s) it varied, and what the server answered, read from the page's stable hooks (views.ts): each field's
 * error (`data-error-for`), the outcome notice (`data-outcome`); else a plain-text refusal's message, or an HTML
 * page's title and alert. Never the page's first bytes.
 */
import assert from "node:assert/strict";
import type { Reply } from "./app.ts";

/** The case that asks: its name and its resource, the prefix of every message it fails with. */
export interface Asking {
  readonly resource: string;
  readonly case: string;
}

// Longest piece of a server's text quoted in a message: enough for any of latch's refusals, short enough to read.
const QUOTED_MAX = 240;

const ENTITIES: Readonly<Record<string, string>> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

// A server's text as quoted: white space collapsed, at most QUOTED_MAX characters.
function clipped(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > QUOTED_MAX ? `${one.slice(0, QUOTED_MAX)}…` : one;
}

/** The text of an HTML fragment: tags dropped, the escapes `html` writes (lib/http) undone. */
function textOf(fragment: string): string {
  return clipped(fragment.replace(/<[^>]*>/g, " ").replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e));
}

// An element carrying `attribute` and its text, up to the element's closing tag (the markup views.ts writes).
function marked(body: string, attribute: string): [string, string][] {
  const pattern = new RegExp(`<([a-z]+)\\b[^>]*\\b${attribute}="([^"]*)"[^>]*>([\\s\\S]*?)</\\1>`, "g");
  return [...body.matchAll(pattern)].map((m) => [m[2] ?? "", textOf(m[3] ?? "")]);
}

/** The field errors a form page shows, by field name (`data-error-for`, views.ts `errorHTML`), in the page's order. */
export function fieldErrors(body: string): Map<string, string> {
  return new Map(marked(body, "data-error-for"));
}

/** What the server answered, for a message: its status and the reason it gives in a form a person reads. */
export function answerOf(res: Reply): string {
  const location = res.headers.location;
  if (res.status >= 300 && res.status < 400) return `${res.status} to ${location ?? "(no Location)"}`;
  const type = String(res.headers["content-type"] ?? "");
  if (!type.startsWith("text/html")) return `${res.status} "${clipped(res.body)}"`;
  const errors = [...fieldErrors(res.body)];
  if (errors.length > 0) return `${res.status} with field errors: ${errors.map(([field, text]) => `${field}: "${text}"`).join("; ")}`;
  const outcome = marked(res.body, "data-outcome")[0];
  if (outcome !== undefined) return `${res.status} (outcome "${outcome[0]}": "${outcome[1]}")`;
  const title = textOf(/<title>([\s\S]*?)<\/title>/.exec(res.body)?.[1] ?? "");
  const alert = textOf(/<([a-z]+)\b[^>]*role="alert"[^>]*>([\s\S]*?)<\/\1>/.exec(res.body)?.[2] ?? "");
  return `${res.status} (a page titled "${title}"${alert === "" ? "" : `, saying "${alert}"`})`;
}

/** The first words of every message of `asking`. */
export function prefix(asking: Asking): string {
  return `resource ${asking.resource}, case "${asking.case}"`;
}

/** Fails unless `res` answered `status`; `request` says what was sent (its method, path and the fields it varied). */
export function expectStatus(asking: Asking, res: Reply, status: number, request: string): void {
  if (res.status !== status) assert.fail(`${prefix(asking)}: ${request} answered ${answerOf(res)}, expected ${status}`);
}

/** Fails unless `res` is a 422 whose page names an error of `field` beside its input. */
export function expectFieldError(asking: Asking, res: Reply, field: string, request: string): void {
  if (res.status !== 422 || !fieldErrors(res.body).has(field)) {
    assert.fail(`${prefix(asking)}: ${request} answered ${answerOf(res)}, expected 422 with an error of field ${field}`);
  }
}

/** Fails unless `ok`, saying `what` of `request` went wrong and what the server answered. */
export function expectThat(asking: Asking, ok: boolean, what: string, res?: Reply): void {
  if (!ok) assert.fail(`${prefix(asking)}: ${what}${res === undefined ? "" : ` (the server answered ${answerOf(res)})`}`);
}
