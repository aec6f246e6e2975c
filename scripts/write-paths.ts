/*
 * Every write a person or agent makes through latch is attributed (issue
 * 22): the write paths, enumerated from the API reports (api/*.api.md) and
 * the demo's routes (examples/demo), each with how to drive it once and
 * the audit event it must append, with its actor.
 *
 * - A public function or method **writes** when its name begins with one of
 *   WRITE_VERBS (`mint`, `revokeAll`, `RegenerateRecoveryCodes`...).
 * - A demo route **writes** when its pattern takes POST, PUT, PATCH or
 *   DELETE, or names no method at all; `mountResource`'s routes are read
 *   from lib/manifest/mount.ts for each resource the demo mounts.
 *
 * Each write path is in WRITE_PATHS: a route with how to drive it and the
 * event it appends; an API name with the route that drives it; or a reason
 * it records no person's or agent's change. test/agent/write-paths.test.ts
 * drives every route against a running demo and finds the event in the
 * events table, and fails when a writing name or route appears that the
 * table does not know: a new write path cannot be added unattributed.
 * That each event commits in the write's own transaction is what the
 * failure-injection test named in `atomic` shows (a trigger refuses the
 * event; the write is not there either).
 *
 * Usage: node dist/scripts/write-paths.js   (prints the paths found, JSON)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { writingNames } from "./write-paths-names.ts";
import { STARTER_MOUNTED_AT, operatorWritePaths } from "./write-paths-operators.ts";
import { imported, UPLOAD_ONLY } from "./write-paths-imports.ts";
import { recordWritePaths } from "./write-paths-records.ts";
import { teamWritePaths } from "./write-paths-teams.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export { WRITE_VERBS, writingNames } from "./write-paths-names.ts";

/** The HTTP methods that write. */
const WRITE_METHODS = ["POST", "PUT", "PATCH", "DELETE"];

/** An answer the demo gave. */
export interface Answer {
  status: number;
  body: string;
  location?: string | undefined;
}

/** What a drive may do against a running demo, as the person `ADDRESS` signed in, or an agent of theirs. */
export interface Driver {
  /** Gets `path` as the signed-in person. */
  get(path: string): Promise<Answer>;
  /** Posts `form` as the signed-in person. */
  post(path: string, form?: Record<string, string>): Promise<Answer>;
  /** Posts `bytes` as the one file part (`file`, named `filename`) of a multipart/form-data body, as the signed-in person: a File field's upload, a CSV import's. */
  upload(path: string, filename: string, bytes: Buffer | string): Promise<Answer>;
  /** Calls `tool` over the tools API with a write token the person minted. */
  call(tool: string, args: Record<string, unknown>): Promise<Answer>;
  /** One row of the demo's database. */
  one(sql: string, ...params: unknown[]): Record<string, unknown> | undefined;
  /** Signs the person in again, by link (a session to end). */
  signIn(): Promise<void>;
  /** Posts `form` as `OPERATOR`, from a session a passkey confirmed (latch/operators' gate). */
  operate(path: string, form: Record<string, string>): Promise<Answer>;
}

/** The person every drive acts as. */
export const ADDRESS = "ada-writes@example.com";

/** A write path and how it is attributed. */
export interface WritePath {
  /** "METHOD /pattern" of a demo route, or "entry: Class.method" of an API report. */
  name: string;
  /** Drives the route once (routes only). */
  drive?: (d: Driver) => Promise<unknown>;
  /** The event the write appends and its actor: "human", or "agent" for any agent's ("agent:<name>"). */
  event?: { type: string; actor: "human" | "agent" };
  /** For an API name: the route whose drive calls it. */
  via?: string;
  /** Why the path records no person's or agent's change. */
  none?: string;
  /** The test injecting a failure between the write and its event. */
  atomic?: string;
}

// The id of the newest row of `table` for the person, as the drives need it.
const newest = (d: Driver, sql: string): string => String(d.one(sql, ADDRESS)?.["id"] ?? "");
const approvalOf = (answer: Answer): string =>
  String((JSON.parse(answer.body) as { approval_url?: string }).approval_url ?? "")
    .split("/")
    .pop() ?? "";
const record = (d: Driver, table: string): string => newest(d, `SELECT id FROM ${table} WHERE owner = ? ORDER BY rowid DESC LIMIT 1`);
// The version a record's page carries in its form, as a browser sends it back.
const version = async (d: Driver, route: string, id: string): Promise<string> =>
  /name="version" value="(\d+)"/.exec((await d.get(`${route}/${id}`)).body)?.[1] ?? "";

const SIGNIN_ATOMIC = "test/signin/events.test.ts";
const AGENT_ATOMIC = "test/agent/demo-atomic.test.ts";
const TOOL_ATOMIC = "test/agent/atomic.test.ts";
const RECORD_ATOMIC = "test/manifest/attribution.test.ts";
const PASSKEY_ATOMIC = "test/passkey/routes-manage.test.ts";
const ACCOUNT_ATOMIC = "test/account/move.test.ts";

/** Every write path, in the order the test drives them (a token is minted before it is revoked). */
export const WRITE_PATHS: readonly WritePath[] = [
  // The demo's routes.
  {
    name: "POST /signin",
    drive: (d) => d.post("/signin", { email: "grace-writes@example.com" }),
    none: "asked by anyone, before there is a person: it stores a pending link, which changes nothing until it is opened (signed_in)",
  },
  {
    name: "POST /auth/code",
    drive: (d) => d.post("/auth/code", { code: "000000" }),
    none: "a code typed with no pending link of this browser changes nothing; a right code signs in as the link does (signed_in, test/signin/code.test.ts)",
  },
  // Teams: the drives act in the person's newest team (scripts/write-paths-teams.ts).
  ...teamWritePaths({ address: ADDRESS, version, recordAtomic: RECORD_ATOMIC, imported, uploadOnly: UPLOAD_ONLY }),
  {
    name: "POST /account/agents",
    drive: (d) => d.post("/account/agents", { name: "writer", access: "write" }),
    event: { type: "agent.token_minted", actor: "human" },
    atomic: AGENT_ATOMIC,
  },
  {
    name: "POST /api/tools/{name}",
    drive: (d) => d.call("start_job", {}),
    event: { type: "tool.call", actor: "agent" },
    atomic: TOOL_ATOMIC,
  },
  {
    name: "POST /account/approvals/{id}",
    drive: async (d) => d.post(`/account/approvals/${approvalOf(await d.call("start_job", {}))}`, { decision: "decline" }),
    event: { type: "agent.call_declined", actor: "human" },
    atomic: AGENT_ATOMIC,
  },
  {
    name: "POST /account/approvals",
    drive: async (d) => d.post("/account/approvals", { id: approvalOf(await d.call("start_job", { kind: "fail" })), decision: "decline" }),
    event: { type: "agent.call_declined", actor: "human" },
    atomic: AGENT_ATOMIC,
  },
  {
    name: "/mcp",
    drive: (d) => d.post("/mcp"),
    none: "the MCP transport of the tools API: its calls are tool calls, attributed as POST /api/tools/{name}'s (test/agent/transports.test.ts)",
  },
  {
    name: "POST /account/agents/standing/revoke",
    drive: async (d) => {
      const waiting = approvalOf(await d.call("start_job", {}));
      await d.post(`/account/approvals/${waiting}`, { decision: "standing", calls: "1", hours: "1" });
      const id = newest(d, "SELECT id FROM agent_standing_approvals WHERE subject = ? ORDER BY rowid DESC LIMIT 1");
      return d.post("/account/agents/standing/revoke", { id });
    },
    event: { type: "agent.standing_revoked", actor: "human" },
    atomic: "test/agent/standing-demo.test.ts",
  },
  {
    name: "POST /account/agents/revoke",
    drive: (d) =>
      d.post("/account/agents/revoke", { id: newest(d, "SELECT id FROM agent_tokens WHERE subject = ? AND revoked_at IS NULL") }),
    event: { type: "agent.token_revoked", actor: "human" },
    atomic: AGENT_ATOMIC,
  },
  {
    name: "POST /jobs",
    drive: (d) => d.post("/jobs"),
    event: { type: "tool.call", actor: "human" },
    atomic: TOOL_ATOMIC,
  },
  // The demo's expenses and notes: form, bulk, file and import routes (scripts/write-paths-records.ts).
  ...recordWritePaths({ record, version, recordAtomic: RECORD_ATOMIC }),

  {
    name: "POST /account/recovery-codes",
    drive: (d) => d.post("/account/recovery-codes"),
    event: { type: "auth.recovery_codes_regenerated", actor: "human" },
    atomic: PASSKEY_ATOMIC,
  },
  {
    name: "POST /account/sessions/revoke",
    drive: async (d) => {
      await d.signIn();
      return d.post("/account/sessions/revoke", {
        id: newest(d, "SELECT public_id AS id FROM sessions WHERE subject = ? ORDER BY created_at DESC LIMIT 1"),
      });
    },
    event: { type: "auth.sessions_ended", actor: "human" },
    atomic: SIGNIN_ATOMIC,
  },
  {
    name: "POST /account/sessions/revoke-others",
    drive: async (d) => {
      await d.signIn();
      return d.post("/account/sessions/revoke-others");
    },
    event: { type: "auth.sessions_ended", actor: "human" },
    atomic: SIGNIN_ATOMIC,
  },
  {
    name: "POST /signout",
    drive: (d) => d.post("/signout"),
    event: { type: "auth.signed_out", actor: "human" },
    atomic: SIGNIN_ATOMIC,
  },
  ...[
    "POST /passkey/signin/begin",
    "POST /passkey/signin/finish",
    "POST /passkey/signin/recovery",
    "POST /passkey/register/begin",
    "POST /passkey/register/finish",
    "POST /passkey/stepup/begin",
    "POST /passkey/stepup/finish",
    "POST /account/passkeys/rename",
    "POST /account/passkeys/delete",
  ].map((name) => ({
    name,
    none: "needs an authenticator: a begin stores only a challenge; each finish, the recovery sign-in and the delete append their auth event with the change (passkey_added, signed_in, step_up, passkey_removed), driven by the passkey tests",
    atomic: PASSKEY_ATOMIC,
  })),
  {
    name: "/oauth/",
    none: "the authorization server: an allowed consent mints the grant through AgentTokens (agent.token_minted, human, in its transaction) and /oauth/revoke revokes it (agent.token_revoked); codes, access and refresh tokens are the grant's, not a new change; test/oauth/server.test.ts drives each",
    atomic: AGENT_ATOMIC,
  },
  { name: "/.well-known/", none: "metadata documents and JSON 404s: reads only, whatever the method" },
  {
    name: "POST /account/address",
    none: "stores a pending request and mails both addresses; the account changes only when the new address confirms",
  },
  ...["POST /account/address/code", "POST /account/address/undo"].map((name) => ({
    name,
    none: "needs the code or link mailed to the new or old address: the account tests drive it over SMTP and find auth.address_changed / auth.address_change_reversed in the audit stream",
    atomic: ACCOUNT_ATOMIC,
  })),
  ...operatorWritePaths(),
  {
    name: "POST /account/delete",
    none: "removes the person and their audit stream: account_deleted has no stream left to hold it and is logged; test/account/delete.test.ts",
  },

  // The API reports.
  { name: "account: create", none: "builds the account component" },
  { name: "operators: create", none: "builds the operators component" },
  { name: "teams: create", none: "builds the teams component" },
  { name: "signin: IssuedLink.revoke", none: "withdraws a link latch/account issued and could not mail; no person's record changes" },
  { name: "agent: AgentTokens.mint", via: "POST /account/agents" },
  { name: "agent: AgentTokens.revoke", via: "POST /account/agents/revoke" },
  { name: "agent: AgentTokens.revokeAll", via: "POST /signout", atomic: AGENT_ATOMIC },
  {
    name: "agent: AgentTokens.revokeAccessToken",
    none: "/oauth/revoke of one access token (RFC 7009 §2.1): it ends alone, the grant stays; test/oauth/server.test.ts",
  },
  { name: "agent: Approvals.decide", via: "POST /account/approvals/{id}" },
  { name: "agent: StandingApprovals.create", via: "POST /account/approvals/{id}" },
  { name: "agent: StandingApprovals.revoke", via: "POST /account/agents/standing/revoke" },
  { name: "agent: Approvals.decideAll", via: "POST /account/approvals" },
  { name: "agent: Approvals.consume", via: "POST /api/tools/{name}" },
  { name: "agent: ToolCallLimiter.take", none: "counts calls in memory, changes no record" },
  { name: "agent: ToolRegistry.register", none: "declares a tool at boot, before any request" },
  { name: "db: DB.exec", none: "the application's own SQL: what it writes, it attributes" },
  { name: "db: mergeSchemas", none: "combines schema declarations, writes nothing" },
  { name: "db: setDurable", none: "a connection setting" },
  { name: "events: EventStore.append", none: "the event itself" },
  { name: "events: EventStore.appendAudit", none: "the event itself" },
  { name: "http: writeJSON", none: "writes a response, not a record" },
  { name: "latch: writeError", none: "writes a response, not a record" },
  { name: "jobs: Registry.Start", via: "POST /jobs" },
  { name: "mail: Mailer.Send", none: "sends mail, changes no record" },
  { name: "manifest: RecordStore.create", via: "POST /expenses", atomic: RECORD_ATOMIC },
  { name: "manifest: RecordStore.update", via: "POST /expenses/{id}", atomic: RECORD_ATOMIC },
  { name: "manifest: RecordStore.delete", via: "POST /expenses/{id}/delete", atomic: RECORD_ATOMIC },
  { name: "manifest: MountedResource.create", via: "POST /expenses/import/confirm" },
  // The job registry a resource's import starts its jobs on (MountOptions.imports.jobs: the app's lib/jobs Registry).
  { name: "manifest: MountOptions.Start", via: "POST /expenses/import/confirm" },
  {
    name: "manifest: MountedResource.update",
    none: "no demo route calls it (a job's, through For); test/manifest/job-records.test.ts drives it and finds tasks.updated by human",
  },
  { name: "manifest: MountedResource.delete", via: "POST /teams/{team}/tasks/clear-done" },
  { name: "manifest-conformance: ConformanceApp.signIn", none: "the conformance suite's own sign-in against a test app" },
  { name: "manifest-conformance: CapturingMailer.Send", none: "keeps a test app's mail in memory, changes no record" },
  { name: "manifest-conformance: startApp", none: "starts the application under test for the conformance suite" },
  { name: "passkey: create", none: "builds the passkey component" },
  { name: "passkey: Passkey.RegenerateRecoveryCodes", via: "POST /account/recovery-codes" },
  { name: "session: Sessions.create", via: "POST /account/sessions/revoke" },
  { name: "session: Sessions.revoke", via: "POST /account/sessions/revoke" },
  { name: "session: Sessions.RevokeAll", via: "POST /signout" },
  { name: "session: Sessions.revokeOthers", via: "POST /account/sessions/revoke-others" },
  {
    name: "session: Sessions.rotate",
    none: "replaces a session's token on sign-in and step-up, whose events record the change (signed_in, step_up)",
  },
  { name: "signin: create", none: "builds the sign-in component" },
];

/** The starter's modules the demo mounts as they are: their routes are the demo's. */
const STARTER_MOUNTED = ["teams", "tasks", "approvals", "operators", "account"].map((name) => `examples/starter/${name}.ts`);

/** The demo's writing routes: its mux table's literal patterns, the routes `mountResource` mounts for each of its resources, and `mountTools`'s. */
export function writingRoutes(demo: string = join(ROOT, "examples/demo"), mount: string = join(ROOT, "lib/manifest/mount.ts")): string[] {
  const found = new Set<string>();
  // The demo's own files, and the starter's modules it mounts (the team pages' routes, the team task list, the operators', the account pages).
  const files = [...readdirSync(demo).map((f) => join(demo, f)), ...STARTER_MOUNTED.map((f) => join(ROOT, f))];
  for (const file of files.filter((f) => f.endsWith(".ts"))) {
    // A module mounted under a path the demo chooses names it `${path}`: read with the demo's path in its place.
    const read = readFileSync(file, "utf8").replaceAll("${path}", STARTER_MOUNTED_AT[file.slice(ROOT.length)] ?? "${path}");
    // A path from a constant table in the same file (the starter's `ACCOUNT_PATHS.ReversePath`) reads as its value.
    const source = read.replace(
      /\$\{[A-Z_]+\.(\w+)\}/g,
      (whole, key: string) => new RegExp(`\\b${key}: "([^"]+)"`).exec(read)?.[1] ?? whole,
    );
    for (const m of source.matchAll(/\.Handle\(["`]([^"`$]+)["`]/g)) {
      const pattern = m[1] ?? "";
      const method = /^([A-Z]+) /.exec(pattern)?.[1];
      if (method === undefined || WRITE_METHODS.includes(method)) found.add(pattern);
    }
    // latch/agent's `mountTools` mounts the tools routes under TOOLS_RESOURCE_PATH ("/api/tools").
    if (source.includes("mountTools(")) {
      const tools = readFileSync(join(ROOT, "lib/agent/tools-http.ts"), "utf8");
      for (const t of tools.matchAll(/\.Handle\(`([A-Z]+) \$\{TOOLS_RESOURCE_PATH\}([^`]*)`/g))
        if (WRITE_METHODS.includes(t[1] ?? "")) found.add(`${t[1]} /api/tools${t[2]}`);
    }
    for (const m of source.matchAll(/^\s+Route: "([^"]+)"/gm)) {
      for (const t of readFileSync(mount, "utf8").matchAll(/\.Handle\(`([A-Z]+) \$\{route\}([^`]*)`/g))
        if (WRITE_METHODS.includes(t[1] ?? "")) found.add(`${t[1]} ${m[1]}${t[2]}`);
    }
  }
  return [...found].sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify({ api: writingNames(), routes: writingRoutes() }, null, 2) + "\n");
}
