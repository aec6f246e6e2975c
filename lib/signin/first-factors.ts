/*
 * The three first factors (SPEC §4.1, §5), each ending in `admit`: the emailed link opened in the
 * browser that asked for it (`begin` → email → `verify`), its code typed there (`verifyCode`), and
 * the inbox provider's OpenID flow (`begin` → provider → `callback`). Links are bound to the asking
 * browser (binding.ts; README "Scanner-safe links"); outcomes are README "What it owns".
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { awaitDurable } from "../db/index.ts";
import { newLogger, NewRef, queryParams, seeOther, writeJSON, isLocalPath, readForm, systemClock } from "../http/index.ts";
import type { Logger } from "../http/index.ts";
import { appendSetCookie, clientAddress, isLogMailer, rememberNext, takeNext, immediately } from "../internal/index.ts";
import { newLogMailer, type Mailer } from "../mail/index.ts";
import { Sessions, authEventEmitter, type Identity } from "../session/index.ts";
import { normalizeAddress } from "./address.ts";
import { Binding } from "./binding.ts";
import { checkConfig, type Config } from "./config.ts";
import { deriveCodeKey } from "./link-code.ts";
import { LINK_TTL, Links, PURPOSE_SIGNIN } from "./links.ts";
import { codePage, signinMessage, sendFailurePage } from "./message.ts";
import { InboxProvider } from "./oidc/provider.ts";
import { RateLimiter } from "./rate.ts";
import { rateHint } from "./rate-hint.ts";
import { refusedCrossOrigin, wantsJSON } from "./request.ts";
import type { SessionHandlersContext } from "./session-handlers.ts";

/** Session method of the emailed-link path. */
export const METHOD_MAGICLINK: string = "magiclink";
/** Session method of the inbox-provider path. */
export const METHOD_KEYMAIL: string = "keymail";
/** Session method of the emailed code typed into the asking browser. */
export const METHOD_EMAIL_CODE: string = "emailcode";

/** What the sign-in handlers share: the checked configuration and the stores built from it. */
export interface SigninContext extends SessionHandlersContext {
  config: Config;
  logger: Logger;
  mailer: Mailer;
  links: Links;
  rate: RateLimiter;
  /** The limits `rate` enforces, for the development hint. */
  binding: Binding;
  linkTTL: number;
  provider: InboxProvider | undefined;
  /** Reports whether `address` has signed in before (`signin_accounts`). */
  isReturning(address: string): boolean;
  /** Records a sign-in of `address` at `now` (ms) in `signin_accounts`. */
  recordAccount(address: string, now: number): void;
}

/** Checks `config` and builds the context of its handlers. */
export function signinContext(config: Config): SigninContext {
  const origin = checkConfig(config);
  const clock = config.Clock ?? systemClock;
  const logger = config.Logger ?? newLogger();
  const linkTTL = config.LinkTTL ?? LINK_TTL;
  const returning = config.DB.prepare<[string], { n: number }>("SELECT 1 AS n FROM signin_accounts WHERE address = ?");
  const record = config.DB.prepare(
    `INSERT INTO signin_accounts (address, first_signin_at, last_signin_at) VALUES (@address, @now, @now)
       ON CONFLICT (address) DO UPDATE SET last_signin_at = @now`,
  );
  const sessionOptions = {
    Origin: origin,
    Clock: clock,
    ...(config.SessionTTL !== undefined && { TTL: config.SessionTTL }),
    ...(config.IdleTimeout !== undefined && { IdleTimeout: config.IdleTimeout }),
  };
  const { Provider, InstanceKey } = config;
  const redirect = `${origin}/auth/callback`;
  return {
    config,
    origin,
    clock,
    logger,
    linkTTL,
    mailer: config.Mailer ?? newLogMailer(logger),
    sessions: config.Sessions ?? new Sessions(config.DB, sessionOptions),
    links: new Links(config.DB, clock, deriveCodeKey(config.InstanceKey), linkTTL),
    binding: new Binding(origin, linkTTL),
    emit: authEventEmitter(config, clock, logger),
    rate: new RateLimiter(config.DB, clock, config.RateLimits),
    signinPath: config.SigninPath,
    sessionsPath: config.SessionsPath ?? config.SignedInPath,
    stalePath: config.StalePath ?? config.SigninPath,
    // SPEC §6.2: a session change and its auth event commit together; a sink that throws (an audit
    // stream that cannot be appended to) rolls the change back (lib/events README "A write and its event").
    atomically: (fn) => immediately(config.DB, fn),
    isReturning: (address) => returning.get(address) !== undefined,
    recordAccount: (address, now) => void record.run({ address, now }),
    provider:
      Provider === undefined
        ? undefined
        : new InboxProvider({ ...Provider, ClientID: origin, RedirectURI: redirect, InstanceKey, Clock: clock, Logger: logger }),
  };
}

function outcome(ctx: SigninContext, res: ServerResponse, query: string): void {
  seeOther(res, `${ctx.signinPath}?${query}`);
}

/** `POST /signin`: form fields `email` and optional `force=1` (skip the provider) and `next`. */
export async function begin(ctx: SigninContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // OWASP ASVS 5.0 §3.5.1: login CSRF; the component refuses a cross-origin post itself.
  if (refusedCrossOrigin(ctx.origin, req, res)) return;
  const form = await readForm(req);
  const address = normalizeAddress(form.get("email") ?? "");
  // The sign-in page may carry ?next= as a form field; only a local path is remembered (never another origin).
  const next = form.get("next");
  if (next !== null && isLocalPath(next)) rememberNext(res, ctx.origin, next);
  if (address === undefined) return outcome(ctx, res, "err=address");
  const rate = ctx.rate.Take(address, clientAddress(req, ctx.config.ClientIP), ctx.isReturning(address));
  if (!rate.ok) {
    ctx.emit(req, { Kind: "rate_limited", Subject: address, Reason: rate.limit });
    // In development (the logging sender, given or by default: rate-hint.ts) the refusal names its limit and reset.
    const hint = isLogMailer(ctx.mailer) ? rateHint(ctx.rate.limits, rate.limit, rate.retryAfter, ctx.clock.now()) : undefined;
    if (hint !== undefined) ctx.logger.warn(hint.message);
    // RFC 6585 §4: 429 with Retry-After for clients that read status codes; browsers get the page's message.
    if (!wantsJSON(req))
      return outcome(ctx, res, hint === undefined ? "err=rate" : `err=rate&limit=${hint.limit}&retry=${hint.retryAfter}`);
    res.setHeader("Retry-After", String(rate.retryAfter));
    return writeJSON(res, 429, hint === undefined ? { error: "rate" } : { error: "rate", ...hint });
  }
  if (ctx.provider !== undefined && form.get("force") !== "1" && (await ctx.provider.isClaimed(address))) {
    const upgrade = await ctx.provider.begin(address).catch((err: unknown) => {
      // Sign-in never blocks on the provider: without its metadata, email the link instead.
      ctx.logger.warn("signin: inbox provider unavailable; sending an emailed link", { ref: NewRef(), error: err });
      return undefined;
    });
    if (upgrade !== undefined) {
      appendSetCookie(res, upgrade.cookie);
      return seeOther(res, upgrade.location);
    }
  }
  const binding = ctx.binding.issue(req);
  const { token, hash, code } = ctx.links.create(address, PURPOSE_SIGNIN, binding.hash);
  const link = `${ctx.origin}/auth/verify?token=${token}`;
  const minutes = Math.round(ctx.linkTTL / 60000);
  const from = ctx.config.MailFrom ?? `no-reply@${new URL(ctx.origin).hostname}`;
  try {
    await ctx.mailer.Send(signinMessage(req, { from, to: address, link, code, minutes }));
  } catch (err) {
    // No orphan link stays usable when its email never left.
    ctx.links.revoke(hash);
    const ref = NewRef();
    ctx.logger.error("signin: sending the link failed", { ref, error: err });
    return sendFailurePage(req, res, ref);
  }
  appendSetCookie(res, binding.setCookie);
  ctx.emit(req, { Kind: "link_requested", Subject: address });
  return outcome(ctx, res, "sent=1");
}

/** `GET /auth/verify?token=...`: signs in only in the browser that asked; another gets the code page, or `?err=expired`. */
export async function verify(ctx: SigninContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // RFC 9110 §9.3.2: HEAD is safe. Mail scanners probe links with it; it must not spend the token.
  if (req.method === "HEAD") {
    res.setHeader("Cache-Control", "no-store");
    return void res.end();
  }
  const token = queryParams(req).get("token") ?? "";
  const bound = ctx.binding.hashOf(req);
  // SPEC §3.2: in the bound browser the token is spent whatever the cause of failure; one indistinguishable outcome.
  const spent = token === "" || bound === undefined ? undefined : ctx.links.consume(token, PURPOSE_SIGNIN, bound);
  if (spent?.address !== undefined) return admit(ctx, req, res, spent.address, METHOD_MAGICLINK);
  // OWASP ASVS 5.0 §6.6.2: the link is bound to the request that asked for it; another browser cannot spend it.
  const view = spent?.spent !== true && token !== "" ? ctx.links.peek(token, PURPOSE_SIGNIN) : undefined;
  if (view === undefined) {
    ctx.emit(req, { Kind: "signin_refused", Reason: "link" });
    return outcome(ctx, res, "err=expired");
  }
  const minutes = Math.max(1, Math.ceil((view.expiresAt.getTime() - ctx.clock.now().getTime()) / 60000));
  codePage(req, res, { address: view.address, code: view.code, minutes });
}

/** Returns a typed code as `Links.consumeCode` takes it: spaces and dashes removed, at most 64 characters. */
export function typedCode(code: string): string {
  return code.replace(/[\s-]/g, "").slice(0, 64);
}

/**
 * `POST /auth/code`, field `code`: any refused code answers one indistinguishable `?err=code`; the wrong
 * try that reaches MAX_CODE_ATTEMPTS voids the browser's pending sign-ins and answers `?err=expired`.
 */
export async function verifyCode(ctx: SigninContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // OWASP ASVS 5.0 §3.5.1: login CSRF; the component refuses a cross-origin post itself.
  if (refusedCrossOrigin(ctx.origin, req, res)) return;
  const form = await readForm(req);
  const bound = ctx.binding.hashOf(req);
  const result =
    bound === undefined
      ? { ok: false as const, reason: "wrong" as const }
      : ctx.links.consumeCode(bound, typedCode(form.get("code") ?? ""), PURPOSE_SIGNIN, ctx.rate);
  if (result.ok) return admit(ctx, req, res, result.address, METHOD_EMAIL_CODE);
  ctx.emit(req, { Kind: "signin_refused", Reason: result.reason === "voided" ? "code_attempts" : "code" });
  return outcome(ctx, res, result.reason === "voided" ? "err=expired" : "err=code");
}

/** `GET /auth/callback`: the inbox provider's return point. */
export async function callback(ctx: SigninContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (ctx.provider === undefined) return outcome(ctx, res, "err=keymail&force=1");
  const result = await ctx.provider.complete(queryParams(req), req.headers.cookie);
  appendSetCookie(res, ctx.provider.clearCookie());
  // The provider logged the refusal with its reason and reference.
  if (!result.ok) {
    ctx.emit(req, { Kind: "signin_refused", Reason: `keymail_${result.reason}` });
    return outcome(ctx, res, "err=keymail&force=1");
  }
  return admit(ctx, req, res, result.address, METHOD_KEYMAIL, result.authTime);
}

// SPEC §5.3–5.4: Authorize gates the verified address; SecondFactor runs where the session would be minted.
async function admit(
  ctx: SigninContext,
  req: IncomingMessage,
  res: ServerResponse,
  address: string,
  method: string,
  authTime?: Date,
): Promise<void> {
  if (ctx.config.Authorize !== undefined && !(await ctx.config.Authorize(address))) {
    const word = ctx.config.AuthorizeRefusal?.(address);
    // A word that is not one plain token cannot change the query it is put in (RFC 3986 §3.4).
    const refusal = word !== undefined && /^[a-z_]{1,32}$/.test(word) ? word : "address";
    ctx.emit(req, { Kind: "signin_refused", Subject: address, Reason: refusal === "address" ? "not_authorized" : refusal });
    return outcome(ctx, res, `err=${refusal}`);
  }
  const now = ctx.clock.now();
  ctx.recordAccount(address, now.getTime());
  const identity: Identity = { Subject: address, Method: method, AuthTime: authTime ?? now };
  if (ctx.config.SecondFactor !== undefined && (await ctx.config.SecondFactor(req, res, identity))) return;
  ctx.atomically(() => {
    ctx.sessions.create(req, res, identity);
    ctx.emit(req, { Kind: "signed_in", Subject: address, Method: method });
  });
  // A new session must outlive the machine before its cookie is handed out (Options.Durable).
  await awaitDurable(ctx.config.DB);
  // Back to the page that sent the person here (RequireFreshSession, an OAuth authorization request), if on this origin.
  const next = takeNext(req, res, ctx.origin);
  seeOther(res, next !== undefined && isLocalPath(next) ? next : ctx.config.SignedInPath);
}
