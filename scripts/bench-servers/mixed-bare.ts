/*
 * The hand-written baselines of the mixed scenario (scripts/bench-mixed.ts, BENCHMARKS.md "(o)"): bare node:http and
 * better-sqlite3 on the scenario's database, the same SQL latch runs (traced statement by statement) and the same bytes:
 *
 *   GET /expenses?amount_min=<euros>&sort=amount&dir=desc   the list page with a filter and a sort: the session row,
 *       the page's 21 rows, the waiting approvals' count; the page's fixed parts (layout, header, the filter form's
 *       labels) are cut once at start from the page latch served (argv[3], a file), as a hand-written server holds
 *       them as constants; everything that varies per request (the URLs, the form's values, the rows, the next page's
 *       keyset) is written here, escaped.
 *   POST /api/tools/expenses_create   a write call under a standing approval: the token row and its last use, then
 *       latch's three transactions (the call's "started" audit event after spending the standing approval; the record,
 *       its search row and its "created" event; the "ok" audit event), each event chained (`eventHash`), each
 *       transaction asking whether the token is still live as latch's credential check does.
 *
 * Every answer is written as bare-session.ts writes it: one `writeHead(status, raw)` with latch's headers.
 *
 * Usage: node dist/scripts/bench-servers/mixed-bare.js <db path> <a latch list page of that URL shape>
 */
import Database from "better-sqlite3";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { eventHash, GENESIS, INSERT_EVENT } from "../../lib/events/chain.ts";
import { ownerTag } from "../../lib/manifest/search.ts";
import { securityHeaderList } from "../../lib/runtime/security-headers.ts";
import { announce } from "./routes.ts";

const [path, samplePath] = process.argv.slice(2);
if (path === undefined || samplePath === undefined) throw new Error("usage: mixed-bare.js <db path> <list page sample>");
const db = new Database(path);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("busy_timeout = 5000");

// latch's headers of both answers, in its order: no-store, the security headers, Vary, the type and length.
function rawHeaders(type: string): string[] {
  return [
    "Cache-Control",
    "no-store",
    ...securityHeaderList().flat(),
    "Vary",
    "Cookie, Accept-Language",
    "Content-Type",
    type,
    "Content-Length",
    "",
  ];
}
const raw = { html: rawHeaders("text/html; charset=utf-8"), json: rawHeaders("application/json; charset=utf-8") };
function send(res: ServerResponse, status: number, prepared: string[], body: string): void {
  prepared[prepared.length - 1] = String(Buffer.byteLength(body));
  res.writeHead(status, prepared);
  res.end(body);
}

const escapeHTML = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

// ---- the list page ----

const session = db.prepare<[string], [string, string, number, number, number, number, string, string]>(
  "SELECT subject, method, auth_time, created_at, last_seen, expires_at, public_id, device FROM sessions WHERE token_hash = ?",
);
session.raw(true);
const page = db.prepare<[string, number], Record<string, unknown>>(
  `SELECT * FROM "expenses" WHERE owner = ? AND "amount" >= ? ORDER BY ifnull("amount", -1000000000000000000) DESC, id DESC LIMIT 21`,
);
const waiting = db.prepare<[string, number], { n: number }>(
  "SELECT count(*) AS n FROM agent_approvals WHERE subject = ? AND status = 'pending' AND expires_at > ?",
);

/**
 * The sample cut around the eight places a request changes: after each mark, up to its terminator. Returns the nine
 * fixed parts between them.
 */
function cut(sample: string): string[] {
  const places: [string, string][] = [
    ['name="next" value="', '"'],
    ['data-approvals-waiting="', ">"],
    ["Waiting for you: ", "<"],
    ['href="/expenses.csv?', '"'],
    ['name="sort" value="', '"'],
    ['name="dir" value="', '"'],
    ['name="amount_min" type="text" inputmode="decimal" value="', '"'],
    // The table and its next page's link, up to the bulk form under the list (lib/manifest bulk-form.ts), which is fixed.
    ['<div class="table-scroll">', '\n</div>\n<form id="bulk-expenses"'],
  ];
  const parts: string[] = [];
  let at = 0;
  for (const [mark, end] of places) {
    const found = sample.indexOf(mark, at);
    const stop = sample.indexOf(end, found + mark.length);
    if (found < 0 || stop < 0) throw new Error(`mixed-bare: the sample page has no ${mark}…${end}`);
    parts.push(sample.slice(at, found + mark.length));
    at = stop;
  }
  parts.push(sample.slice(at));
  return parts;
}
const fixed = cut(readFileSync(samplePath, "utf8"));
const money = new Intl.NumberFormat("en", { style: "currency", currency: "EUR" });
const when = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });
const COLUMNS: [string, string][] = [
  ["label", "Label"],
  ["amount", "Amount"],
  ["spent_on", "Date"],
  ["category", "Category"],
  ["created_at", "Created"],
];
const CATEGORY: Record<string, string> = { travel: "Travel", meals: "Meals", office: "Office", other: "Other" };

/** The table, its rows and the next page's link. */
function table(rows: Record<string, unknown>[], filter: string, query: string): string {
  let body = '<table data-resource="expenses"><thead><tr>';
  for (const [field, label] of COLUMNS) {
    const sorted = field === "amount";
    const href = escapeHTML(`/expenses?${filter}&sort=${field}&dir=asc`);
    body += `<th scope="col" aria-sort="${sorted ? "descending" : "none"}"><a href="${href}">${label}${sorted ? " ↓" : ""}</a></th>`;
  }
  body += '<th scope="col"><input type="checkbox" data-bulk-all aria-label="Select all records on this page"></th>';
  body += "</tr></thead><tbody>\n";
  for (const row of rows.slice(0, 20)) {
    const id = escapeHTML(String(row["id"]));
    const amount = row["amount"] === null ? "" : money.format(Number(row["amount"]) / 100);
    const category = CATEGORY[String(row["category"])] ?? "";
    body += `<tr data-record-id="${id}"><td><a href="/expenses/${id}">${escapeHTML(String(row["label"]))}</a></td><td>${amount}</td>`;
    body += `<td>${escapeHTML(String(row["spent_on"] ?? ""))}</td><td>${category}</td><td>${when.format(Number(row["created_at"]))}</td>`;
    // The row's checkbox for a bulk change, labelled by the record's name (its label).
    body += `<td><input type="checkbox" name="ids" value="${id}" form="bulk-expenses" data-bulk-select aria-label="Select ${escapeHTML(String(row["label"]))}"></td></tr>`;
  }
  body += "\n</tbody></table></div>\n";
  const last = rows.length > 20 ? rows[19] : undefined;
  if (last === undefined) return body;
  const after = Buffer.from(JSON.stringify([last["amount"], last["id"]])).toString("base64url");
  return body + `<p><a rel="next" href="/expenses?${escapeHTML(`${query}&after=${after}`)}">Next page</a></p>`;
}

function listPage(subject: string, euros: string, now: number): string {
  const rows = page.all(subject, Math.round(Number(euros) * 100));
  const n = waiting.get(subject, now)?.n ?? 0;
  const filter = `amount_min=${encodeURIComponent(euros)}`;
  const query = `${filter}&sort=amount&dir=desc`;
  const values = [
    escapeHTML(`/expenses?${query}`),
    `${n}"${n === 0 ? " hidden" : ""}`,
    String(n),
    escapeHTML(query),
    "amount",
    "desc",
    escapeHTML(euros),
    table(rows, filter, query),
  ];
  let body = fixed[0] ?? "";
  for (let i = 0; i < values.length; i++) body += (values[i] ?? "") + (fixed[i + 1] ?? "");
  return body;
}

function cookieToken(cookie: string | undefined): string | undefined {
  for (const part of (cookie ?? "").split(";")) {
    const p = part.trim();
    if (p.startsWith("framework_session=")) return p.slice("framework_session=".length);
  }
  return undefined;
}

// ---- the write call ----

const columns = "id, subject, name, access, created_at, expires_at, last_used_at, client_id, client_name, client_host";
const findToken = db.prepare<[string, number], Record<string, unknown>>(
  `SELECT ${columns} FROM agent_tokens WHERE revoked_at IS NULL AND token_hash = ? AND expires_at > ? AND client_id IS NULL`,
);
const touch = db.prepare("UPDATE agent_tokens SET last_used_at = ? WHERE id = ?");
const holds = db.prepare<[string, string, number], { one: number }>(
  "SELECT 1 AS one FROM agent_tokens WHERE id = ? AND subject = ? AND revoked_at IS NULL AND expires_at > ?",
);
const spendApproval = db.prepare(
  "UPDATE agent_approvals SET status = 'spent' WHERE id = ( SELECT id FROM agent_approvals WHERE subject = ? AND token_id = ? AND tool = ? AND args_hash = ? AND status = 'approved' AND expires_at > ? LIMIT 1 ) RETURNING id",
);
const spendStanding = db.prepare<[Record<string, unknown>], { id: string }>(
  `UPDATE agent_standing_approvals SET remaining = remaining - 1 WHERE remaining > 0 AND id = (
     SELECT s.id FROM agent_standing_approvals s
     WHERE s.subject = @subject AND s.token_id = @token AND s.tool = @tool AND s.context = @context AND s.ended IS NULL AND s.remaining > 0 AND s.expires_at > @now AND EXISTS (
       SELECT 1 FROM agent_tokens t WHERE t.id = s.token_id AND t.revoked_at IS NULL AND t.expires_at > @now)
       AND (s.record IS NULL OR s.record = @record)
       AND (s.fields IS NULL OR NOT EXISTS (
         SELECT 1 FROM json_each(@fields) AS json_each WHERE json_each.value NOT IN (SELECT value FROM json_each(s.fields))))
     ORDER BY s.created_at, s.id LIMIT 1
   ) RETURNING id`,
);
const lastEvent = db.prepare<[string], { seq: number; hash: Buffer | null }>(
  "SELECT seq, hash FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1",
);
const insertEvent = db.prepare(INSERT_EVENT);
const insertRecord = db.prepare(
  `INSERT INTO "expenses" ("id", "owner", "created_at", "updated_at", "label", "amount", "spent_on", "category", "reimbursed_on") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const dropSearch = db.prepare(`DELETE FROM "expenses_search" WHERE rowid = ?`);
const insertSearch = db.prepare(`INSERT INTO "expenses_search" (rowid, body) VALUES (?, ?)`);

function append(stream: string, type: string, data: string, actor: string, subject: string): number {
  const last = lastEvent.get(stream);
  const seq = (last?.seq ?? 0) + 1;
  const row = { stream, seq, type, data, actor, subject, at: Date.now() };
  const prev = last?.hash ?? GENESIS;
  insertEvent.run({ ...row, prev_hash: prev, hash: eventHash(prev, row), erased: null });
  return seq;
}

interface Call {
  token: Record<string, unknown>;
  args: { label: string; amount: string; category?: string };
}

const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");
function inTransaction<T>(fn: () => T): T {
  begin.run();
  try {
    const out = fn();
    commit.run();
    return out;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

function writeCall({ token, args }: Call): string {
  const subject = String(token["subject"]);
  const tokenID = String(token["id"]);
  const actor = `agent:${String(token["name"])}`;
  const argsHash = createHash("sha256").update(JSON.stringify(args)).digest("hex");
  const fields = JSON.stringify(Object.keys(args));
  const live = (): void => {
    if (holds.get(tokenID, subject, Date.now()) === undefined) throw new Error("token ended");
  };
  const audit = `audit:${subject}`;
  const head = (outcome: string, standing: string, started?: number): string =>
    JSON.stringify({
      tool: "expenses_create",
      args_hash: argsHash,
      approval: null,
      outcome,
      ...(started !== undefined && { started }),
      standing,
      token_id: tokenID,
    });
  const [standing, started] = inTransaction(() => {
    live();
    spendApproval.get(subject, tokenID, "expenses_create", argsHash, Date.now());
    const spent = spendStanding.get({
      subject,
      token: tokenID,
      tool: "expenses_create",
      context: "",
      record: null,
      fields,
      now: Date.now(),
    });
    if (spent === undefined) throw new Error("no standing approval");
    return [spent.id, append(audit, "tool.call", head("started", spent.id), actor, subject)] as const;
  });
  const id = randomBytes(9).toString("base64url");
  const now = Date.now();
  inTransaction(() => {
    live();
    const amount = Math.round(Number(args.amount) * 100);
    const rowid = insertRecord.run(id, subject, now, now, args.label, amount, null, args.category ?? "", null).lastInsertRowid;
    dropSearch.run(rowid);
    insertSearch.run(rowid, `${ownerTag(subject)}\n${args.label}`);
    lastEvent.get(`expenses:${id}`);
    const values = { label: args.label, amount, spent_on: null, category: args.category ?? "", reimbursed_on: null };
    append(`expenses:${id}`, "expenses.created", JSON.stringify({ values, standing }), actor, subject);
  });
  inTransaction(() => {
    live();
    append(audit, "tool.call", head("ok", standing, started), actor, subject);
  });
  return JSON.stringify({ result: { id, version: now } }) + "\n";
}

function readBody(req: IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
}

const server = createServer((req, res) => {
  const url = req.url ?? "/";
  const now = Date.now();
  if (req.method === "GET" && url.startsWith("/expenses?amount_min=") && url.endsWith("&sort=amount&dir=desc")) {
    const t = cookieToken(req.headers.cookie);
    const row = t === undefined ? undefined : session.get(createHash("sha256").update(t).digest("base64url"));
    if (row === undefined || now >= row[5]) return send(res, 303, raw.html, "");
    const euros = decodeURIComponent(url.slice("/expenses?amount_min=".length, -"&sort=amount&dir=desc".length));
    return send(res, 200, raw.html, listPage(row[0], euros, now));
  }
  if (req.method === "POST" && url === "/api/tools/expenses_create") {
    return readBody(req, (body) => {
      const bearer = /^Bearer +(\S+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      const token = findToken.get(createHash("sha256").update(bearer).digest("base64url"), Date.now());
      if (token === undefined) return send(res, 401, raw.json, '{"error":"invalid_token"}');
      touch.run(Date.now(), token["id"]);
      return send(res, 200, raw.json, writeCall({ token, args: JSON.parse(body) as Call["args"] }));
    });
  }
  return send(res, 404, raw.json, '{"error":"not found"}');
});
// As Serve keeps an idle connection (the keep-alive: timeout=5 latch answers with).
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => announce((server.address() as AddressInfo).port));
