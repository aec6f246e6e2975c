/*
 * The demo's account page: the starter's cards (who and how, passkeys,
 * recovery codes; examples/starter/pages/account.ts) with the demo's own:
 * a finished job's notice (`?job=done`), the ways to the security,
 * agents and activity pages, the resources, and the two background jobs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "../../../lib/assets/index.ts";
import { html, queryParams } from "../../../lib/http/index.ts";
import { T } from "../../../lib/i18n/index.ts";
import { Icon } from "../../../lib/icons/index.ts";
import type { Passkey } from "../../../lib/passkey/index.ts";
import { From } from "../../../lib/signin/index.ts";
import { passkeysSection, recoverySection, whoSection } from "../../starter/pages/account.ts";
import { render } from "./layout.ts";

/** Renders the account page; `codes` are freshly generated recovery codes, shown this once. */
export function renderAccount(req: IncomingMessage, res: ServerResponse, assets: Assets, keys: Passkey, codes?: readonly string[]): void {
  const who = From(req);
  if (who === undefined) throw new Error("account page without RequireSession");
  const finished = queryParams(req).get("job") === "done";
  render(req, res, assets, {
    title: T(req, "account.title"),
    scripts: ["passkey.js"],
    bodyAttrs: { "data-subject": who.Subject, "data-method": who.Method },
    body: html`<h1>${T(req, "account.title")}</h1>
${finished ? html`<p class="notice ok" role="status" data-outcome="job-done">${Icon("check")} ${T(req, "jobs.done")}</p>` : html``}
${whoSection(req, who)}
<nav class="card row">
  <a href="/account/security">${Icon("lock")} ${T(req, "demo.fresh.title")}</a>
  <a href="/account/agents">${Icon("key")} ${T(req, "demo.agents.title")}</a>
  <a href="/account/activity">${Icon("info")} ${T(req, "demo.activity.title")}</a>
  <a href="/account/security#address" data-account-link="address">${Icon("mail")} ${T(req, "starter.account.address.title")}</a>
  <a href="/account/security#data" data-account-link="data">${Icon("user")} ${T(req, "starter.account.data.title")}</a>
</nav>
<section class="card">
  <h2>${T(req, "demo.resources.title")}</h2>
  <div class="row">
    <a href="/expenses" data-resource-link="expenses">${T(req, "expenses.title")}</a>
    <a href="/notes" data-resource-link="notes">${T(req, "notes.title")}</a>
  </div>
</section>
${passkeysSection(req, keys, who.Subject)}
${recoverySection(req, keys, who.Subject, codes)}
<section class="card">
  <h2>${T(req, "starter.jobs.title")}</h2>
  <form class="row" method="post" action="/jobs">
    <button name="kind" value="ok" type="submit">${Icon("spinner")} ${T(req, "demo.jobs.start_ok")}</button>
    <button class="danger" name="kind" value="fail" type="submit">${Icon("alert")} ${T(req, "demo.jobs.start_fail")}</button>
  </form>
</section>`,
  });
}
