/*
 * MCP sessions, in memory: what a client declared in `initialize` (the
 * revision it speaks, whether it can open a URL for its person) is needed
 * again on each `tools/call`, and HTTP requests are otherwise unrelated.
 * A session is bound to the token that opened it: another token presenting
 * its id is told the session does not exist. The map is bounded per token
 * (a token past its share forgets its own oldest session, so one agent
 * cannot push out the sessions of others) and in all (memory); a forgotten
 * session's client initializes again (MCP: a 404 for a session id means
 * "start a new session").
 */
import { randomBytes } from "node:crypto";

/** How many sessions the endpoint keeps in all; past it the oldest is forgotten. */
export const MAX_MCP_SESSIONS = 1000;

/** How many sessions one token keeps; past it that token's oldest is forgotten. */
export const MAX_MCP_SESSIONS_PER_TOKEN = 8;

/** What a session remembers of its `initialize`. */
export interface MCPSession {
  readonly TokenID: string;
  /** The protocol revision agreed in `initialize`. */
  readonly Version: string;
  /** Whether the client declared URL-mode elicitation. */
  readonly URLElicitation: boolean;
}

/** The live sessions of one endpoint. */
export class MCPSessions {
  readonly #sessions = new Map<string, MCPSession>();
  readonly #max: number;

  readonly #maxPerToken: number;

  constructor(max: number = MAX_MCP_SESSIONS, maxPerToken: number = MAX_MCP_SESSIONS_PER_TOKEN) {
    this.#max = max;
    this.#maxPerToken = maxPerToken;
  }

  /** Opens a session and returns its id: 32 random bytes, base64url (visible ASCII, as MCP requires). */
  open(session: MCPSession): string {
    const id = randomBytes(32).toString("base64url");
    // The map keeps insertion order: the first of this token's sessions found is its oldest.
    const own = [...this.#sessions].filter(([, s]) => s.TokenID === session.TokenID).map(([key]) => key);
    for (const oldest of own.slice(0, Math.max(0, own.length - this.#maxPerToken + 1))) this.#sessions.delete(oldest);
    this.#sessions.set(id, Object.freeze({ ...session }));
    for (const oldest of this.#sessions.keys()) {
      if (this.#sessions.size <= this.#max) break;
      this.#sessions.delete(oldest);
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
    return this.get(id, tokenID) !== undefined && this.#sessions.delete(id);
  }

  /** The number of live sessions. */
  get size(): number {
    return this.#sessions.size;
  }
}
