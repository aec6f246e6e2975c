/*
 * The sign-in email, in the request's locale (i18n `Tf`), as text plus
 * HTML, and the page shown when it could not be sent.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { html } from "../http/index.ts";
import { Dir, LocaleFrom, T, Tf } from "../i18n/index.ts";
import type { Message } from "../mail/index.ts";

/** What goes into a sign-in email. */
export interface SigninMail {
  from: string;
  to: string;
  link: string;
  minutes: number;
}

/** Builds the localized sign-in email. */
export function signinMessage(req: IncomingMessage, mail: SigninMail): Message {
  const body = Tf(req, "mail.signin.body", { link: mail.link, minutes: mail.minutes });
  const ignore = T(req, "mail.signin.ignore");
  const locale = LocaleFrom(req);
  const paragraphs = body.split("\n").filter((line) => line.trim() !== "");
  const page = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}"><body>
${paragraphs.map((p) => (p.includes(mail.link) ? html`<p><a href="${mail.link}">${mail.link}</a></p>` : html`<p>${p}</p>`))}
<p>${ignore}</p>
</body></html>`;
  return { From: mail.from, To: mail.to, Subject: T(req, "mail.signin.subject"), Text: `${body}\n\n${ignore}\n`, HTML: page.toString() };
}

/** Answers 503 with a localized page naming the reference of a failed send. */
export function sendFailurePage(req: IncomingMessage, res: ServerResponse, ref: string): void {
  const locale = LocaleFrom(req);
  const page = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}"><head><meta charset="utf-8"><title>${T(req, "error.title")}</title></head>
<body><h1>${T(req, "error.title")}</h1><p>${T(req, "signin.err.send")}</p><p>${Tf(req, "error.reference", { ref })}</p></body></html>`;
  const body = page.toString();
  res.statusCode = 503;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}
