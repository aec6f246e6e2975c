/*
 * Whether the credential a request came with still acts for a person: its
 * write may commit long after it was authenticated, after a change of address
 * or a deletion ended that session or token. Whoever authenticates a request
 * binds how to ask again; a write asks inside its own transaction and
 * commits nothing when the answer is no (lib/account README, "Writes in flight").
 */
import type { IncomingMessage } from "node:http";
import { requestSlot } from "./request-slot.ts";

/** Reports whether the credential `req` came with still belongs to `subject` (asked inside a write's transaction). */
export type CredentialCheck = (req: IncomingMessage, subject: string) => boolean;

const checks = requestSlot<CredentialCheck>();

/**
 * Binds `check` to `req`. The agent token gate replaces whatever is bound
 * (a token, once verified, is who the request acts for); the session binds
 * only where nothing is (`replace` false), so a session read after the
 * token gate does not take its place.
 */
export function bindCredentialCheck(req: IncomingMessage, check: CredentialCheck, replace: boolean): void {
  if (replace || checks.get(req) === undefined) checks.set(req, check);
}

/**
 * Reports whether the credential of `req` still belongs to `subject`: the
 * bound check's answer, or true when nothing was bound (a request no latch
 * gate authenticated: the application's own, which answers for itself).
 */
export function credentialHeld(req: IncomingMessage, subject: string): boolean {
  const check = checks.get(req);
  return check === undefined || check(req, subject);
}
