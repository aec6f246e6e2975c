/*
 * MCP sessions, in memory: what a client declared in `initialize`, needed again on each `tools/call`, bound to the token
 * that opened it. Bounded so no person can push out another's: past a token's or a person's share their own oldest is
 * forgotten, past the cap the oldest of the largest holder (README, Transport); its client initializes again.
 */
import { randomBytes } from "node:crypto";

/** How many sessions the endpoint keeps in all; past it the largest holder's oldest is forgotten. */
export const MAX_MCP_SESSIONS = 1000;

/** How many sessions one token keeps; past it that token's oldest is forgotten. */
export const MAX_MCP_SESSIONS_PER_TOKEN = 8;

/** How many sessions one person keeps over all their tokens; past it that person's oldest is forgotten. */
export const MAX_MCP_SESSIONS_PER_PERSON = 32;

/** What a session remembers of its `initialize`. */
export interface MCPSession {
  readonly TokenID: string;
  /** The person the token acts for; the per-person bound counts by it. */
  readonly Subject: string;
  /** The protocol revision agreed in `initialize`. */
  readonly Version: string;
  /** Whether the client declared URL-mode elicitation. */
  readonly URLElicitation: boolean;
}

/** The live sessions of one endpoint. */
export class MCPSessions {
  readonly #sessions = new Map<string, MCPSession>();
  /** Each person's session ids, oldest first (a Set keeps insertion order). */
  readonly #byPerson = new Map<string, Set<string>>();
  /** When each session was opened, as a count of opens: ties between holders go to the older session. */
  readonly #opened = new Map<string, number>();
  #opens = 0;
  readonly #max: number;
  readonly #maxPerToken: number;
  readonly #maxPerPerson: number;

  constructor(
    max: number = MAX_MCP_SESSIONS,
    maxPerToken: number = MAX_MCP_SESSIONS_PER_TOKEN,
    maxPerPerson: number = MAX_MCP_SESSIONS_PER_PERSON,
  ) {
    this.#max = max;
    this.#maxPerToken = maxPerToken;
    this.#maxPerPerson = maxPerPerson;
  }

  /** Opens a session and returns its id: 32 random bytes, base64url (visible ASCII, as MCP requires). */
  open(session: MCPSession): string {
    const id = randomBytes(32).toString("base64url");
    const own = this.#byPerson.get(session.Subject) ?? new Set<string>();
    const ownToken = [...own].filter((key) => this.#sessions.get(key)?.TokenID === session.TokenID);
    for (const oldest of ownToken.slice(0, Math.max(0, ownToken.length - this.#maxPerToken + 1))) this.#forget(oldest);
    for (const oldest of [...own].slice(0, Math.max(0, own.size - this.#maxPerPerson + 1))) this.#forget(oldest);
    this.#sessions.set(id, Object.freeze({ ...session }));
    this.#opened.set(id, ++this.#opens);
    this.#byPerson.set(session.Subject, own.add(id));
    while (this.#sessions.size > this.#max) {
      const oldest = this.#largestHoldersOldest();
      if (oldest === undefined) break;
      this.#forget(oldest);
    }
    return id;
  }

  /** Returns session `id` when it was opened with token `tokenID`. */
  get(id: string, tokenID: string): MCPSession | undefined {
    const session = this.#sessions.get(id);
    return session?.TokenID === tokenID ? session : undefined;
  }

  /** Ends session `id` when it was opened with token `tokenID`; reports whether it did. */
  close(id: string, tokenID: string): boolean {
    if (this.get(id, tokenID) === undefined) return false;
    this.#forget(id);
    return true;
  }

  /** The number of live sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** The oldest session of the person holding the most; of several such, the one whose oldest was opened first. */
  #largestHoldersOldest(): string | undefined {
    let chosen: string | undefined;
    let held = 0;
    for (const ids of this.#byPerson.values()) {
      const oldest = ids.values().next().value;
      if (oldest === undefined) continue;
      if (ids.size > held || (ids.size === held && (this.#opened.get(oldest) ?? 0) < (this.#opened.get(chosen ?? "") ?? 0))) {
        chosen = oldest;
        held = ids.size;
      }
    }
    return chosen;
  }

  #forget(id: string): void {
    const session = this.#sessions.get(id);
    if (session === undefined) return;
    this.#sessions.delete(id);
    this.#opened.delete(id);
    const own = this.#byPerson.get(session.Subject);
    own?.delete(id);
    if (own?.size === 0) this.#byPerson.delete(session.Subject);
  }
}
