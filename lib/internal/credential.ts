/*
 * Whether the credential a request came with still acts for a person. A
 * request is authenticated once, at its start (the session middleware, the
 * agent token gate), but its write may commit much later (a form body held
 * open, a tool awaiting something): meanwhile the person may have changed
 * their address or deleted their account, which ends that session or
 * token. Whoever authenticates a request binds here how to ask again
 * (session: the session row with that token hash still has that subject;
 * agent: the token still live for that subject); a write asks inside its
 * own transaction (lib/manifest's store, lib/agent's tool call) and commits
 * nothing when the answer is no (lib/account README, "Writes in flight").
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
