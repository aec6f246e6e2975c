/*
 * Passwordless sign-in (SPEC §4.1, §5). Two first factors end in the same
 * place, `#admit`: the emailed single-use link (`Begin` → email → `Verify`)
 * and, for an address with a claimed inbox at the configured provider, that
 * provider's OpenID flow (`Begin` → provider → `Callback`). There the
 * verified address passes `Authorize`, then `SecondFactor`, then becomes
 * the subject of a new session.
 *
 * Outcomes are redirects to `SigninPath` with `sent=1` or `err=` one of
 * rate, address, expired, keymail (keymail adds force=1, which makes the
 * next `Begin` skip the provider).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NewLogger, NewRef, parseOrigin, QueryParams, RequestTarget, SeeOther, WriteText, isLocalPath, readForm, systemClock, type Clock, type HandlerFunc, type Logger, type Middleware } from "../http/index.ts";
import { NewLogMailer, type Mailer } from "../mail/index.ts";
import { Sessions, appendSetCookie, type Identity } from "../session/index.ts";
import { normalizeAddress } from "./address.ts";
import type { Config } from "./config.ts";
import { ErrEmptyInstanceKey, SigninError } from "./errors.ts";
import { LINK_TTL, Links, PURPOSE_SIGNIN } from "./links.ts";
import { signinMessage, sendFailurePage } from "./message.ts";
import { InboxProvider } from "./oidc/provider.ts";
import { RateLimiter } from "./rate.ts";
import { wantsHTML } from "./request.ts";

/** Session method of the emailed-link path. */
export const METHOD_MAGICLINK: string = "magiclink";
/** Session method of the inbox-provider path. */
export const METHOD_KEYMAIL: string = "keymail";

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
 * const auth = New({ DB: db, Origin, InstanceKey, SigninPath: "/signin", SignedInPath: "/account" });
 * mux.Handle("POST /signin", auth.Begin);
 * mux.Handle("GET /auth/verify", auth.Verify);
 * mux.With(auth.RequireSession).Handle("GET /account", account);
 */
export function New(config: Config): Signin {
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
  readonly #recordAccount;

  constructor(config: Config) {
    // SPEC §2.6, §5.9: the instance key seals the pending blob; empty is refused.
    if (typeof config.InstanceKey !== "string" || config.InstanceKey === "") throw new ErrEmptyInstanceKey();
    const origin = parseOrigin(config.Origin);
    if (origin === undefined) throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: Origin must be an http or https URL");
    for (const path of [config.SigninPath, config.SignedInPath]) {
      if (!isLocalPath(path)) {
        throw new SigninError("ERR_SIGNIN_INVALID_CONFIG", "signin: SigninPath and SignedInPath must be local paths");
      }
    }
    this.#config = config;
    this.#origin = origin;
    this.#clock = config.Clock ?? systemClock;
    this.#logger = config.Logger ?? NewLogger();
    this.#mailer = config.Mailer ?? NewLogMailer(this.#logger);
    this.#sessions =
      config.Sessions ??
      new Sessions(config.DB, {
        Origin: origin,
        Clock: this.#clock,
        ...(config.SessionTTL !== undefined && { TTL: config.SessionTTL }),
        ...(config.IdleTimeout !== undefined && { IdleTimeout: config.IdleTimeout }),
      });
    this.#links = new Links(config.DB, this.#clock, config.LinkTTL ?? LINK_TTL);
    this.#rate = new RateLimiter(config.DB, this.#clock, config.RateLimits);
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

  #redirect(res: ServerResponse, location: string): void {
    SeeOther(res, location);
  }

  #outcome(res: ServerResponse, query: string): void {
    this.#redirect(res, `${this.#config.SigninPath}?${query}`);
  }

  #clientIP(req: IncomingMessage): string | undefined {
    return this.#config.ClientIP?.(req) ?? req.socket.remoteAddress;
  }

  /** `POST /signin`: form fields `email` and optional `force=1`. */
  readonly Begin: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const address = normalizeAddress(form.get("email") ?? "");
    if (address === undefined) return this.#outcome(res, "err=address");
    if (!this.#rate.Take(address, this.#clientIP(req))) return this.#outcome(res, "err=rate");
    if (this.#provider !== undefined && form.get("force") !== "1" && (await this.#provider.isClaimed(address))) {
      const upgrade = await this.#provider.begin(address).catch((err: unknown) => {
        // Sign-in never blocks on the provider: without its metadata, email the link instead.
        this.#logger.warn("signin: inbox provider unavailable; sending an emailed link", { ref: NewRef(), error: err });
        return undefined;
      });
      if (upgrade !== undefined) {
        appendSetCookie(res, upgrade.cookie);
        return this.#redirect(res, upgrade.location);
      }
    }
    const { token, hash } = this.#links.Create(address, PURPOSE_SIGNIN);
    const link = `${this.#origin}/auth/verify?token=${token}`;
    const minutes = Math.round((this.#config.LinkTTL ?? LINK_TTL) / 60000);
    const from = this.#config.MailFrom ?? `no-reply@${new URL(this.#origin).hostname}`;
    try {
      await this.#mailer.Send(signinMessage(req, { from, to: address, link, minutes }));
    } catch (err) {
      // No orphan link stays usable when its email never left.
      this.#links.Revoke(hash);
      const ref = NewRef();
      this.#logger.error("signin: sending the link failed", { ref, error: err });
      return sendFailurePage(req, res, ref);
    }
    return this.#outcome(res, "sent=1");
  };

  /** `GET /auth/verify?token=...`: the emailed link's landing. */
  readonly Verify: HandlerFunc = async (req, res) => {
    // RFC 9110 §9.3.2: HEAD is safe. Mail scanners probe links with it; it must not spend the token.
    if (req.method === "HEAD") {
      res.setHeader("Cache-Control", "no-store");
      return void res.end();
    }
    const token = QueryParams(req).get("token") ?? "";
    // SPEC §3.2: the token is spent whatever the cause of failure; one indistinguishable outcome.
    const address = token === "" ? undefined : this.#links.Consume(token, PURPOSE_SIGNIN);
    if (address === undefined) return this.#outcome(res, "err=expired");
    return this.#admit(req, res, address, METHOD_MAGICLINK);
  };

  /** `GET /auth/callback`: the inbox provider's return point. */
  readonly Callback: HandlerFunc = async (req, res) => {
    if (this.#provider === undefined) return this.#outcome(res, "err=keymail&force=1");
    const query = QueryParams(req);
    const result = await this.#provider.complete(query, req.headers.cookie);
    appendSetCookie(res, this.#provider.clearCookie());
    // The provider logged the refusal with its reason and reference.
    if (!result.ok) return this.#outcome(res, "err=keymail&force=1");
    return this.#admit(req, res, result.address, METHOD_KEYMAIL);
  };

  /** `POST /signout`: ends the session and clears its cookie. */
  readonly Signout: HandlerFunc = (req, res) => {
    this.#sessions.Destroy(req, res);
    this.#redirect(res, this.#config.SigninPath);
  };

  // SPEC §5.3–5.4: Authorize gates the verified address; SecondFactor runs where the session would be minted.
  async #admit(req: IncomingMessage, res: ServerResponse, address: string, method: string): Promise<void> {
    if (this.#config.Authorize !== undefined && !(await this.#config.Authorize(address))) {
      return this.#outcome(res, "err=address");
    }
    const now = this.#clock.now();
    this.#recordAccount.run({ address, now: now.getTime() });
    const identity: Identity = { Subject: address, Method: method, AuthTime: now };
    if (this.#config.SecondFactor !== undefined && (await this.#config.SecondFactor(req, res, identity))) return;
    this.#sessions.Create(req, res, identity);
    this.#redirect(res, this.#config.SignedInPath);
  }

  #refuse(req: IncomingMessage, res: ServerResponse, location: string, status: number, text: string): void {
    if (wantsHTML(req)) return this.#redirect(res, location);
    WriteText(res, status, `${status} ${text}`);
  }

  /**
   * Middleware requiring a live session. It binds the identity and the
   * session to the request (`From`, `SessionFrom`, session `Current`).
   * Without one: HTML requests are redirected (303) to `SigninPath`,
   * others get 401.
   */
  readonly RequireSession: Middleware = (next) => {
    const requireSession: HandlerFunc = (req, res) => {
      const session = this.#sessions.Read(req);
      if (session === undefined) return this.#refuse(req, res, this.#config.SigninPath, 401, "unauthorized: sign in first");
      return next(req, res);
    };
    return requireSession;
  };

  /** Middleware binding the session when there is one, and passing either way. */
  readonly LoadSession: Middleware = (next) => {
    const loadSession: HandlerFunc = (req, res) => {
      this.#sessions.Read(req);
      return next(req, res);
    };
    return loadSession;
  };

  /**
   * Middleware requiring a session authenticated within `maxAge` ms
   * (since its `AuthTime`). A stale session is refused: HTML requests are
   * redirected (303) to `StalePath` (default `SigninPath`) with
   * `?next=<path>`, where the app offers a passkey step-up or a fresh
   * sign-in; others get 401. No session at all behaves as `RequireSession`.
   */
  RequireFreshSession(maxAge: number): Middleware {
    return (next) => {
      const requireFreshSession: HandlerFunc = (req, res) => {
        const session = this.#sessions.Read(req);
        if (session === undefined) return this.#refuse(req, res, this.#config.SigninPath, 401, "unauthorized: sign in first");
        if (this.#clock.now().getTime() - session.AuthTime.getTime() > maxAge) {
          // next= is a local path: an absolute-form request target (RFC 9112 §3.2.2) must not put a foreign URL there.
          // A form POST cannot be replayed by a redirect back: only safe requests name themselves as next.
          const safe = req.method === "GET" || req.method === "HEAD";
          const next = safe ? `?next=${encodeURIComponent(RequestTarget(req))}` : "";
          return this.#refuse(req, res, `${this.#config.StalePath ?? this.#config.SigninPath}${next}`, 401, "unauthorized: session too old, authenticate again");
        }
        return next(req, res);
      };
      return requireFreshSession;
    };
  }

  /** Deletes expired links, sessions and rate-limit events. */
  Sweep(now: Date): SweepResult {
    return { Links: this.#links.Sweep(now), Sessions: this.#sessions.Sweep(now), RateEvents: this.#rate.Sweep(now) };
  }
}
