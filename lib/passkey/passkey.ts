/*
 * The passkey second factor (SPEC §2.7, §4.2, §5.5–5.7). Access rules:
 *   - register/begin and step-up need a valid session, stale or not (that is what step-up refreshes);
 *   - register/finish needs a fresh one (AuthTime within `FreshFor`): otherwise a stolen stale
 *     cookie could enrol the thief's passkey, step up with it and delete the owner's;
 *   - the sign-in routes need a live pending half-session, minted by `Gate` after a first factor;
 *   - a credential id alone opens nothing: every assertion is checked against a single-use challenge
 *     bound to the asking session or pending half-session, and a credential owned by its subject.
 * Deleting a passkey and signing in with a recovery code end every other session of the subject
 * (what a person does after losing a device). Every ceremony that succeeds goes to `OnAuthEvent`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  newLogger,
  seeOther as redirect,
  writeJSON as json,
  isLocalPath,
  readForm,
  readJSON,
  systemClock,
  type Clock,
  type HandlerFunc,
  type Logger,
} from "../http/index.ts";
import { awaitDurable, requireTables } from "../db/index.ts";
import { LatchCookie, appendSetCookie, isStale, takeNext, immediately } from "../internal/index.ts";
import { authEventEmitter, type AuthEventEmitter, type Identity, type Session, type Sessions } from "../session/index.ts";
import {
  DEFAULT_ALGORITHMS,
  SignatureVerifier,
  isPasskeyError,
  parseRegistrationResponse,
  verifyRegistration,
  type CeremonyExpectations,
} from "../webauthn/index.ts";
import { DEFAULT_FRESH_FOR, PASSKEY_PENDING_COOKIE, checkConfig, type Config } from "./config.ts";
import { creationOptions, requestOptions, type RelyingParty } from "./options.ts";
import { PENDING_TTL, PasskeyStore, type ChallengeCeremony, type PendingSignIn } from "./store.ts";
import type { PasskeyCredential } from "./store-rows.ts";
import { verifyAssertion } from "./assertion.ts";
import { METHOD_PASSKEY, secondFactorMethod, type SecondFactor } from "./method.ts";

/** Creates the passkey component. Throws PasskeyError ERR_PASSKEY_INVALID_CONFIG for an unusable config. */
export function create(config: Config): Passkey {
  return new Passkey(config);
}

/** The passkey component: `Gate`, routes and recovery codes. */
export class Passkey {
  readonly #config: Config;
  readonly #sessions: Sessions;
  readonly #store: PasskeyStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #origin: string;
  readonly #rp: RelyingParty;
  readonly #pending: LatchCookie;
  readonly #emit: AuthEventEmitter;
  readonly #verifier: SignatureVerifier;

  /** Throws PasskeyError ERR_PASSKEY_INVALID_CONFIG for a bad Origin, a non-local path, or an RPID foreign to the Origin. */
  constructor(config: Config) {
    const { origin, rpID } = checkConfig(config);
    const tables = ["passkey_credentials", "passkey_challenges", "passkey_pending", "passkey_recovery_codes", "passkey_user_handles"];
    requireTables(config.DB, "passkey", "passkey.Schema", tables);
    this.#config = config;
    this.#sessions = config.Sessions;
    this.#clock = config.Clock ?? systemClock;
    this.#logger = config.Logger ?? newLogger();
    this.#store = new PasskeyStore(config.DB, this.#clock);
    this.#origin = origin;
    this.#rp = {
      rpID,
      rpName: config.RPName ?? rpID,
      algorithms: config.Algorithms ?? DEFAULT_ALGORITHMS,
      userVerification: config.UserVerification ?? "preferred",
    };
    this.#pending = new LatchCookie(PASSKEY_PENDING_COOKIE, origin);
    this.#emit = authEventEmitter(config, this.#clock, this.#logger);
    this.#verifier = config.Verifier ?? new SignatureVerifier();
  }

  // SPEC §6.2: a change and its auth events commit together; a sink that throws (an audit stream
  // that cannot be appended to) rolls the change back (lib/events README "A write and its event").
  #atomically<T>(fn: () => T): T {
    return immediately(this.#config.DB, fn);
  }

  // A lost device: every other session of the subject ends (README "Sessions").
  #endOthers(req: IncomingMessage, keep: Session, reason: string): void {
    this.#atomically(() => {
      const count = this.#sessions.revokeOthers(keep);
      this.#emit(req, { Kind: "sessions_ended", Subject: keep.Subject, Reason: reason, Count: count });
    });
  }

  /** Reports whether `subject` has at least one passkey. */
  Enrolled(subject: string): boolean {
    return this.#store.enrolled(subject);
  }

  /**
   * Issues 10 new recovery codes for `subject`, replacing any existing set,
   * and reports `recovery_codes_regenerated` (with the client address of
   * `req`, when given) in the same transaction. Show them once.
   */
  RegenerateRecoveryCodes(subject: string, req?: IncomingMessage): string[] {
    // Show the codes only after `await awaitDurable(db)` when Options.Durable is set: codes lost with the machine would be codes the person relies on.
    return this.#atomically(() => {
      const codes = this.#store.regenerateRecoveryCodes(subject);
      this.#emit(req, { Kind: "recovery_codes_regenerated", Subject: subject });
      return codes;
    });
  }

  /** Returns how many unused recovery codes `subject` has. */
  RecoveryCodesRemaining(subject: string): number {
    return this.#store.recoveryCodesRemaining(subject);
  }

  /** Lists `subject`'s passkeys (public material and names only). */
  Credentials(subject: string): PasskeyCredential[] {
    return this.#store.listCredentials(subject);
  }

  /**
   * The sign-in component's `SecondFactor` hook (SPEC §4.2). With no
   * passkey it resolves `false` and sign-in proceeds. With one, it mints a
   * pending half-session (hashed row plus the short-lived
   * `framework_pending` cookie), redirects to `ConfirmPath` and resolves
   * `true`: no session exists until an assertion or a recovery code.
   */
  readonly Gate = (_req: IncomingMessage, res: ServerResponse, session: Identity): boolean => {
    if (!this.#store.enrolled(session.Subject)) return false;
    const token = this.#store.createPending(session.Subject, session.Method);
    appendSetCookie(res, this.#pending.set(token, PENDING_TTL / 1000));
    redirect(res, this.#config.ConfirmPath);
    return true;
  };

  // SPEC §5.5: step-up routes need a valid session (stale allowed, absent refused).
  #session(req: IncomingMessage, res: ServerResponse): Session | undefined {
    const session = this.#sessions.read(req);
    if (session === undefined) json(res, 401, { error: "unauthenticated" });
    return session;
  }

  // SPEC §4.2: fresh means authenticated within FreshFor; only an assertion or a re-sign-in renews AuthTime.
  #isFresh(session: Session): boolean {
    return !isStale(session.AuthTime, this.#clock.now(), this.#config.FreshFor ?? DEFAULT_FRESH_FOR);
  }

  // SPEC §5.5: the sign-in routes need a live pending half-session.
  #livePending(req: IncomingMessage): { token: string; pending: PendingSignIn } | undefined {
    const token = this.#pending.read(req.headers.cookie);
    const pending = token === undefined ? undefined : this.#store.readPending(token);
    return token === undefined || pending === undefined ? undefined : { token, pending };
  }

  #refused(res: ServerResponse, err: unknown): void {
    if (!isPasskeyError(err)) throw err;
    this.#logger.info("passkey ceremony refused", { code: err.code, step: err.step });
    json(res, 400, { error: err.code, step: err.step });
  }

  #challenge(ceremony: ChallengeCeremony, boundTo: string, res: ServerResponse): Uint8Array | undefined {
    // SPEC §3.2: a challenge is single-use and valid 2 minutes; a missing one is refused on read.
    const challenge = this.#store.consumeChallenge(ceremony, boundTo);
    if (challenge === undefined) json(res, 400, { error: "challenge_expired" });
    return challenge;
  }

  // What this relying party expects of both ceremonies' responses: the issued challenge, its origin and RP ID, UV as configured.
  #expectations(challenge: Uint8Array): CeremonyExpectations {
    return {
      challenge,
      origin: this.#origin,
      rpID: this.#rp.rpID,
      requireUserVerification: this.#rp.userVerification === "required",
      allowCrossOrigin: this.#config.AllowCrossOrigin === true,
    };
  }

  #request(ceremony: ChallengeCeremony, boundTo: string, subject: string, res: ServerResponse): void {
    const credentials = this.#store.listCredentials(subject);
    if (credentials.length === 0) return json(res, 400, { error: "no_credentials" });
    const challenge = this.#store.createChallenge(ceremony, boundTo);
    json(res, 200, requestOptions(this.#rp, challenge, credentials));
  }

  /**
   * The assertion half of step-up and sign-in: consumes the ceremony's challenge and verifies
   * the assertion in the body for `subject`. False when refused, the refusal answered.
   */
  async #asserted(
    req: IncomingMessage,
    res: ServerResponse,
    ceremony: ChallengeCeremony,
    boundTo: string,
    subject: string,
  ): Promise<boolean> {
    const challenge = this.#challenge(ceremony, boundTo, res);
    if (challenge === undefined) return false;
    try {
      // WebAuthn L3 §7.2: verify an assertion by `subject` against `challenge`; updates the counter.
      await verifyAssertion(this.#store, this.#verifier, await readJSON(req), this.#expectations(challenge), subject, this.#clock.now());
      return true;
    } catch (err) {
      this.#refused(res, err);
      return false;
    }
  }

  /** `POST /passkey/register/begin`: creation options for the session's subject. */
  readonly RegisterBegin: HandlerFunc = (req, res) => {
    const session = this.#session(req, res);
    if (session === undefined) return;
    const challenge = this.#store.createChallenge("register", session.ID);
    const existing = this.#store.listCredentials(session.Subject);
    json(res, 200, creationOptions(this.#rp, challenge, this.#store.userHandle(session.Subject), session.Subject, existing));
  };

  /**
   * `POST /passkey/register/finish`: body is `PublicKeyCredential.toJSON()`.
   * Needs a fresh session (`FreshFor`): a stale one gets 403 `{"error":"stale_session"}`,
   * so a stolen stale cookie cannot add the thief's passkey and step up with it.
   */
  readonly RegisterFinish: HandlerFunc = async (req, res) => {
    const session = this.#session(req, res);
    if (session === undefined) return;
    // SPEC §4.2: register/finish needs a valid session, not "stale allowed" as begin does; a stale one is refused.
    if (!this.#isFresh(session)) return json(res, 403, { error: "stale_session" });
    const challenge = this.#challenge("register", session.ID, res);
    if (challenge === undefined) return;
    try {
      const response = parseRegistrationResponse(await readJSON(req));
      const credential = verifyRegistration(response, {
        ...this.#expectations(challenge),
        algorithms: this.#rp.algorithms,
        isCredentialIDTaken: (id) => this.#store.getCredential(id) !== undefined,
      });
      const name = `Passkey ${this.#clock.now().toISOString().slice(0, 10)}`;
      this.#atomically(() => {
        this.#store.saveCredential(session.Subject, credential, { name, userHandle: this.#store.userHandle(session.Subject) });
        this.#emit(req, { Kind: "passkey_added", Subject: session.Subject });
      });
      await awaitDurable(this.#config.DB);
      json(res, 200, { location: this.#config.ManagePath ?? this.#config.SignedInPath });
    } catch (err) {
      this.#refused(res, err);
    }
  };

  /** `POST /passkey/stepup/begin`: request options for the session's subject. */
  readonly StepUpBegin: HandlerFunc = (req, res) => {
    const session = this.#session(req, res);
    if (session !== undefined) this.#request("stepup", session.ID, session.Subject, res);
  };

  /** `POST /passkey/stepup/finish`: on success the session is rotated with method "passkey" and a fresh AuthTime. */
  readonly StepUpFinish: HandlerFunc = async (req, res) => {
    const session = this.#session(req, res);
    if (session === undefined || !(await this.#asserted(req, res, "stepup", session.ID, session.Subject))) return;
    this.#atomically(() => {
      this.#sessions.rotate(req, res, METHOD_PASSKEY, this.#clock.now());
      this.#emit(req, { Kind: "step_up", Subject: session.Subject, Method: METHOD_PASSKEY });
    });
    await awaitDurable(this.#config.DB);
    json(res, 200, { location: this.#next(req, res, this.#config.ManagePath ?? this.#config.SignedInPath) });
  };

  // Where a finished sign-in or step-up goes: the page that sent the person away to authenticate
  // (lib/internal next-cookie.ts), taken once and only when it is a local path, else `fallback`.
  #next(req: IncomingMessage, res: ServerResponse, fallback: string): string {
    const next = takeNext(req, res, this.#origin);
    return next !== undefined && isLocalPath(next) ? next : fallback;
  }

  /** `POST /passkey/signin/begin`: request options for the pending subject. */
  readonly SignInBegin: HandlerFunc = (req, res) => {
    const live = this.#livePending(req);
    if (live === undefined) return json(res, 401, { error: "no_pending_signin" });
    this.#request("signin", live.token, live.pending.subject, res);
  };

  #finishSignIn(req: IncomingMessage, res: ServerResponse, token: string, suffix: SecondFactor): Session | undefined {
    return this.#atomically(() => {
      // SPEC §3.2: the pending half-session is consumed once; a lost race mints nothing.
      const pending = this.#store.consumePending(token);
      if (pending === undefined) return undefined;
      appendSetCookie(res, this.#pending.clear());
      const method = secondFactorMethod(pending.firstMethod, suffix);
      const session = this.#sessions.create(req, res, { Subject: pending.subject, Method: method, AuthTime: this.#clock.now() });
      this.#emit(req, { Kind: "signed_in", Subject: pending.subject, Method: method });
      return session;
    });
  }

  /** `POST /passkey/signin/finish`: pending consumed, cookie cleared, session `<first>+passkey` minted. */
  readonly SignInFinish: HandlerFunc = async (req, res) => {
    const live = this.#livePending(req);
    if (live === undefined) return json(res, 401, { error: "no_pending_signin" });
    if (!(await this.#asserted(req, res, "signin", live.token, live.pending.subject))) return;
    if (this.#finishSignIn(req, res, live.token, "passkey") === undefined) return json(res, 401, { error: "no_pending_signin" });
    // A new session must outlive the machine before its cookie is handed out (Options.Durable).
    await awaitDurable(this.#config.DB);
    json(res, 200, { location: this.#next(req, res, this.#config.SignedInPath) });
  };

  /**
   * `POST /passkey/signin/recovery`, a plain form with field `code`.
   * Correct: code burned, pending consumed, session `<first>+recovery`.
   * Wrong: 303 to `ConfirmPath?recovery=failed`, pending kept (SPEC §3.2).
   */
  readonly SignInRecovery: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const live = this.#livePending(req);
    if (live === undefined) return redirect(res, `${this.#config.SigninPath}?err=expired`);
    const { token, pending } = live;
    // The code spent, the sign-in and the other sessions ended commit with their events, or none of them does.
    const session = this.#atomically((): Session | "wrong" | undefined => {
      if (!this.#store.useRecoveryCode(pending.subject, form.get("code") ?? "")) return "wrong";
      this.#emit(req, { Kind: "recovery_code_used", Subject: pending.subject });
      const signedIn = this.#finishSignIn(req, res, token, "recovery");
      if (signedIn !== undefined) this.#endOthers(req, signedIn, "recovery_code_used");
      return signedIn;
    });
    if (session === "wrong") {
      this.#emit(req, { Kind: "signin_refused", Subject: pending.subject, Reason: "recovery_code" });
      return redirect(res, `${this.#config.ConfirmPath}?recovery=failed`);
    }
    if (session === undefined) return redirect(res, `${this.#config.SigninPath}?err=expired`);
    await awaitDurable(this.#config.DB);
    redirect(res, this.#next(req, res, this.#config.SignedInPath));
  };

  // Managing one's passkeys: plain form posts (no script needed) answering 303 to the management page; the store
  // filters by subject, so a session only ever touches its own credentials. SPEC §5.5: an absent session is refused.

  /** Form POST with `id` and `name`: renames one of the session subject's passkeys. */
  readonly Rename: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const session = this.#sessions.read(req);
    if (session === undefined) return redirect(res, this.#config.SigninPath);
    this.#store.renameCredential(session.Subject, form.get("id") ?? "", form.get("name") ?? "");
    redirect(res, this.#config.ManagePath ?? this.#config.SignedInPath);
  };

  /** Form POST with `id`: deletes one of the subject's passkeys; a stale session is sent to confirm first. */
  readonly Delete: HandlerFunc = async (req, res) => {
    const form = await readForm(req);
    const session = this.#sessions.read(req);
    if (session === undefined) return redirect(res, this.#config.SigninPath);
    const manage = this.#config.ManagePath ?? this.#config.SignedInPath;
    // SPEC §4.2, §5.5: removing a second factor needs a fresh session; only an assertion or a re-sign-in makes one.
    if (!this.#isFresh(session))
      return redirect(res, `${this.#config.StalePath ?? this.#config.ConfirmPath}?next=${encodeURIComponent(manage)}`);
    // SPEC §6.2: the removal and its auth events commit together, or nothing is removed.
    this.#atomically(() => {
      if (!this.#store.deleteCredential(session.Subject, form.get("id") ?? "")) return;
      this.#emit(req, { Kind: "passkey_removed", Subject: session.Subject });
      this.#endOthers(req, session, "passkey_removed");
    });
    redirect(res, manage);
  };
}
