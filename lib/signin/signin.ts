/*
 * Passwordless sign-in (SPEC §4.1, §5): the component an application creates and mounts. Its first
 * factors are first-factors.ts, its session guards and forms session-handlers.ts; this file holds
 * what it shares with components above it (`IssueLink`, `SpendLink`, `SpendCode`) and `Sweep`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { sweepInSteps } from "../db/index.ts";
import { type HandlerFunc, type Middleware } from "../http/index.ts";
import { appendSetCookie } from "../internal/index.ts";
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
 * Creates the sign-in component. Throws `ErrEmptyInstanceKey` when
 * `InstanceKey` is empty, `SigninError` for other invalid configuration.
 *
 * @example
 * const auth = create({ DB: db, Origin, InstanceKey, SigninPath: "/signin", SignedInPath: "/account" });
 * mux.Handle("POST /signin", auth.Begin);
 * mux.Handle("GET /auth/verify", auth.Verify);
 * mux.With(auth.RequireSession).Handle("GET /account", account);
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

  /**
   * Middleware requiring a live session. It binds the identity and the
   * session to the request (`From`, `SessionFrom`, session `currentSession`).
   * Without one: HTML requests are redirected (303) to `SigninPath`,
   * others get 401.
   */
  readonly RequireSession: Middleware = (next) => requireSession(this.#ctx, next);

  /** Middleware binding the session when there is one, and passing either way. */
  readonly LoadSession: Middleware = (next) => loadSession(this.#ctx.sessions, next);

  /**
   * Middleware requiring a session authenticated within `maxAge` ms
   * (since its `AuthTime`). A stale session is refused: HTML requests are
   * redirected (303) to `StalePath` (default `SigninPath`) with
   * `?next=<path>`, where the app offers a passkey step-up or a fresh
   * sign-in; others get 401. No session at all behaves as `RequireSession`.
   */
  RequireFreshSession(maxAge: number): Middleware {
    return (next) => requireFreshSession(this.#ctx, maxAge, next);
  }

  /**
   * Issues an emailed link and code of `purpose` for `address`, bound to
   * the asking browser (its binding cookie is set on `res`), for a
   * component above sign-in that proves an inbox the way sign-in does
   * (lib/account: a change of address). `purpose` must not be the sign-in
   * purpose, so such a link can never sign in and a sign-in link can never
   * confirm it. Returns the token and code to email, and `revoke` for a
   * link whose email could not be sent.
   */
  IssueLink(req: IncomingMessage, res: ServerResponse, address: string, purpose: string): IssuedLink {
    if (purpose === PURPOSE_SIGNIN || purpose === "")
      throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: IssueLink takes a purpose of its own, not signin");
    const binding = this.#ctx.binding.issue(req);
    const { token, hash, code } = this.#ctx.links.create(address, purpose, binding.hash);
    appendSetCookie(res, binding.setCookie);
    return { Token: token, Code: code, revoke: () => this.#ctx.links.revoke(hash) };
  }

  /**
   * Spends an `IssueLink` token in the browser it was bound to and returns
   * its address when it was live and of `purpose`. The bound browser's
   * token is spent whatever the outcome (a second use finds nothing);
   * another browser spends nothing and gets undefined.
   */
  SpendLink(req: IncomingMessage, token: string, purpose: string): string | undefined {
    const bound = this.#ctx.binding.hashOf(req);
    if (token === "" || bound === undefined) return undefined;
    return this.#ctx.links.consume(token, purpose, bound).address;
  }

  /**
   * Spends the live `IssueLink` link of `purpose` whose code is `code`,
   * typed into the browser it was bound to, under the same wrong-code
   * limits as a sign-in code; returns its address, or undefined.
   */
  SpendCode(req: IncomingMessage, code: string, purpose: string): string | undefined {
    const bound = this.#ctx.binding.hashOf(req);
    if (bound === undefined) return undefined;
    const result = this.#ctx.links.consumeCode(bound, typedCode(code), purpose, this.#ctx.rate);
    return result.ok ? result.address : undefined;
  }

  /**
   * Deletes expired links, sessions and rate-limit events, one table after
   * another, in `sweepInSteps`' bounded steps (lib/db): a million expired
   * rows never hold a request back for long (issue 27). The first step runs
   * before it returns.
   */
  Sweep(now: Date): Promise<SweepResult> {
    const { links, sessions, rate } = this.#ctx;
    return sweepInSteps(this.#ctx.config.DB, {
      Links: (limit) => links.Sweep(now, limit),
      Sessions: (limit) => sessions.Sweep(now, limit),
      RateEvents: (limit) => rate.Sweep(now, limit),
    });
  }
}
