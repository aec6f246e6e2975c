/*
 * Passwordless sign-in (SPEC §4.1, §5): the component an application creates and mounts. Its first
 * factors are first-factors.ts, its session guards and forms session-handlers.ts; this file holds
 * what it shares with components above it (`IssueLink`, `SpendLink`, `SpendCode`) and `Sweep`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sweepInSteps } from "../db/index.ts";
import { type HandlerFunc, type Middleware } from "../http/index.ts";
import { appendSetCookie, durationProblem } from "../internal/index.ts";
import type { Sessions } from "../session/index.ts";
import type { Config } from "./config.ts";
import { SigninError } from "./errors.ts";
import { begin, callback, signinContext, typedCode, verify, verifyCode, type SigninContext } from "./first-factors.ts";
import { PURPOSE_SIGNIN } from "./links.ts";
import { loadSession, requireFreshSession, requireSession, revokeOtherSessions, revokeSession, signout } from "./session-handlers.ts";

/** A link `IssueLink` made: what to email, and how to void it. */
export interface IssuedLink {
  /** The link's token (put it in the emailed URL). */
  Token: string;
  /** The link's CODE_LENGTH-digit code, for the email. */
  Code: string;
  /** Voids the link (its email could not be sent). */
  revoke(): void;
}

/** What `Sweep` deleted. */
export interface SweepResult {
  Links: number;
  Sessions: number;
  RateEvents: number;
}

/**
 * Creates the sign-in component (README has the routes to mount). Throws `ErrEmptyInstanceKey` when
 * `InstanceKey` is empty, `SigninError` for other invalid configuration.
 */
export function create(config: Config): Signin {
  return new Signin(config);
}

/** The sign-in component: its handlers, middleware and maintenance. */
export class Signin {
  readonly #ctx: SigninContext;

  constructor(config: Config) {
    this.#ctx = signinContext(config);
  }

  /** The session store this component mints into (share it with the passkey component). */
  get Sessions(): Sessions {
    return this.#ctx.sessions;
  }

  /** Returns the session cookie's name. */
  SessionCookie(): string {
    return this.#ctx.sessions.CookieName;
  }

  /** `POST /signin`: form fields `email` and optional `force=1`; emails a link and code, or redirects to the inbox provider. */
  readonly Begin: HandlerFunc = (req, res) => begin(this.#ctx, req, res);

  /** `GET /auth/verify?token=...`: the emailed link's landing (signs in only in the browser that asked). */
  readonly Verify: HandlerFunc = (req, res) => verify(this.#ctx, req, res);

  /** `POST /auth/code`, form field `code`: the sign-in code typed into the browser that asked for the link. */
  readonly VerifyCode: HandlerFunc = (req, res) => verifyCode(this.#ctx, req, res);

  /** `GET /auth/callback`: the inbox provider's return point. */
  readonly Callback: HandlerFunc = (req, res) => callback(this.#ctx, req, res);

  /** `POST /signout`: ends the session and clears its cookie. */
  readonly Signout: HandlerFunc = (req, res) => signout(this.#ctx, req, res);

  /** Form POST with field `id`: ends one of the session subject's sessions (its public id); 303 to `SessionsPath`. */
  readonly RevokeSession: HandlerFunc = (req, res) => revokeSession(this.#ctx, req, res);

  /** Form POST: ends every session of the subject but the current one; 303 to `SessionsPath`. */
  readonly RevokeOtherSessions: HandlerFunc = (req, res) => revokeOtherSessions(this.#ctx, req, res);

  /** Middleware requiring a live session, bound to the request (`From`); without one, 303 to `SigninPath` for HTML, else 401. */
  readonly RequireSession: Middleware = (next) => requireSession(this.#ctx, next);

  /** Middleware binding the session when there is one, and passing either way. */
  readonly LoadSession: Middleware = (next) => loadSession(this.#ctx.sessions, next);

  /**
   * Middleware requiring a session whose `AuthTime` is within `maxAge` ms; a stale one gets 303 to
   * `StalePath?next=<path>` (a step-up or fresh sign-in) for HTML, else 401; none is `RequireSession`'s.
   * Throws ERR_SIGNIN_INVALID_CONFIG for a `maxAge` that is not a whole number of ms from 1 to MAX_TIMER_MS.
   */
  RequireFreshSession(maxAge: number): Middleware {
    // OWASP ASVS 5.0 §7.5.1: the freshness gate must not fail open. Checked once, as every other duration: NaN
    // (Number(undefined) * 1000) compares false with any age, so unchecked it would pass a session of any age.
    const problem = durationProblem(maxAge);
    if (problem !== undefined) throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", `signin: RequireFreshSession maxAge ${problem}`);
    return (next) => requireFreshSession(this.#ctx, maxAge, next);
  }

  /**
   * Issues a link and code of `purpose` (never the sign-in purpose, so neither can stand for the other)
   * for `address`, bound to the asking browser, for a component that proves an inbox (lib/account).
   */
  IssueLink(req: IncomingMessage, res: ServerResponse, address: string, purpose: string): IssuedLink {
    if (purpose === PURPOSE_SIGNIN || purpose === "")
      throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: IssueLink takes a purpose of its own, not signin");
    const binding = this.#ctx.binding.issue(req);
    const { token, hash, code } = this.#ctx.links.create(address, purpose, binding.hash);
    appendSetCookie(res, binding.setCookie);
    return { Token: token, Code: code, revoke: () => this.#ctx.links.revoke(hash) };
  }

  /** Spends an `IssueLink` token in its bound browser (whatever the outcome; another spends nothing): its address if live, of `purpose`. */
  SpendLink(req: IncomingMessage, token: string, purpose: string): string | undefined {
    const bound = this.#ctx.binding.hashOf(req);
    if (token === "" || bound === undefined) return undefined;
    return this.#ctx.links.consume(token, purpose, bound).address;
  }

  /** Spends the live `IssueLink` link of `purpose` whose code is `code`, typed in its bound browser under sign-in's wrong-code limits. */
  SpendCode(req: IncomingMessage, code: string, purpose: string): string | undefined {
    const bound = this.#ctx.binding.hashOf(req);
    if (bound === undefined) return undefined;
    const result = this.#ctx.links.consumeCode(bound, typedCode(code), purpose, this.#ctx.rate);
    return result.ok ? result.address : undefined;
  }

  /** Deletes expired links, sessions and rate events in `sweepInSteps`' bounded steps (lib/db; the first before it returns). */
  Sweep(now: Date): Promise<SweepResult> {
    const { links, sessions, rate } = this.#ctx;
    return sweepInSteps(this.#ctx.config.DB, {
      Links: (limit) => links.Sweep(now, limit),
      Sessions: (limit) => sessions.Sweep(now, limit),
      RateEvents: (limit) => rate.Sweep(now, limit),
    });
  }
}
