/*
 * The consent page cannot be spoofed with a bidi override (issue 36): a
 * client named "Claude Desktop" + U+202E (RIGHT-TO-LEFT OVERRIDE) whose
 * redirect host is `moc.ciporhtna.evil.example` would show, were the name
 * not isolated, "Claude Desktop · elpmaxe.live.anthropic.com". Such a name
 * can no longer be registered; and, apart from that refusal, a name holding
 * one (an older registration, put in the demo's database here) renders
 * isolated: the host reads as it is, on the consent page and on
 * /account/agents. Real headless Chromium against the demo; the order is
 * the visual one (each character's box, left to right). LATCH_SCREENSHOTS
 * keeps light-theme screenshots. Also: every element of the examples'
 * pages that holds text a client or agent chose (`data-agent-text`) is
 * marked `dir="auto"`, and each host a person checks `dir="ltr"`, which
 * isolate it by HTML's own rendering rules (HTML §15.3.4).
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { hasChromium, launchBrowser, watchedPage, type Browser, type Page } from "../_support/browser.ts";
import { signInByLink, startDemo, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RLO = "\u202e";
const HOST = "moc.ciporhtna.evil.example";
const REDIRECT = `https://${HOST}/cb`;
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/** The visible text of the paragraph holding `selector`, in the order it is drawn (left to right on its line). */
async function drawnText(page: Page, selector: string): Promise<string> {
  const text = await page.evaluate(`(() => {
    const p = document.querySelector(${JSON.stringify(selector)}).closest("p, li");
    const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    const drawn = [];
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (box.width > 0) drawn.push([(box.top + box.bottom) / 2, box.left, node.data[i], box.height]);
      }
    }
    // The line of the host's first character: every box whose middle lies within half a line of its middle.
    const [middle, , , height] = drawn.find((d) => d[2] === ${JSON.stringify(HOST[0])});
    return drawn.filter((d) => Math.abs(d[0] - middle) < height / 2).sort((a, b) => a[1] - b[1]).map((d) => d[2]).join("");
  })()`);
  return String(text);
}

describe("every element holding a client's or agent's text is isolated", () => {
  it("the examples mark each data-agent-text element dir=auto and each host dir=ltr", () => {
    const pages = ["examples/starter/pages", "examples/demo/pages"].flatMap((dir) =>
      readdirSync(join(ROOT, dir))
        .filter((f) => f.endsWith(".ts"))
        .map((f) => join(dir, f)),
    );
    let tags = 0;
    for (const file of pages) {
      const source = readFileSync(join(ROOT, file), "utf8");
      for (const [tag] of source.matchAll(/<[a-z]+\b[^<>\n]*\bdata-agent-text\b[^<>\n]*>/g)) {
        tags++;
        assert.match(tag, /\bdir="auto"/, `${file}: ${tag}`);
      }
      for (const [tag] of source.matchAll(/<[a-z]+\b[^<>\n]*\bdata-(?:consent|agent-client)-host\b[^<>\n]*>/g)) {
        tags++;
        assert.match(tag, /\bdir="ltr"/, `${file}: ${tag}`);
      }
    }
    assert.ok(tags >= 9, `found ${tags} tags`);
  });
});

describe("a bidi override in a client's name (Chromium, the demo)", { skip: !hasChromium && "no chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  before(async () => {
    demo = await startDemo();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("cannot be registered", async () => {
    const res = await sendRequest(
      demo.origin,
      "POST",
      "/oauth/register",
      {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: `Claude Desktop${RLO}`, redirect_uris: [REDIRECT] }),
      },
      demo.origin,
    );
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).error, "invalid_client_metadata");
    assert.match(JSON.parse(res.body).error_description, /client_name holds an invisible formatting character/);
  });

  it("stored before the refusal, renders isolated: the host reads as it is on the consent page and the agents list", async () => {
    const db = new Database(join(demo.stateDir, "demo.db"));
    try {
      const now = Date.now();
      db.prepare(
        "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, grant_types, registered_by, issued_at, last_used_at) VALUES (?, ?, ?, ?, NULL, ?, ?)",
      ).run("older-registration", `Claude Desktop${RLO}`, JSON.stringify([REDIRECT]), '["authorization_code"]', now, now);
    } finally {
      db.close();
    }
    const context = await browser.newContext();
    const { page, failures } = await watchedPage(context);
    await page.emulateMedia({ colorScheme: "light" });
    await signInByLink(page, demo, "ada@example.com");
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "older-registration",
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: "S256",
      state: "s",
    });
    await page.goto(`${demo.origin}/oauth/authorize?${query.toString()}`);
    await page.waitForSelector("[data-consent-host]");
    assert.equal(await page.textContent("[data-consent-host]"), HOST);
    const consent = await drawnText(page, "[data-consent-host]");
    assert.match(consent, new RegExp(`^Claude ?Desktop.*${HOST.replaceAll(".", "\\.")}$`), consent);
    assert.doesNotMatch(consent, /elpmaxe/);
    const shots = process.env["LATCH_SCREENSHOTS"];
    if (shots !== undefined) await page.screenshot({ path: join(shots, "consent-bidi-light.png"), fullPage: true });

    await page.route(new RegExp(HOST.replaceAll(".", "\\.")), (route) => route.abort());
    await page.click('[data-consent="allow"]');
    // The grant is made; the redirect to the (unreachable) client is cut and ends on the browser's error page.
    await page.waitForURL(/^chrome-error:/);
    await page.goto(`${demo.origin}/account/agents`);
    await page.waitForSelector("[data-agent-client-host]");
    const listed = await drawnText(page, "[data-agent-client-host]");
    assert.match(listed, new RegExp(`Claude ?Desktop.*${HOST.replaceAll(".", "\\.")}`), listed);
    assert.doesNotMatch(listed, /elpmaxe/);
    if (shots !== undefined) await page.screenshot({ path: join(shots, "agents-bidi-light.png"), fullPage: true });
    assert.deepEqual(failures, []);
    await context.close();
  });
});
