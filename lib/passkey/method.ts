/*
 * What a passkey writes into a session's method (SPEC §2.7, §5.7) and the
 * one reading of it: a step-up gives "passkey", a sign-in's second factor
 * "<first>+passkey" or "<first>+recovery". Other modules ask
 * `isPasskeyConfirmed`, never parse the string.
 */
import type { Session } from "../session/index.ts";

/** Session method after a step-up assertion. */
export const METHOD_PASSKEY: string = "passkey";

/** The second factor a sign-in ended with. */
export type SecondFactor = "passkey" | "recovery";

/** Returns the method of a session first signed in by `first`, then confirmed by `second` (SPEC §5.7: "magiclink+passkey"). */
export function secondFactorMethod(first: string, second: SecondFactor): string {
  return `${first}+${second}`;
}

/**
 * Reports whether `session` was confirmed by a passkey assertion: a
 * step-up, or a sign-in's passkey second factor. A recovery code is not a
 * passkey.
 */
export function isPasskeyConfirmed(session: Pick<Session, "Method">): boolean {
  return session.Method === METHOD_PASSKEY || session.Method.endsWith(`+${METHOD_PASSKEY}`);
}
