/*
 * The security notice of a token's first standing approval (`mail.standing.*`, in the request's locale; ASVS 5.0
 * §6.3.7): what the agent may now do without asking, and where to end it. No link and no secret: the person goes to
 * their agent tokens page the way they always do.
 */
import type { IncomingMessage } from "node:http";
import { T, Tf } from "../i18n/index.ts";
import type { Message } from "../mail/index.ts";

/** To the person: an agent's calls of `tool` now run without asking, `calls` at most, until `expires`. */
export function standingNotice(req: IncomingMessage, m: { from: string; to: string; tool: string; calls: number; expires: Date }): Message {
  const expires = `${m.expires.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return {
    From: m.from,
    To: m.to,
    Subject: T(req, "mail.standing.subject"),
    Text: [Tf(req, "mail.standing.body", { tool: m.tool, calls: m.calls, expires }), T(req, "mail.standing.advice")].join("\n\n") + "\n",
  };
}
