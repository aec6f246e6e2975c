/*
 * The browser binding of emailed links: a random value in the `framework_signin` cookie whose hash is
 * stored with the link, one per browser (a later `Begin` reuses it), so only the asking browser spends
 * a link (README "Scanner-safe links").
 */
import type { IncomingMessage } from "node:http";
import { LatchCookie } from "../internal/index.ts";
import { HashToken, NewToken, TOKEN_PATTERN } from "../session/index.ts";

/** Base name of the binding cookie (`__Host-` prefixed on https origins). */
export const BINDING_COOKIE: string = "framework_signin";

/** The binding cookie of one origin. */
export class Binding {
  readonly #cookie: LatchCookie;
  readonly #ttl: number;

  constructor(origin: string, ttl: number) {
    this.#cookie = new LatchCookie(BINDING_COOKIE, origin);
    this.#ttl = ttl;
  }

  /** The cookie's name. */
  get name(): string {
    return this.#cookie.name;
  }

  /** Returns the hash of the request's well-formed binding value, or undefined. */
  hashOf(req: IncomingMessage): string | undefined {
    const value = this.#cookie.read(req.headers.cookie);
    return value !== undefined && TOKEN_PATTERN.test(value) ? HashToken(value) : undefined;
  }

  /** Returns the value to bind a new link to (the browser's own, else a new one), its hash and the Set-Cookie line. */
  issue(req: IncomingMessage): { hash: string; setCookie: string } {
    const held = this.#cookie.read(req.headers.cookie);
    const value = held !== undefined && TOKEN_PATTERN.test(held) ? held : NewToken();
    return { hash: HashToken(value), setCookie: this.#cookie.set(value, Math.round(this.#ttl / 1000)) };
  }
}
