/*
 * The browser binding of emailed links. `Begin` gives the asking browser a
 * random value in a short-lived cookie (`framework_signin`, `__Host-` on
 * https; HttpOnly so no script reads it, SameSite=Lax so it still rides
 * along on the top-level navigation from the mail client) and stores only
 * its hash with the link. `Verify` spends a link only for the browser
 * holding that value; any other opener (a mail scanner, another device, a
 * victim lured to an attacker's link) spends nothing.
 *
 * One value per browser: a later `Begin` reuses a well-formed value the
 * browser still holds (and extends its life), so every link asked for
 * from that browser within the window works there.
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
    const setCookie = this.#cookie.set(value, Math.round(this.#ttl / 1000));
    return { hash: HashToken(value), setCookie };
  }
}
