/* The sign-in email (text and HTML, in the request's locale) and the module's own pages: the code page and the failed send. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { html, type SafeHTML } from "../http/index.ts";
import { Dir, LocaleFrom, T, Tf } from "../i18n/index.ts";
import type { Message } from "../mail/index.ts";

/** What goes into a sign-in email. */
export interface SigninMail {
  from: string;
  to: string;
  link: string;
  /** The 6-digit sign-in code for another device (link-code.ts). */
  code: string;
  minutes: number;
}

/** Builds the localized sign-in email. */
export function signinMessage(req: IncomingMessage, mail: SigninMail): Message {
  const body = Tf(req, "mail.signin.body", { link: mail.link, minutes: mail.minutes });
  const code = Tf(req, "mail.signin.code", { code: mail.code });
  const ignore = T(req, "mail.signin.ignore");
  const locale = LocaleFrom(req);
  const paragraphs = body.split("\n").filter((line) => line.trim() !== "");
  const page = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}"><body>
${paragraphs.map((p) => (p.includes(mail.link) ? html`<p><a href="${mail.link}">${mail.link}</a></p>` : html`<p>${p}</p>`))}
<p data-signin-code="${mail.code}">${code}</p>
<p>${ignore}</p>
</body></html>`;
  const text = `${body}\n\n${code}\n\n${ignore}\n`;
  return { From: mail.from, To: mail.to, Subject: T(req, "mail.signin.subject"), Text: text, HTML: page.toString() };
}

/** What the page for a browser without the binding shows. */
export interface CodePage {
  address: string;
  code: string;
  minutes: number;
}

/**
 * Answers the page of a link opened without its binding (README "Scanner-safe links"): the address and the
 * code, and no form, button or script, so nothing a scanner presses spends or signs in anything.
 */
export function codePage(req: IncomingMessage, res: ServerResponse, view: CodePage): void {
  // RFC 9111 §5.2.2.5: no cache keeps the code; the Referer of any onward navigation carries no token.
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("Referrer-Policy", "no-referrer");
  writePage(
    req,
    res,
    200,
    T(req, "signin.code_page.title"),
    html`<main>
<h1>${T(req, "signin.code_page.title")}</h1>
<p data-signin-address="${view.address}">${Tf(req, "signin.code_page.address", { address: view.address })}</p>
<p>${T(req, "signin.code_page.enter")}</p>
<h2><code data-signin-code="${view.code}">${view.code}</code></h2>
<p>${Tf(req, "signin.code_page.expires", { minutes: view.minutes })}</p>
<p>${T(req, "signin.code_page.ignore")}</p>
</main>`,
    html`<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">`,
  );
}

/** Answers 503 with a localized page naming the reference of a failed send. */
export function sendFailurePage(req: IncomingMessage, res: ServerResponse, ref: string): void {
  writePage(
    req,
    res,
    503,
    T(req, "error.title"),
    html`<h1>${T(req, "error.title")}</h1><p>${T(req, "signin.err.send")}</p><p>${Tf(req, "error.reference", { ref })}</p>`,
  );
}

/** Answers one of this module's own pages, outside the application's layout: a whole document in the request's locale. */
function writePage(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  title: string,
  body: SafeHTML,
  head: SafeHTML = html``,
): void {
  const locale = LocaleFrom(req);
  const page = html`<!doctype html>
<html lang="${locale}" dir="${Dir(locale)}"><head><meta charset="utf-8">${head}<title>${title}</title></head>
<body>${body}</body></html>`.toString();
  res.statusCode = status;
  res.setHeader("Content-Type", "text/html; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(page));
  res.end(page);
}
