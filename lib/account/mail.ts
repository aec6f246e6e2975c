/*
 * The mails of a change of address, in the request's locale (`mail.address.*`): the link and code to the new address,
 * the answer to one already an account, the two notices to the old. Each carries only the one link it is about.
 */
import type { IncomingMessage } from "node:http";
import { T, Tf } from "../i18n/index.ts";
import type { Message } from "../mail/index.ts";

function message(from: string, to: string, subject: string, paragraphs: readonly string[]): Message {
  return { From: from, To: to, Subject: subject, Text: paragraphs.join("\n\n") + "\n" };
}

/** The link and code that confirm a change, to the new address. */
export function confirmMessage(
  req: IncomingMessage,
  m: { from: string; to: string; link: string; code: string; minutes: number },
): Message {
  return message(m.from, m.to, T(req, "mail.address.confirm.subject"), [
    Tf(req, "mail.address.confirm.body", { link: m.link, minutes: m.minutes }),
    Tf(req, "mail.address.confirm.code", { code: m.code }),
    T(req, "mail.signin.ignore"),
  ]);
}

/** To a new address that is already an account: nothing changed, and why. */
export function takenMessage(req: IncomingMessage, m: { from: string; to: string }): Message {
  return message(m.from, m.to, T(req, "mail.address.confirm.subject"), [T(req, "mail.address.taken.body"), T(req, "mail.signin.ignore")]);
}

/** To the old address when a change is asked: what is happening and how to stop it. */
export function requestedMessage(req: IncomingMessage, m: { from: string; to: string; address: string; minutes: number }): Message {
  return message(m.from, m.to, T(req, "mail.address.requested.subject"), [
    Tf(req, "mail.address.requested.body", { address: m.address, minutes: m.minutes }),
  ]);
}

/**
 * To the old address once the change is made: the single-use link that reverses it, and what to do first (the link;
 * signing in again at the old address opens an empty account, which the undo merges: README, "Undo").
 */
export function changedMessage(
  req: IncomingMessage,
  m: { from: string; to: string; address: string; link: string; days: number },
): Message {
  return message(m.from, m.to, T(req, "mail.address.changed.subject"), [
    Tf(req, "mail.address.changed.body", { address: m.address, link: m.link, days: m.days }),
    T(req, "mail.address.changed.advice"),
  ]);
}
