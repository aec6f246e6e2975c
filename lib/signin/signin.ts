/*
 * Passwordless sign-in (SPEC §4.1, §5). Three first factors end in the
 * same place, `#admit`: the emailed single-use link opened in the browser
 * that asked for it (`Begin` → email → `Verify`), the link's 6-digit code
 * typed into that browser (`Begin` → email → `VerifyCode`) and, for an
 * address with a claimed inbox at the configured provider, that provider's
 * OpenID flow (`Begin` → provider → `Callback`). There the verified address
 * passes `Authorize`, then `SecondFactor`, then becomes the subject of a
 * new session.
 *
 * Links are bound to the asking browser (binding.ts): any other opener
 * spends nothing and sees the code instead (README "Scanner-safe links").
 *
 * Outcomes are redirects to `SigninPath` with `sent=1` or `err=` one of
 * rate, address, expired, keymail (keymail adds force=1, which makes the
 * next `Begin` skip the provider), and latch's `code` (a code refused).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { awaitDurable, sweepInSteps } from "../db/index.ts";
import {
  newLogger,
  NewRef,
  queryParams,
  seeOther,
  writeJSON,
  isLocalPath,
  readForm,
  systemClock,
  type Clock,
  type HandlerFunc,
  type Logger,
  type Middleware,
} from "../http/index.ts";
import { appendSetCookie, crossOriginVerdict, writeText, clientAddress, rememberNext, takeNext } from "../internal/index.ts";
import { newLogMailer, type Mailer } from "../mail/index.ts";
import { Sessions, authEventEmitter, type AuthEventEmitter, type Identity } from "../session/index.ts";
import { normalizeAddress } from "./address.ts";
import { Binding } from "./binding.ts";
import { checkConfig, type Config } from "./config.ts";
import { SigninError } from "./errors.ts";
import { deriveCodeKey } from "./link-code.ts";
import { LINK_TTL, Links, PURPOSE_SIGNIN } from "./links.ts";
import { codePage, signinMessage, sendFailurePage } from "./message.ts";
import { InboxProvider } from "./oidc/provider.ts";
import { RateLimiter } from "./rate.ts";
import { wantsJSON } from "./request.ts";
import {
  loadSession,
  requireFreshSession,
  requireSession,
  revokeOtherSessions,
  revokeSession,
  type SessionHandlersContext,
} from "./session-handlers.ts";

/** Session method of the emailed-link path. */
export const METHOD_MAGICLINK: string = "magiclink";
/** Session method of the inbox-provider path. */
export const METHOD_KEYMAIL: string = "keymail";
/** Session method of the emailed code typed into the asking browser. */
export const METHOD_EMAIL_CODE: string = "emailcode";

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
  readonly #config: Config;
  readonly #origin: string;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #mailer: Mailer;
  readonly #sessions: Sessions;
  readonly #links: Links;
  readonly #rate: RateLimiter;
  readonly #provider: InboxProvider | undefined;
  readonly #binding: Binding;
  readonly #linkTTL: number;
  readonly #emit: AuthEventEmitter;
  readonly #recordAccount;
  readonly #isReturning;

  constructor(config: Config) {
    const origin = checkConfig(config);
    this.#config = config;
    this.#origin = origin;
    this.#clock = config.Clock ?? systemClock;
    this.#logger = config.Logger ?? newLogger();
    this.#mailer = config.Mailer ?? newLogMailer(this.#logger);
    this.#sessions =
      config.Sessions ??
      new Sessions(config.DB, {
        Origin: origin,
        Clock: this.#clock,
        ...(config.SessionTTL !== undefined && { TTL: config.SessionTTL }),
        ...(config.IdleTimeout !== undefined && { IdleTimeout: config.IdleTimeout }),
      });
    this.#linkTTL = config.LinkTTL ?? LINK_TTL;
    this.#links = new Links(config.DB, this.#clock, deriveCodeKey(config.InstanceKey), this.#linkTTL);
    this.#binding = new Binding(origin, this.#linkTTL);
    this.#emit = authEventEmitter(config, this.#clock, this.#logger);
    this.#rate = new RateLimiter(config.DB, this.#clock, config.RateLimits);
    this.#isReturning = config.DB.prepare<[string], { n: number }>("SELECT 1 AS n FROM signin_accounts WHERE address = ?");
    this.#recordAccount = config.DB.prepare(
      `INSERT INTO signin_accounts (address, first_signin_at, last_signin_at) VALUES (@address, @now, @now)
       ON CONFLICT (address) DO UPDATE SET last_signin_at = @now`,
    );
    this.#provider =
      config.Provider === undefined
        ? undefined
        : new InboxProvider({
            Issuer: config.Provider.Issuer,
            ClientID: origin,
            RedirectURI: `${origin}/auth/callback`,
            InstanceKey: config.InstanceKey,
            Clock: this.#clock,
            Logger: this.#logger,
            ...(config.Provider.Lookup !== undefined && { Lookup: config.Provider.Lookup }),
            ...(config.Provider.LookupTimeout !== undefined && { LookupTimeout: config.Provider.LookupTimeout }),
          });
  }

  /** The session store this component mints into (share it with the passkey component). */
  get Sessions(): Sessions {
    return this.#sessions;
  }

  /** Returns the session cookie's name. */
  SessionCookie(): string {
    return this.#sessions.CookieName;
  }

  #outcome(res: ServerResponse, query: string): void {
    seeOther(res, `${this.#config.SigninPath}?${query}`);
  }

  /**
   * Refuses a cross-origin POST with 403 (W3C Fetch Metadata §2.4, RFC 6454
   * §7) even without `crossOriginProtection` in `Wrap`: a cross-site form
   * that starts a sign-in for the attacker's address would bind the
   * victim's browser to the attacker's link (login CSRF).
   */
  #refusedCrossOrigin(req: IncomingMessage, res: ServerResponse): boolean {
    if (crossOriginVerdict(req, this.#origin) !== "cross-origin") return false;
    writeText(res, 403, "403 forbidden: cross-origin request refused");
    return true;
  }

  /** `POST /signin`: form fields `email` and optional `force=1`. */
  readonly Begin: HandlerFunc = async (req, res) => {
    if (this.#refusedCrossOrigin(req, res)) return;
    const form = await readForm(req);
    const address = normalizeAddress(form.get("email") ?? "");
    // The sign-in page may carry ?next= as a form field; only a local path is remembered (never another origin).
    const next = form.get("next");
    if (next !== null && isLocalPath(next)) rememberNext(res, this.#origin, next);
    if (address === undefined) return this.#outcome(res, "err=address");
    const rate = this.#rate.Take(address, clientAddress(req, this.#config.ClientIP), this.#isReturning.get(address) !== undefined);
    if (!rate.ok) {
      this.#emit(req, { Kind: "rate_limited", Subject: address, Reason: rate.limit });
      // RFC 6585 §4: 429 with Retry-After for clients that read status codes; browsers get the page's message.
      if (!wantsJSON(req)) return this.#outcome(res, "err=rate");
      res.setHeader("Retry-After", String(rate.retryAfter));
      return writeJSON(res, 429, { error: "rate" });
    }
    if (this.#provider !== undefined && form.get("force") !== "1" && (await this.#provider.isClaimed(address))) {
      const upgrade = await this.#provider.begin(address).catch((err: unknown) => {
        // Sign-in never blocks on the provider: without its metadata, email the link instead.
        this.#logger.warn("signin: inbox provider unavailable; sending an emailed link", { ref: NewRef(), error: err });
        return undefined;
      });
      if (upgrade !== undefined) {
        appendSetCookie(res, upgrade.cookie);
        return seeOther(res, upgrade.location);
      }
    }
    const binding = this.#binding.issue(req);
    const { token, hash, code } = this.#links.create(address, PURPOSE_SIGNIN, binding.hash);
    const link = `${this.#origin}/auth/verify?token=${token}`;
    const minutes = Math.round(this.#linkTTL / 60000);
    const from = this.#config.MailFrom ?? `no-reply@${new URL(this.#origin).hostname}`;
    try {
      await this.#mailer.Send(signinMessage(req, { from, to: address, link, code, minutes }));
    } catch (err) {
      // No orphan link stays usable when its email never left.
      this.#links.revoke(hash);
      const ref = NewRef();
      this.#logger.error("signin: sending the link failed", { ref, error: err });
      return sendFailurePage(req, res, ref);
    }
    appendSetCookie(res, binding.setCookie);
    this.#emit(req, { Kind: "link_requested", Subject: address });
    return this.#outcome(res, "sent=1");
  };

  /**
   * `GET /auth/verify?token=...`: the emailed link's landing. In the
   * browser that asked (its binding cookie matches) the link is spent and
   * signs in. Any other opener spends nothing: a live link shows the
   * address and the sign-in code (a page with nothing to press), anything
   * else answers `?err=expired`.
   */
  readonly Verify: HandlerFunc = async (req, res) => {
    // RFC 9110 §9.3.2: HEAD is safe. Mail scanners probe links with it; it must not spend the token.
    if (req.method === "HEAD") {
      res.setHeader("Cache-Control", "no-store");
      return void res.end();
    }
    const token = queryParams(req).get("token") ?? "";
    const bound = this.#binding.hashOf(req);
    // SPEC §3.2: in the bound browser the token is spent whatever the cause of failure; one indistinguishable outcome.
    const spent = token === "" || bound === undefined ? undefined : this.#links.consume(token, PURPOSE_SIGNIN, bound);
    if (spent?.address !== undefined) return this.#admit(req, res, spent.address, METHOD_MAGICLINK);
    // OWASP ASVS 5.0 §6.6.2: the link is bound to the request that asked for it; another browser cannot spend it.
    const view = spent?.spent !== true && token !== "" ? this.#links.peek(token, PURPOSE_SIGNIN) : undefined;
    if (view === undefined) {
      this.#emit(req, { Kind: "signin_refused", Reason: "link" });
      return this.#outcome(res, "err=expired");
    }
    const minutes = Math.max(1, Math.ceil((view.expiresAt.getTime() - this.#clock.now().getTime()) / 60000));
    codePage(req, res, { address: view.address, code: view.code, minutes });
  };

  /**
   * `POST /auth/code`, form field `code`: the sign-in code typed into the
   * browser that asked for the link. A refused code (malformed, wrong, of
   * another browser, already used, or no binding at all) answers
   * `?err=code`, one indistinguishable outcome; the wrong try that reaches
   * MAX_CODE_ATTEMPTS voids the browser's pending sign-ins and answers
   * `?err=expired`.
   */
  readonly VerifyCode: HandlerFunc = async (req, res) => {
    if (this.#refusedCrossOrigin(req, res)) return;
    const form = await readForm(req);
    const bound = this.#binding.hashOf(req);
    const typed = (form.get("code") ?? "").replace(/[\s-]/g, "").slice(0, 64);
    const result =
      bound === undefined
        ? { ok: false as const, reason: "wrong" as const }
        : this.#links.consumeCode(bound, typed, PURPOSE_SIGNIN, this.#rate);
    if (result.ok) return this.#admit(req, res, result.address, METHOD_EMAIL_CODE);
    this.#emit(req, { Kind: "signin_refused", Reason: result.reason === "voided" ? "code_attempts" : "code" });
    return this.#outcome(res, result.reason === "voided" ? "err=expired" : "err=code");
  };

  /** `GET /auth/callback`: the inbox provider's return point. */
  readonly Callback: HandlerFunc = async (req, res) => {
    if (this.#provider === undefined) return this.#outcome(res, "err=keymail&force=1");
    const query = queryParams(req);
    const result = await this.#provider.complete(query, req.headers.cookie);
    appendSetCookie(res, this.#provider.clearCookie());
    // The provider logged the refusal with its reason and reference.
    if (!result.ok) {
      this.#emit(req, { Kind: "signin_refused", Reason: `keymail_${result.reason}` });
      return this.#outcome(res, "err=keymail&force=1");
    }
    return this.#admit(req, res, result.address, METHOD_KEYMAIL, result.authTime);
  };

  /** `POST /signout`: ends the session and clears its cookie. */
  readonly Signout: HandlerFunc = (req, res) => {
    const subject = this.#sessions.read(req)?.Subject;
    this.#atomically(() => {
      this.#sessions.destroy(req, res);
      if (subject !== undefined) this.#emit(req, { Kind: "signed_out", Subject: subject });
    });
    seeOther(res, this.#config.SigninPath);
  };

  /** Form POST with field `id`: ends one of the session subject's sessions (its public id); 303 to `SessionsPath`. */
  readonly RevokeSession: HandlerFunc = (req, res) => revokeSession(this.#manage, req, res);

  /** Form POST: ends every session of the subject but the current one; 303 to `SessionsPath`. */
  readonly RevokeOtherSessions: HandlerFunc = (req, res) => revokeOtherSessions(this.#manage, req, res);

  get #manage(): SessionHandlersContext {
    return {
      sessions: this.#sessions,
      signinPath: this.#config.SigninPath,
      sessionsPath: this.#config.SessionsPath ?? this.#config.SignedInPath,
      stalePath: this.#config.StalePath ?? this.#config.SigninPath,
      origin: this.#origin,
      clock: this.#clock,
      emit: this.#emit,
      atomically: (fn) => this.#atomically(fn),
    };
  }

  // SPEC §5.3–5.4: Authorize gates the verified address; SecondFactor runs where the session would be minted.
  async #admit(req: IncomingMessage, res: ServerResponse, address: string, method: string, authTime?: Date): Promise<void> {
    if (this.#config.Authorize !== undefined && !(await this.#config.Authorize(address))) {
      this.#emit(req, { Kind: "signin_refused", Subject: address, Reason: "not_authorized" });
      return this.#outcome(res, "err=address");
    }
    const now = this.#clock.now();
    this.#recordAccount.run({ address, now: now.getTime() });
    const identity: Identity = { Subject: address, Method: method, AuthTime: authTime ?? now };
    if (this.#config.SecondFactor !== undefined && (await this.#config.SecondFactor(req, res, identity))) return;
    this.#atomically(() => {
      this.#sessions.create(req, res, identity);
      this.#emit(req, { Kind: "signed_in", Subject: address, Method: method });
    });
    // A new session must outlive the machine before its cookie is handed out (Options.Durable).
    await awaitDurable(this.#config.DB);
    // Back to the page that sent the person here (RequireFreshSession, an OAuth authorization request), if on this origin.
    const next = takeNext(req, res, this.#origin);
    seeOther(res, next !== undefined && isLocalPath(next) ? next : this.#config.SignedInPath);
  }

  // SPEC §6.2: a session change and its auth event commit together; a sink that throws (an audit
  // stream that cannot be appended to) rolls the change back (lib/events README "A write and its event").
  #atomically<T>(fn: () => T): T {
    return this.#config.DB.transaction(fn).immediate();
  }

  /**
   * Middleware requiring a live session. It binds the identity and the
   * session to the request (`From`, `SessionFrom`, session `currentSession`).
   * Without one: HTML requests are redirected (303) to `SigninPath`,
   * others get 401.
   */
  readonly RequireSession: Middleware = (next) => requireSession(this.#manage, next);

  /** Middleware binding the session when there is one, and passing either way. */
  readonly LoadSession: Middleware = (next) => loadSession(this.#sessions, next);

  /**
   * Middleware requiring a session authenticated within `maxAge` ms
   * (since its `AuthTime`). A stale session is refused: HTML requests are
   * redirected (303) to `StalePath` (default `SigninPath`) with
   * `?next=<path>`, where the app offers a passkey step-up or a fresh
   * sign-in; others get 401. No session at all behaves as `RequireSession`.
   */
  RequireFreshSession(maxAge: number): Middleware {
    return (next) => requireFreshSession(this.#manage, maxAge, next);
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
    const binding = this.#binding.issue(req);
    const { token, hash, code } = this.#links.create(address, purpose, binding.hash);
    appendSetCookie(res, binding.setCookie);
    return { Token: token, Code: code, revoke: () => this.#links.revoke(hash) };
  }

  /**
   * Spends an `IssueLink` token in the browser it was bound to and returns
   * its address when it was live and of `purpose`. The bound browser's
   * token is spent whatever the outcome (a second use finds nothing);
   * another browser spends nothing and gets undefined.
   */
  SpendLink(req: IncomingMessage, token: string, purpose: string): string | undefined {
    const bound = this.#binding.hashOf(req);
    if (token === "" || bound === undefined) return undefined;
    return this.#links.consume(token, purpose, bound).address;
  }

  /**
   * Spends the live `IssueLink` link of `purpose` whose code is `code`,
   * typed into the browser it was bound to, under the same wrong-code
   * limits as a sign-in code; returns its address, or undefined.
   */
  SpendCode(req: IncomingMessage, code: string, purpose: string): string | undefined {
    const bound = this.#binding.hashOf(req);
    if (bound === undefined) return undefined;
    const result = this.#links.consumeCode(bound, code.replace(/[\s-]/g, "").slice(0, 64), purpose, this.#rate);
    return result.ok ? result.address : undefined;
  }

  /**
   * Deletes expired links, sessions and rate-limit events, one table after
   * another, in `sweepInSteps`' bounded steps (lib/db): a million expired
   * rows never hold a request back for long (issue 27). The first step runs
   * before it returns.
   */
  Sweep(now: Date): Promise<SweepResult> {
    return sweepInSteps(this.#config.DB, {
      Links: (limit) => this.#links.Sweep(now, limit),
      Sessions: (limit) => this.#sessions.Sweep(now, limit),
      RateEvents: (limit) => this.#rate.Sweep(now, limit),
    });
  }
}
