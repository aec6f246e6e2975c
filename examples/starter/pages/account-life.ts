/*
 * The pages of latch/account (lib/account README): on the security page,
 * the card to move the account to a new address (`addressSection`: form
 * field `email` posting to /account/address; after `?address=sent` the
 * code form, field `code`, posting to /account/address/code) and the card
 * of the person's data (`dataSection`: the export link, and the deletion
 * form, field `email`, posting to /account/delete); the page the old
 * address's notice links to (`undoPage`: the token in a hidden field
 * posting to /account/address/undo, so a mail scanner that follows the
 * link changes nothing); and the notices of `?account=` on the sign-in
 * page (`accountNotice`).
 */
import type { IncomingMessage } from "node:http";
import type { Assets } from "latch/assets";
import { html, queryParams, type HandlerFunc, type SafeHTML } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import { CODE_LENGTH } from "latch/signin";
import { render } from "./layout.ts";

/** The `address` outcomes RequestChange, ConfirmLink and ConfirmCode redirect with. */
export const ADDRESS_OUTCOMES: readonly string[] = ["sent", "changed", "invalid", "busy", "mail", "link"];

/** The `account` outcomes Reverse and Delete redirect to the sign-in page with. */
export const ACCOUNT_OUTCOMES: readonly string[] = ["reversed", "reverse_failed", "deleted"];

const GOOD = new Set(["sent", "changed", "reversed", "deleted"]);

function notice(req: IncomingMessage, key: string, outcome: string): SafeHTML {
  const ok = GOOD.has(outcome);
  return html`<p class="notice ${ok ? "ok" : "bad"}" role="${ok ? "status" : "alert"}" data-outcome="${key}-${outcome}">${Icon(ok ? "check" : "alert")} ${T(req, `starter.account.${key}.${outcome}`)}</p>`;
}

/** The card that moves the account to a new address. */
export function addressSection(req: IncomingMessage, subject: string): SafeHTML {
  const outcome = queryParams(req).get("address") ?? "";
  const known = ADDRESS_OUTCOMES.includes(outcome);
  const codeForm =
    outcome === "sent" || outcome === "link"
      ? html`<form method="post" action="/account/address/code" data-account-form="address-code">
  <label for="address-code">${T(req, "starter.account.address.code")}</label>
  <input id="address-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 \\-]*" maxlength="${CODE_LENGTH + 2}" required>
  <p><button type="submit">${Icon("check")} ${T(req, "starter.account.address.confirm")}</button></p>
</form>`
      : html``;
  return html`<section class="card" id="address">
  <h2>${T(req, "starter.account.address.title")}</h2>
  ${known ? notice(req, "address", outcome) : html``}
  <p data-account-address="${subject}">${subject}</p>
  <p class="muted">${T(req, "starter.account.address.body")}</p>
  <form method="post" action="/account/address" data-account-form="address">
    <label for="new-address">${T(req, "starter.account.address.field")}</label>
    <input id="new-address" name="email" type="email" autocomplete="email" required>
    <p><button type="submit">${Icon("mail")} ${T(req, "starter.account.address.submit")}</button></p>
  </form>
  ${codeForm}
</section>`;
}

/** The card of the person's data: the export, and the deletion of the account. */
export function dataSection(req: IncomingMessage): SafeHTML {
  const outcome = queryParams(req).get("delete") ?? "";
  // "confirm": the typed address was not theirs; "team_owner": latch/teams refused (a team's only owner).
  const mismatch = outcome === "confirm" || outcome === "team_owner";
  return html`<section class="card" id="data">
  <h2>${T(req, "starter.account.data.title")}</h2>
  <p><a href="/account/export" data-account-export download>${Icon("info")} ${T(req, "starter.account.data.export")}</a></p>
  ${mismatch ? notice(req, "delete", outcome) : html``}
  <form method="post" action="/account/delete" data-account-form="delete">
    <p class="muted">${T(req, "starter.account.delete.body")}</p>
    <label for="delete-address">${T(req, "starter.account.delete.field")}</label>
    <input id="delete-address" name="email" type="email" autocomplete="off" required>
    <p><button class="danger" type="submit">${Icon("x")} ${T(req, "starter.account.delete.submit")}</button></p>
  </form>
</section>`;
}

/** The notice of a `?account=` outcome, for the sign-in page. */
export function accountNotice(req: IncomingMessage): SafeHTML {
  const outcome = queryParams(req).get("account") ?? "";
  return ACCOUNT_OUTCOMES.includes(outcome) ? notice(req, "account", outcome) : html``;
}

/** `GET /account/address/undo?token=`: the old address's way back, one button. */
export function undoPage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const token = queryParams(req).get("token") ?? "";
    // RFC 9111 §5.2.2.5: the token stays in no cache; the Referer of any onward navigation carries none.
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "no-referrer");
    render(req, res, assets, {
      title: T(req, "starter.account.undo.title"),
      body: html`<h1>${T(req, "starter.account.undo.title")}</h1>
<form class="card" method="post" action="/account/address/undo" data-account-form="undo">
  <p>${T(req, "starter.account.undo.body")}</p>
  <input type="hidden" name="token" value="${token}">
  <p><button class="danger" type="submit">${Icon("sign-out")} ${T(req, "starter.account.undo.submit")}</button></p>
</form>`,
    });
  };
}
