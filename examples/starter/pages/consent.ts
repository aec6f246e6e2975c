/*
 * The consent page (latch/oauth `ConsentPage`): which client asks (its
 * name as it declared it, and its host, "localhost" for one on this
 * machine), which access (read, or read and write: every write still waits
 * for the person's approval), for which resource, and Allow / Decline.
 * The client's name is the client's words: it appears only inside
 * `data-agent-text`. Attributes the tests read: data-consent-client,
 * data-consent-host, data-consent-access ("read" or "write"),
 * data-consent-resource, and data-consent ("allow" / "deny" buttons).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Assets } from "latch/assets";
import { html } from "latch/http";
import { T } from "latch/i18n";
import { Icon } from "latch/icons";
import type { Consent } from "latch/oauth";
import { render } from "./layout.ts";

/** `GET /oauth/authorize` for a signed-in person: what the client asks, and Allow / Decline. */
export function consentPage(req: IncomingMessage, res: ServerResponse, assets: Assets, consent: Consent): void {
  const write = consent.Access === "write";
  render(req, res, assets, {
    title: T(req, "starter.consent.title"),
    body: html`<h1>${Icon("key")} ${T(req, "starter.consent.title")}</h1>
<section class="card">
  <p>${T(req, "starter.consent.asks")}</p>
  <p><strong data-agent-text dir="auto" data-consent-client>${consent.Client.Name}</strong> · <code dir="ltr" data-consent-host>${consent.Client.Host}</code></p>
  <p data-consent-access="${consent.Access}">${write ? T(req, "starter.consent.write") : T(req, "starter.consent.read")}</p>
  <p>${T(req, "starter.consent.resource")} <code data-consent-resource>${consent.Resource}</code></p>
  <form method="post" action="${consent.Action}">
    ${consent.Fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
    <button type="submit" name="decision" value="allow" data-consent="allow">${Icon("check")} ${T(req, "starter.consent.allow")}</button>
    <button class="secondary" type="submit" name="decision" value="deny" data-consent="deny">${Icon("x")} ${T(req, "starter.consent.decline")}</button>
  </form>
</section>`,
  });
}
