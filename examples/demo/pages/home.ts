/* The demo's home page: what latch is, and where to go next. */
import type { HandlerFunc } from "../../../lib/http/index.ts";
import { html } from "../../../lib/http/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import { SessionFrom } from "../../../lib/signin/index.ts";
import type { Assets } from "../../../lib/assets/index.ts";
import { render } from "./layout.ts";

/** `GET /{$}`. */
export function homePage(assets: Assets): HandlerFunc {
  return (req, res) => {
    const who = SessionFrom(req);
    render(req, res, assets, {
      title: T(req, "demo.title"),
      body: html`<section class="card">
  <h1>${T(req, "demo.title")}</h1>
  <p>${T(req, "demo.intro")}</p>
  <div class="row">
    ${
      who === undefined
        ? html`<a href="/signin">${Icon("mail")} ${T(req, "demo.home.signin")}</a>`
        : html`<a href="/account">${Icon("user")} ${T(req, "demo.home.account")}</a>`
    }
    <a class="muted" href="/demo/error">${Icon("alert")} ${T(req, "demo.error.trigger")}</a>
  </div>
</section>`,
    });
  };
}
