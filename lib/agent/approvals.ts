/*
 * Approvals: the confirmation an agent cannot forge (SPEC §2.3, ToolWrite): an agent's write call leaves a pending
 * request bound to the tool, the arguments' hash, the token and the subject, which its person approves or declines
 * (README, Approvals). An approval is spent by the first identical call, in one UPDATE … RETURNING, so two racing
 * calls cannot both spend it.
 */
import { requireTables, sweepInSteps, type DB, type Statement } from "../db/index.ts";
import type { EventStore } from "../events/index.ts";
import { cryptoRandom, systemClock, type Clock, type RandomReader } from "../http/index.ts";
import { humanActor } from "./actor.ts";
import { AgentError } from "./errors.ts";
import { immediately } from "../internal/index.ts";

/** How long an approval (and an unanswered request) stays valid: 5 minutes. */
export const APPROVAL_TTL: number = 5 * 60 * 1000;

/** How many unanswered, unexpired requests one token may hold (each keeps up to 64 KiB of arguments until the sweep). */
export const MAX_PENDING_APPROVALS: number = 20;

/**
 * How many requests one batch decision (`decideAll`) may name: 100, five tokens' full queues of
 * `MAX_PENDING_APPROVALS`. A longer list is refused whole: no page lists that many, so it is not a person's choice.
 */
export const MAX_BATCH_DECISIONS: number = 5 * MAX_PENDING_APPROVALS;

/** The state of an approval request: "voided" when the access it was asked under ended (`voidPending`). */
export type ApprovalStatus = "pending" | "approved" | "declined" | "spent" | "voided";

/** An approval request, as shown to the person who decides it. */
export interface Approval {
  readonly ID: string;
  readonly Subject: string;
  readonly TokenID: string;
  readonly Tool: string;
  readonly ArgsHash: string;
  /** The exact arguments of the call, by name. */
  readonly Args: Readonly<Record<string, string | number | boolean>>;
  readonly Status: ApprovalStatus;
  readonly CreatedAt: Date;
  readonly ExpiresAt: Date;
  /** Why it was voided (`voidPending`), for its page; "" otherwise. */
  readonly Reason: string;
}

/** What binds an approval to one call. */
export interface ApprovalBinding {
  Subject: string;
  TokenID: string;
  Tool: string;
  ArgsHash: string;
}

/** The outcome of `decide`. */
export type Decision = { ok: true; approval: Approval } | { ok: false; reason: "unknown" | "expired" | "decided" };

/** Options of `Approvals`. */
export interface ApprovalsOptions {
  /** @default systemClock */
  Clock?: Clock;
  /** @default cryptoRandom */
  Random?: RandomReader;
  /** The event store (on the same handle): a decision then commits with its audit event (README, Approvals). */
  Events?: EventStore;
}

/** The shape of an approval id. */
export const APPROVAL_ID_PATTERN: RegExp = /^[A-Za-z0-9_-]{22}$/;

// The columns under the names `Approval` gives them; `toApproval` makes the arguments and times its types.
const COLUMNS =
  "id AS ID, subject AS Subject, token_id AS TokenID, tool AS Tool, args_hash AS ArgsHash, args AS Args, status AS Status, created_at AS CreatedAt, expires_at AS ExpiresAt, reason AS Reason";

type Row = Omit<Approval, "Args" | "CreatedAt" | "ExpiresAt"> & { Args: string; CreatedAt: number; ExpiresAt: number };

function toApproval(row: Row): Approval {
  const args = Object.freeze(JSON.parse(row.Args) as Approval["Args"]);
  return Object.freeze({ ...row, Args: args, CreatedAt: new Date(row.CreatedAt), ExpiresAt: new Date(row.ExpiresAt) });
}

/**
 * The approval store. Apply the agent `Schema` first.
 *
 * @example
 * const approvals = new Approvals(db);
 * const pending = approvals.request(binding, { id: "7" }); // show /approvals/<pending.ID> to the person
 * approvals.decide(pending.ID, subject, "approve");
 * approvals.consume(binding); // the approval's id, once
 */
export class Approvals {
  readonly #db: DB;
  readonly #clock: Clock;
  readonly #random: RandomReader;
  readonly #events: EventStore | undefined;
  readonly #pending: Statement<[string, string, string, string, number], Row>;
  readonly #pendingCount: Statement<[string, number], { n: number }>;
  readonly #insert: Statement<Row>;
  readonly #get: Statement<[string, string], Row>;
  readonly #awaiting: Statement<[string, number], Row>;
  readonly #waiting: Statement<[string, number], { n: number }>;
  readonly #decide: Statement<[string, number, string]>;
  readonly #consume: Statement<[string, string, string, string, number], { id: string }>;
  readonly #sweep: Statement<[number, number]>;
  readonly #unspent: Statement<[string, number], Row>;
  readonly #void: Statement<[string, string]>;

  constructor(db: DB, options: ApprovalsOptions = {}) {
    requireTables(db, "agent approvals", "agent.Schema", ["agent_approvals"]);
    this.#db = db;
    this.#clock = options.Clock ?? systemClock;
    this.#random = options.Random ?? cryptoRandom;
    this.#events = options.Events;
    const binding = "subject = ? AND token_id = ? AND tool = ? AND args_hash = ?";
    this.#pending = db.prepare(`SELECT ${COLUMNS} FROM agent_approvals WHERE ${binding} AND status = 'pending' AND expires_at > ? LIMIT 1`);
    this.#pendingCount = db.prepare(
      "SELECT count(*) AS n FROM agent_approvals WHERE token_id = ? AND status = 'pending' AND expires_at > ?",
    );
    this.#insert = db.prepare(
      `INSERT INTO agent_approvals (id, subject, token_id, tool, args_hash, args, status, created_at, expires_at, reason)
       VALUES (@ID, @Subject, @TokenID, @Tool, @ArgsHash, @Args, @Status, @CreatedAt, @ExpiresAt, @Reason)`,
    );
    this.#get = db.prepare(`SELECT ${COLUMNS} FROM agent_approvals WHERE id = ? AND subject = ?`);
    this.#awaiting = db.prepare(
      `SELECT ${COLUMNS} FROM agent_approvals WHERE subject = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, rowid`,
    );
    // Along the index agent_approvals_waiting (schema step agent/008), never a scan: every signed-in page asks it.
    this.#waiting = db.prepare("SELECT count(*) AS n FROM agent_approvals WHERE subject = ? AND status = 'pending' AND expires_at > ?");
    this.#decide = db.prepare("UPDATE agent_approvals SET status = ?, expires_at = ? WHERE id = ?");
    this.#consume = db.prepare(
      `UPDATE agent_approvals SET status = 'spent' WHERE id = (
         SELECT id FROM agent_approvals WHERE ${binding} AND status = 'approved' AND expires_at > ? LIMIT 1
       ) RETURNING id`,
    );
    this.#sweep = db.prepare(
      "DELETE FROM agent_approvals WHERE rowid IN (SELECT rowid FROM agent_approvals WHERE expires_at <= ? LIMIT ?)",
    );
    const unspent = "status IN ('pending', 'approved')";
    this.#unspent = db.prepare(`SELECT ${COLUMNS} FROM agent_approvals WHERE subject = ? AND ${unspent} AND expires_at > ?`);
    this.#void = db.prepare(`UPDATE agent_approvals SET status = 'voided', reason = ? WHERE id = ? AND ${unspent}`);
  }

  /**
   * Returns a pending request for `binding`: the live one already waiting, or a new one showing `args`. Throws
   * `AgentError` ERR_AGENT_INVALID_APPROVAL (400) for an empty binding field and ERR_AGENT_TOO_MANY_APPROVALS (429)
   * when the token already holds `MAX_PENDING_APPROVALS` pending requests; nothing is stored then.
   */
  request(binding: ApprovalBinding, args: Readonly<Record<string, string | number | boolean>>): Approval {
    for (const [field, value] of Object.entries(binding)) {
      if (typeof value !== "string" || value === "") {
        throw new AgentError("ERR_AGENT_INVALID_APPROVAL", `request approval: empty ${field}`, { status: 400 });
      }
    }
    const now = this.#clock.now().getTime();
    return immediately(this.#db, () => {
      const live = this.#pending.get(binding.Subject, binding.TokenID, binding.Tool, binding.ArgsHash, now);
      if (live !== undefined) return toApproval(live);
      // OWASP ASVS 5.0 §2.4.1 (anti-automation): one token cannot fill the table with pending requests.
      if ((this.#pendingCount.get(binding.TokenID, now)?.n ?? 0) >= MAX_PENDING_APPROVALS) {
        throw new AgentError(
          "ERR_AGENT_TOO_MANY_APPROVALS",
          `request approval: this token already has ${MAX_PENDING_APPROVALS} requests awaiting the person; wait for their decision or for requests to lapse`,
          { status: 429 },
        );
      }
      const { Subject, TokenID, Tool, ArgsHash } = binding;
      const ID = Buffer.from(this.#random.read(16)).toString("base64url");
      const row: Row = {
        ID,
        Subject,
        TokenID,
        Tool,
        ArgsHash,
        Args: JSON.stringify(args),
        Status: "pending",
        CreatedAt: now,
        ExpiresAt: now + APPROVAL_TTL,
        Reason: "",
      };
      this.#insert.run(row);
      return toApproval(row);
    });
  }

  /** Returns `subject`'s approval request `id`, or undefined (unknown, malformed and another person's look the same). */
  get(id: string, subject: string): Approval | undefined {
    if (!APPROVAL_ID_PATTERN.test(id)) return undefined;
    const row = this.#get.get(id, subject);
    return row === undefined ? undefined : toApproval(row);
  }

  /**
   * Returns `subject`'s requests awaiting a decision, oldest first: the approval page's list. At most
   * `MAX_PENDING_APPROVALS` a token, so bounded by the person's live tokens.
   */
  pending(subject: string): Approval[] {
    return this.#awaiting.all(subject, this.#clock.now().getTime()).map(toApproval);
  }

  /** Returns how many of `subject`'s requests await a decision now (the count every signed-in page shows). */
  waiting(subject: string): number {
    return this.#waiting.get(subject, this.#clock.now().getTime())?.n ?? 0;
  }

  /**
   * Approves or declines each of `subject`'s requests `ids` in one transaction, each through `decide` (single-use,
   * bound to its own arguments, its own audit event), and returns each id's outcome; a repeated id is decided once,
   * another person's answers "unknown" like an id that never was. Throws `AgentError` ERR_AGENT_INVALID_APPROVAL (400)
   * for no id, more than `MAX_BATCH_DECISIONS`, or a decision other than "approve" or "decline"; nothing changes then.
   */
  decideAll(ids: readonly string[], subject: string, decision: string): Map<string, Decision> {
    const unique = new Set(ids);
    const refuse = (reason: string): never => {
      throw new AgentError("ERR_AGENT_INVALID_APPROVAL", `decide approvals: ${reason}`, { status: 400 });
    };
    if (unique.size === 0) refuse("id: choose at least one request");
    // OWASP ASVS 5.0 §2.4.1 (anti-automation): one form post decides a bounded number of requests.
    if (unique.size > MAX_BATCH_DECISIONS) refuse(`id: at most ${MAX_BATCH_DECISIONS} requests at once`);
    if (decision !== "approve" && decision !== "decline") refuse('decision must be "approve" or "decline"');
    return immediately(this.#db, () => new Map([...unique].map((id) => [id, this.decide(id, subject, decision)])));
  }

  /**
   * Approves or declines `subject`'s pending request `id`. An approval is valid `APPROVAL_TTL` from now. Throws
   * `AgentError` ERR_AGENT_INVALID_APPROVAL (400) for a decision other than "approve" or "decline"; nothing changes
   * then.
   */
  decide(id: string, subject: string, decision: string): Decision {
    if (decision !== "approve" && decision !== "decline") {
      throw new AgentError("ERR_AGENT_INVALID_APPROVAL", 'decide approval: decision must be "approve" or "decline"', { status: 400 });
    }
    const now = this.#clock.now().getTime();
    return immediately(this.#db, (): Decision => {
      const current = this.get(id, subject);
      if (current === undefined) return { ok: false, reason: "unknown" };
      if (current.Status !== "pending") return { ok: false, reason: "decided" };
      if (current.ExpiresAt.getTime() <= now) return { ok: false, reason: "expired" };
      const status = decision === "approve" ? "approved" : "declined";
      this.#decide.run(status, now + APPROVAL_TTL, id);
      // SPEC §6.2: the decision and its audit event commit together (lib/events README "A write and its event").
      this.#events?.appendAudit({
        Subject: subject,
        Actor: humanActor(),
        Type: status === "approved" ? "agent.call_approved" : "agent.call_declined",
        Data: { approval: id, tool: current.Tool, args_hash: current.ArgsHash },
      });
      return { ok: true, approval: { ...current, Status: status, ExpiresAt: new Date(now + APPROVAL_TTL) } };
    });
  }

  /**
   * Deletes every request and approval no longer valid at `now` (lapsed, expired, and decided or spent ones past their
   * validity) and returns how many, in `sweepInSteps`' bounded steps. The audit stream keeps the record of each call.
   */
  async sweep(now: Date): Promise<number> {
    const t = now.getTime();
    return (await sweepInSteps(this.#db, { approvals: (limit) => this.#sweep.run(t, limit).changes })).approvals;
  }

  /**
   * Voids `subject`'s requests awaiting a decision and approvals not yet spent that `match` picks, recording `reason`
   * for their page, and returns how many: the access they were asked under ended (lib/manifest voids a removed team
   * member's calls to the team's records). A voided one is never approved nor spent; `decide` answers "decided".
   */
  voidPending(subject: string, match: (approval: Approval) => boolean, reason: string): number {
    const now = this.#clock.now().getTime();
    return immediately(this.#db, () =>
      this.#unspent
        .all(subject, now)
        .filter((row) => match(toApproval(row)))
        .reduce((voided, row) => voided + this.#void.run(reason, row.ID).changes, 0),
    );
  }

  /** Spends one live approval matching `binding` and returns its id, or undefined when there is none. */
  consume(binding: ApprovalBinding): string | undefined {
    const now = this.#clock.now().getTime();
    return this.#consume.get(binding.Subject, binding.TokenID, binding.Tool, binding.ArgsHash, now)?.id;
  }
}
