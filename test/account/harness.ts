/*
 * The account suites' application: the sign-in harness (signin-app.ts)
 * with the demo's whole schema (so every table the demo creates is there)
 * and the account component's routes, and the helpers the suites share:
 * seeding a person's rows in every table, and scanning every column of
 * every table for a string.
 */
import type { TestContext } from "node:test";
import * as account from "../../lib/account/index.ts";
import type { DB } from "../../lib/db/index.ts";
import type { Logger } from "../../lib/http/index.ts";
import type { RenderFunc } from "../../lib/index.ts";
import type { Mux } from "../../lib/router/index.ts";
import type { Signin } from "../../lib/signin/index.ts";
import { newSMTPMailer } from "../../lib/mail/index.ts";
import { auditAuthEvents } from "../../lib/agent/index.ts";
import { EventStore } from "../../lib/events/index.ts";
import { PasskeyStore } from "../../lib/passkey/store.ts";
import * as passkey from "../../lib/passkey/index.ts";
import { schema as demoSchema } from "../../examples/demo/app.ts";
import { resourceRows } from "../../examples/demo/resources.ts";
import { accountRows as agentRows } from "../../lib/agent/index.ts";
import { accountRows as oauthRows } from "../../lib/oauth/index.ts";
import { accountRows as teamRows } from "../../lib/teams/index.ts";
import { accountRows as operatorRows } from "../../lib/operators/index.ts";
import { FakeClock } from "../_support/clock.ts";
import assert from "node:assert/strict";
import type { CookieJar } from "../_support/http-client.ts";
import { extractCode, startSigninApp, type SigninApp } from "../_support/signin-app.ts";

/** The routes of the account suites. */
export const ROUTES = {
  change: "/account/address",
  confirm: "/account/address/confirm",
  code: "/account/address/code",
  undo: "/account/address/undo",
  export: "/account/export",
  delete: "/account/delete",
} as const;

/** The application and its passkey store (for recovery codes). */
export interface AccountApp extends SigninApp {
  store: PasskeyStore;
  events: EventStore;
}

/** Starts the application (a real SMTP server receives its mail). */
export async function startAccountApp(
  t: TestContext,
  options: {
    reverseWindow?: number;
    accountMailURL?: string;
    /** The runtime's `Render` (a resource's form needs one). */
    render?: RenderFunc;
    /** Mounts more of the application (agents, resources: race-app.ts) on the same database, event store and clock. */
    extend?: (mux: Mux, auth: Signin, db: DB, logger: Logger, events: EventStore, clock: FakeClock) => void;
  } = {},
): Promise<AccountApp> {
  const clock = new FakeClock(new Date("2026-03-01T09:00:00Z"));
  let events: EventStore | undefined;
  const app = await startSigninApp(t, {
    clock,
    ...(options.render !== undefined && { render: options.render }),
    schema: demoSchema.filter((step) => !step.Name.startsWith("session/") && !step.Name.startsWith("signin/")),
    extend: (mux, auth, db, logger, mailer) => {
      const keys = passkey.create({
        DB: db,
        Sessions: auth.Sessions,
        Origin: "http://localhost",
        ConfirmPath: "/confirm",
        SignedInPath: "/account",
        SigninPath: "/signin",
        Clock: clock,
        Logger: logger,
      });
      events = new EventStore(db, { Clock: clock });
      const component = account.create({
        DB: db,
        // As the demo: each change commits with its audit event (auth.address_changed...).
        OnAuthEvent: auditAuthEvents(events, logger),
        Signin: auth,
        Passkey: keys,
        Origin: "http://localhost",
        InstanceKey: "account-test-instance-key",
        Rows: [oauthRows(db, agentRows(db)), agentRows(db), teamRows(db), resourceRows(db), operatorRows(db)],
        AccountPath: "/account/security",
        SigninPath: "/signin",
        StalePath: "/stepup",
        ConfirmPath: ROUTES.confirm,
        ReversePath: ROUTES.undo,
        ...(options.reverseWindow !== undefined && { ReverseWindow: options.reverseWindow }),
        Clock: clock,
        Logger: logger,
        ...(options.accountMailURL !== undefined
          ? { Mailer: newSMTPMailer(options.accountMailURL, { logger }) }
          : mailer !== undefined && { Mailer: mailer }),
      });
      const fresh = mux.With(auth.RequireFreshSession(5 * 60 * 1000));
      fresh.Handle(`POST ${ROUTES.change}`, component.RequestChange);
      mux.Handle(`GET ${ROUTES.confirm}`, component.ConfirmLink);
      mux.Handle(`POST ${ROUTES.code}`, component.ConfirmCode);
      mux.Handle(`POST ${ROUTES.undo}`, component.Reverse);
      fresh.Handle(`GET ${ROUTES.export}`, component.Export);
      fresh.Handle(`POST ${ROUTES.delete}`, component.Delete);
      options.extend?.(mux, auth, db, logger, events, clock);
    },
  });
  return { ...app, store: new PasskeyStore(app.db, clock), events: events ?? new EventStore(app.db, { Clock: clock }) };
}

/** What `seed` stored for a person, to check after a move. */
export interface Seeded {
  recoveryCode: string;
  noteID: string;
}

/**
 * Gives `address` (signed in already: sessions, signin_accounts and rate
 * buckets exist) a row in every other table of the demo's database that
 * can hold a person. `tag` keeps two people's ids apart.
 */
export function seed(app: AccountApp, address: string, tag: string): Seeded {
  const db = app.db;
  const now = app.clock.now().getTime();
  const run = (sql: string, ...params: unknown[]): void => void db.prepare(sql).run(...params);
  run(
    "INSERT INTO signin_links (token_hash, purpose, address, expires_at) VALUES (?, 'signin', ?, ?)",
    `link-${tag}`,
    address,
    now + 60000,
  );
  run("INSERT INTO signin_rate_events (bucket, at) VALUES (?, ?), (?, ?)", `code:${address}`, now, `code:${address}:binding-${tag}`, now);
  run(
    `INSERT INTO passkey_credentials (id, subject, public_key, algorithm, backup_eligible, backup_state, user_handle, name, aaguid, created_at)
     VALUES (?, ?, x'00', -7, 0, 0, x'01', 'laptop', '00000000-0000-0000-0000-000000000000', ?)`,
    `cred-${tag}`,
    address,
    now,
  );
  run(
    "INSERT INTO passkey_pending (token_hash, subject, first_method, expires_at) VALUES (?, ?, 'magiclink', ?)",
    `pending-${tag}`,
    address,
    now + 60000,
  );
  const [recoveryCode = ""] = app.store.regenerateRecoveryCodes(address);
  run(
    "INSERT INTO signin_notices (subject, kind, at, device, locale, name) VALUES (?, 'passkey_added', ?, 'Firefox on Linux', 'en', '')",
    address,
    now,
  );
  run(
    "INSERT INTO signin_notice_devices (subject, device_hash, first_seen, last_seen, locale) VALUES (?, ?, ?, ?, 'en')",
    address,
    `device-${tag}`,
    now,
    now,
  );
  run("INSERT INTO passkey_user_handles (subject, user_handle) VALUES (?, ?)", address, Buffer.from(`handle-${tag}`));
  run(
    "INSERT INTO agent_tokens (id, token_hash, subject, name, access, created_at, expires_at) VALUES (?, ?, ?, 'claude', 'write', ?, ?)",
    `tok-${tag}`,
    `tokhash-${tag}`,
    address,
    now,
    now + 86400000,
  );
  // The token is an OAuth grant too: its access token, code and refresh token name it by id (deleted with it).
  run(
    "INSERT INTO agent_access_tokens (token_hash, token_id, resource, expires_at) VALUES (?, ?, 'http://localhost/mcp', ?)",
    `at-${tag}`,
    `tok-${tag}`,
    now + 3600000,
  );
  run(
    "INSERT INTO oauth_codes (code_hash, token_id, client_id, redirect_uri, challenge, resource, expires_at) VALUES (?, ?, 'https://client.example/meta', 'http://127.0.0.1/cb', 'c', 'http://localhost/mcp', ?)",
    `code-${tag}`,
    `tok-${tag}`,
    now + 60000,
  );
  run(
    "INSERT INTO oauth_refresh_tokens (token_hash, token_id, resource, created_at) VALUES (?, ?, 'http://localhost/mcp', ?)",
    `rt-${tag}`,
    `tok-${tag}`,
    now,
  );
  run(
    "INSERT INTO agent_approvals (id, subject, token_id, tool, args_hash, args, status, created_at, expires_at) VALUES (?, ?, ?, 'start_job', 'h', '{}', 'pending', ?, ?)",
    `appr-${tag}`,
    address,
    `tok-${tag}`,
    now,
    now + 60000,
  );
  run("INSERT INTO agent_approval_notices (subject, noticed_at) VALUES (?, ?)", address, now);
  run(
    "INSERT INTO agent_standing_approvals (id, subject, token_id, tool, context, args, remaining, created_at, expires_at) VALUES (?, ?, ?, 'start_job', '', '{}', 3, ?, ?)",
    `standing-${tag}`,
    address,
    `tok-${tag}`,
    now,
    now + 3600000,
  );
  run(
    "INSERT INTO expenses (id, owner, created_at, updated_at, label, amount) VALUES (?, ?, ?, ?, 'train', 1250)",
    `exp-${tag}`,
    address,
    now,
    now,
  );
  const noteID = `note-${tag}`;
  run("INSERT INTO notes (id, owner, created_at, updated_at, title, body) VALUES (?, ?, ?, ?, 'todo', 'milk')", noteID, address, now, now);
  // A task the person wrote in their team's shared list (the team's record; the person its author).
  run(
    "INSERT INTO tasks (id, team, author, created_at, updated_at, title) VALUES (?, ?, ?, ?, ?, 'sharpen chisels')",
    `task-${tag}`,
    `team-${tag}`,
    address,
    now,
    now,
  );
  const human = { String: () => "human" };
  app.events.append({
    Stream: `notes:${noteID}`,
    Expected: 0,
    Type: "notes.created",
    Data: { title: "todo" },
    Actor: human,
    Subject: address,
  });
  app.events.appendAudit({ Type: "auth.signed_in", Data: { method: "magiclink" }, Actor: human, Subject: address });
  app.events.appendAudit({ Type: "agent.token_minted", Data: { token: `tok-${tag}` }, Actor: human, Subject: address });
  run(
    "INSERT INTO account_address_changes (subject, new_address, expires_at) VALUES (?, ?, ?)",
    address,
    `other-${tag}@example.net`,
    now + 60000,
  );
  run(
    "INSERT INTO account_reversals (token_hash, subject, sealed_previous, expires_at) VALUES (?, ?, 'sealed', ?)",
    `rev-${tag}`,
    address,
    now + 60000,
  );
  // A team the person is a member of (another owns it: an only owner's deletion is refused), an invitation to them and one from them.
  run("INSERT INTO teams (id, name, created_at) VALUES (?, 'Workshop', ?)", `team-${tag}`, now);
  run("INSERT INTO team_members (team, subject, role, joined_at) VALUES (?, ?, 'member', ?)", `team-${tag}`, address, now);
  run("INSERT INTO team_people (subject, key) VALUES (?, ?)", address, `key-${tag}`);
  // An operator's suspension of the person (lib/operators): it follows the address.
  run("INSERT INTO operator_suspensions (subject, reason, operator, suspended_at) VALUES (?, 'seeded', 'op@example.org', ?)", address, now);
  run(
    `INSERT INTO team_invitations (id, token_hash, team, address, role, inviter, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'viewer', 'owner@example.org', ?, ?), (?, ?, ?, 'guest@example.org', 'viewer', ?, ?, ?)`,
    `inv-to-${tag}`,
    `inv-to-hash-${tag}`,
    `team-${tag}`,
    address,
    now,
    now + 60000,
    `inv-from-${tag}`,
    `inv-from-hash-${tag}`,
    `team-${tag}`,
    address,
    now,
    now + 60000,
  );
  return { recoveryCode, noteID };
}

/** Tables of the demo's database that hold no person: their rows are not seeded. */
export const PERSONLESS_TABLES: ReadonlySet<string> = new Set([
  "passkey_challenges",
  "latch_schema",
  // A grant's access tokens, codes and refresh tokens name its agent token by id only (seeded below), and clients are nobody's.
  "agent_access_tokens",
  "oauth_codes",
  "oauth_refresh_tokens",
  "oauth_clients",
  "teams",
]);

/**
 * Whether `table` holds no person's row of its own: PERSONLESS_TABLES, and
 * a resource's search index (`<name>_search` and its FTS5 shadow tables),
 * keyed by the record's rowid, which a trigger empties with the record.
 */
export function holdsNoPerson(table: string): boolean {
  return PERSONLESS_TABLES.has(table) || /_search(_(data|idx|content|docsize|config))?$/.test(table);
}

/** Every table of `db` with its columns, read from sqlite_master and table_info. */
export function tablesOf(db: DB): { table: string; columns: string[] }[] {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return tables.map((table) => ({
    table,
    columns: db.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table) as string[],
  }));
}

/** Returns "table.column" for every column of every table holding `needle` (any column, read as text). */
export function scan(db: DB, needle: string): string[] {
  const found: string[] = [];
  for (const { table, columns } of tablesOf(db)) {
    for (const column of columns) {
      const n = db.prepare(`SELECT count(*) FROM "${table}" WHERE instr(CAST("${column}" AS TEXT), ?) > 0`).pluck().get(needle) as number;
      if (n > 0) found.push(`${table}.${column}`);
    }
  }
  return found;
}

/**
 * `scan` outside the event log: the log is append-only (lib/events), so a
 * change of address leaves the old address in the events recorded before
 * it; only a deletion erases them.
 */
export function scanRows(db: DB, needle: string): string[] {
  return scan(db, needle).filter((column) => !column.startsWith("events."));
}

/** Every event row, as JSON text in (stream, seq) order: to compare byte for byte before and after. */
export function eventRows(db: DB): string[] {
  return (db.prepare("SELECT * FROM events ORDER BY stream, seq").all() as object[]).map((row) => JSON.stringify(row));
}

/** Asserts that every row of `before` is in the log still, unchanged, and returns the rows added since. */
export function appendedSince(db: DB, before: readonly string[]): string[] {
  const after = eventRows(db);
  const kept = new Set(after);
  assert.deepEqual(
    before.filter((row) => !kept.has(row)),
    [],
    "every earlier event is in the log, byte for byte",
  );
  const earlier = new Set(before);
  return after.filter((row) => !earlier.has(row));
}

/** Every row of every table that holds `needle` in any column, as JSON text (to compare before and after). */
export function rowsWith(db: DB, needle: string): string[] {
  const rows: string[] = [];
  for (const { table, columns } of tablesOf(db)) {
    const where = columns.map((c) => `instr(CAST("${c}" AS TEXT), ?) > 0`).join(" OR ");
    for (const row of db.prepare(`SELECT * FROM "${table}" WHERE ${where}`).all(...columns.map(() => needle)))
      rows.push(`${table} ${JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString("hex") : v))}`);
  }
  return rows.sort();
}

/** The confirming link of the new address's mail. */
export const confirmLink: RegExp = /https?:\/\/\S+\/account\/address\/confirm\?token=[A-Za-z0-9_-]+/;
/** The undo link of the old address's notice; group 1 is its token. */
export const undoLink: RegExp = /https?:\/\/\S+\/account\/address\/undo\?token=([A-Za-z0-9_-]+)/;

/** Waits for a mail to `address` among those delivered after the `after`-th; returns its text. */
export async function mailTo(app: AccountApp, address: string, after: number): Promise<string> {
  const smtp = app.smtp;
  if (smtp === undefined) throw new Error("no SMTP server");
  const m = await smtp.waitForMessage((msg) => smtp.messages.indexOf(msg) >= after && msg.to.includes(address));
  return m.parsed.text ?? "";
}

/** Asks, from `jar` (signed in as `from`), to move to `to`; returns the new address's link and code and the old address's notice. */
export async function askChange(
  app: AccountApp,
  jar: CookieJar,
  to: string,
  from: string,
): Promise<{ confirm: string; code: string; notice: string }> {
  const before = app.smtp?.messages.length ?? 0;
  const asked = await app.request("POST", ROUTES.change, { jar, form: { email: to } });
  assert.equal(asked.location, "/account/security?address=sent");
  const text = await mailTo(app, to, before);
  const notice = await mailTo(app, from, before);
  return { confirm: confirmLink.exec(text)?.[0] ?? "", code: extractCode(text), notice };
}
