/* The home page: what this is, and the way in (or to the account). */
import type { Assets } from "latch/assets";
import { html, type HandlerFunc } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import { SessionFrom } from "latch/signin";
import { render } from "./layout.ts";

/** `GET /{$}` (behind `LoadSession`, so a signed-in visitor sees the way to the account). */
export function homePage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const signedIn = SessionFrom(req) !== undefined;
    render(req, res, assets, {
      title: T(req, "starter.name"),
      body: html`<section class="card">
  <h1>${T(req, "starter.name")}</h1>
  <p>${T(req, "starter.home.intro")}</p>
  <p>${
    signedIn
      ? html`<a class="button" href="/account">${Icon("user")} ${T(req, "account.title")}</a>`
      : html`<a class="button" href="/signin">${Icon("mail")} ${T(req, "signin.title")}</a>`
  }</p>
</section>`,
    });
  };
}
