/*
 * The sign-in page (SPEC §4.1: the application's own, rendering every
 * outcome): `sent=1` (the link is on its way; the code form for a link
 * opened on another device), `err=rate|address|expired|keymail|code`
 * (`err=rate` in development with `limit` and `retry`: which limit, when it resets),
 * `err=suspended` (latch/operators: the account is suspended) and
 * `force=1` (carried into the form so the next POST skips the inbox
 * provider), and latch/account's `account=reversed|reverse_failed|deleted`. Forms post to `/signin` (Begin) and `/auth/code` (VerifyCode).
 */
import type { IncomingMessage } from "node:http";
import type { Assets } from "latch/assets";
import { html, queryParams, type HandlerFunc } from "latch/http";
import { LocaleFrom, T, Tf } from "latch/i18n";
import { Icon } from "latch/icons";
import { CODE_LENGTH, LINK_TTL } from "latch/signin";
import { accountNotice } from "./account-life.ts";
import { render } from "./layout.ts";

/** The `err` values Begin, Verify and VerifyCode redirect with. */
export const SIGNIN_ERRORS: readonly string[] = ["rate", "address", "expired", "keymail", "code", "suspended"];

/** The starter's words for each limit a development refusal names (`limit=`, latch/signin's `RateLimits` field). */
const RATE_LIMITS: Readonly<Record<string, string>> = {
  PerAddress: "starter.signin.rate_address",
  PerIP: "starter.signin.rate_client",
  Global: "starter.signin.rate_global",
};

/**
 * In development (mail read from the log: no Mailer, or newLogMailer), Begin's refusal names its limit and its reset in whole seconds (`&limit=…&retry=…`,
 * latch/signin rate-hint.ts): said here in the person's words, the wait in minutes rounded up (seconds under one).
 * Anything else in those parameters shows nothing more: the page never echoes query text.
 */
function rateHint(req: IncomingMessage, query: URLSearchParams) {
  const field = query.get("limit") ?? "";
  const limit = Object.hasOwn(RATE_LIMITS, field) ? RATE_LIMITS[field] : undefined;
  const text = query.get("retry") ?? "";
  const retry = /^[0-9]+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : 0;
  if (limit === undefined || retry < 1) return html``;
  const [amount, unit] = retry < 60 ? [retry, "second"] : [Math.ceil(retry / 60), "minute"];
  const wait = new Intl.NumberFormat(LocaleFrom(req), { style: "unit", unit, unitDisplay: "long" }).format(amount);
  return html` <span data-rate-limit="${field}">${Tf(req, "starter.signin.rate_hint", { limit: T(req, limit), wait })}</span>`;
}

/** `GET /signin`. */
export function signinPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const query = queryParams(req);
    const sent = query.get("sent") === "1";
    const err = query.get("err") ?? "";
    const force = query.get("force") === "1";
    const notice = sent
      ? html`<p class="notice ok" role="status" data-outcome="sent">${Icon("mail")} ${Tf(req, "signin.sent", { minutes: LINK_TTL / 60000 })}</p>`
      : SIGNIN_ERRORS.includes(err)
        ? html`<p class="notice bad" role="alert" data-outcome="${err}">${Icon("alert")} ${T(req, `signin.err.${err}`)}${err === "rate" ? rateHint(req, query) : html``}</p>`
        : html``;
    const codeForm =
      sent || err === "code"
        ? html`<form class="card" method="post" action="/auth/code">
  <label for="code">${T(req, "signin.code_label")}</label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 \\-]*" maxlength="${CODE_LENGTH + 2}" required>
  <p><button type="submit">${Icon("key")} ${T(req, "signin.code_submit")}</button></p>
</form>`
        : html``;
    render(req, res, assets, {
      title: T(req, "signin.title"),
      body: html`<h1>${T(req, "signin.title")}</h1>
${accountNotice(req)}
${notice}
${codeForm}
<form class="card" method="post" action="/signin">
  <label for="email">${T(req, "signin.email_label")}</label>
  <input id="email" name="email" type="email" autocomplete="username webauthn" required>
  ${force ? html`<input type="hidden" name="force" value="1"><p class="muted">${T(req, "signin.force_hint")}</p>` : html``}
  <p><button type="submit">${Icon("mail")} ${T(req, "signin.submit")}</button></p>
</form>`,
    });
  };
}
