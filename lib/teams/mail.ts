/*
 * The invitation mail, in the inviter's request locale (catalog keys
 * `mail.team.invite.*`): who invites, to which team, with which role, the
 * single-use link and how long it works. It carries nothing but that link.
 */
import type { IncomingMessage } from "node:http";
import { T, Tf } from "../i18n/index.ts";
import type { Message } from "../mail/index.ts";

/** The invitation to `to`. */
export function inviteMessage(
  req: IncomingMessage,
  m: { from: string; to: string; team: string; inviter: string; role: string; link: string; days: number },
): Message {
  return {
    From: m.from,
    To: m.to,
    Subject: Tf(req, "mail.team.invite.subject", { team: m.team }),
    Text: [Tf(req, "mail.team.invite.body", m), T(req, "mail.signin.ignore")].join("\n\n") + "\n",
  };
}
