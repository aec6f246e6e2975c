/*
 * The starter's pages look finished (issue 42, "Finished pages"): every page
 * of test/_support/starter-pages.ts, as the guide's application serves it,
 * in English, German and Arabic (right to left), light and dark, has no
 * serious or critical axe-core violation (WCAG 2.1 A/AA); and the layout
 * facts a person sees: the list's table starts within a laptop's first
 * screen, every input kind wears the starter's border and background in
 * both schemes, a wide table scrolls inside its box on a phone, the
 * Revoke buttons line up, an unknown job gets the starter's 404 page.
 *
 * With SCREENSHOT_DIR set, each page is also written there as
 * `starter-<locale>-<scheme>-<name>.png` for a person to look at
 * (`SCREENSHOT_DIR=/tmp/shots node --test dist/test/e2e/starter-pages.test.js`).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { axeViolations } from "../_support/axe.ts";
import {
  addVirtualAuthenticator,
  hasChromium,
  launchBrowser,
  pageWidths,
  PHONE,
  watchedPage,
  type Browser,
  type Page,
} from "../_support/browser.ts";
import { signInByLink, startGuide, type Demo } from "../_support/demo.ts";
import { LONG_GERMAN_LABEL, seedStarter, STARTER_PAGES, type StarterRecords } from "../_support/starter-pages.ts";

const SHOTS = process.env["SCREENSHOT_DIR"];
// Each of the job's 10 steps takes a minute, so its page is seen while it runs.
const JOB_STEP_MS = "60000";
const SCHEMES = ["light", "dark"] as const;
const LOCALES = ["en", "de", "ar"] as const;
/** The laptop screens the list must start within (CSS px): the two most common below full HD. */
const LAPTOPS = [
  { width: 1366, height: 768 },
  { width: 1280, height: 800 },
] as const;

/** Every input kind a resource form or a starter page renders, injected into a starter page to read its computed style. */
const INPUT_KINDS = ["text", "email", "search", "number", "date", "datetime-local", "url", "file", "textarea", "select", "checkbox"];

const prefixed = (origin: string, locale: string, path: string): string => `${origin}${locale === "en" ? "" : `/${locale}`}${path}`;
const ADDRESS = "ada-pages@example.com";

/** Writes the page's screenshot (with SCREENSHOT_DIR) and returns its axe-core failures as "rule (impact) on label url: node". */
async function lookAt(tab: Page, label: string, url: string): Promise<string[]> {
  if (SHOTS !== undefined) await tab.screenshot({ path: join(SHOTS, `starter-${label}.png`), fullPage: true });
  return (await axeViolations(tab)).flatMap((v) => v.nodes.map((node) => `${v.rule} (${v.impact}) on ${label} ${url}: ${node}`));
}

/** Adds one input of each kind a resource form renders to the page's resource form (the stylesheet is what is checked). */
async function addEveryInputKind(page: Page): Promise<void> {
  await page.evaluate(
    `(() => { const form = document.querySelector("form.resource-form"); for (const kind of ${JSON.stringify(INPUT_KINDS)}) {` +
      `const el = kind === "textarea" || kind === "select" ? document.createElement(kind) : Object.assign(document.createElement("input"), { type: kind });` +
      `el.dataset.kind = kind; const field = document.createElement("div"); field.className = "field"; field.append(el); form.prepend(field); } })()`,
  );
}

interface InputStyle {
  kind: string;
  border: string;
  background: string;
  accent: string;
}

/** The stylesheet's colours resolved to rgb() by the browser (an input's line, the page's background, the accent), and each added input's. */
async function inputStyles(page: Page): Promise<{ expected: Omit<InputStyle, "kind">; seen: InputStyle[] }> {
  const expected = (await page.evaluate(
    `(() => { const probe = document.createElement("span"); probe.style.cssText = "color: var(--muted); background-color: var(--bg); accent-color: var(--accent)"; document.body.append(probe); const s = getComputedStyle(probe); const out = { border: s.color, background: s.backgroundColor, accent: s.accentColor }; probe.remove(); return out; })()`,
  )) as Omit<InputStyle, "kind">;
  const seen = (await page.evaluate(
    `[...document.querySelectorAll("[data-kind]")].map((el) => { const s = getComputedStyle(el); return { kind: el.dataset.kind, border: s.borderTopColor + " " + s.borderTopStyle + " " + s.borderTopWidth, background: s.backgroundColor, accent: s.accentColor }; })`,
  )) as InputStyle[];
  return { expected, seen };
}

/** Every added input wears the starter's line and background; a checkbox, the browser's own, its accent colour. */
function assertInputStyles({ expected, seen }: { expected: Omit<InputStyle, "kind">; seen: InputStyle[] }, scheme: string): void {
  assert.equal(seen.length, INPUT_KINDS.length);
  for (const input of seen) {
    if (input.kind === "checkbox") assert.equal(input.accent, expected.accent, `${scheme} checkbox accent`);
    else
      assert.deepEqual([input.border, input.background], [`${expected.border} solid 1px`, expected.background], `${scheme} ${input.kind}`);
  }
}

/** The `side` edge of every element `selector` matches, in whole CSS pixels. */
async function edgesOf(page: Page, selector: string, side: "top" | "bottom" | "left" | "right"): Promise<number[]> {
  return (await page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((e) => Math.ceil(e.getBoundingClientRect().${side}))`,
  )) as number[];
}

/**
 * Opens `url` in `tab`; when `signedIn`, a page behind RequireFreshSession (5 minutes) that sends a session grown stale
 * during the sweep to the step-up page gets a fresh sign-in and is opened again, so each page is seen as a person sees it.
 */
async function openSeen(app: Demo, tab: Page, url: string, signedIn: boolean): Promise<void> {
  await tab.goto(url);
  if (!signedIn || url.includes("/stepup") || !new URL(tab.url()).pathname.endsWith("/stepup")) return;
  await signInByLink(tab, app, ADDRESS);
  await tab.waitForURL(`${app.origin}/account`);
  await tab.goto(url);
}

describe("the starter's pages look finished (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let app: Demo;
  let browser: Browser;
  let signedOut: Page;
  let page: Page;
  let records: StarterRecords;
  before(async () => {
    if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
    app = await startGuide({ JOB_STEP_MS });
    browser = await launchBrowser();
    signedOut = (await watchedPage(await browser.newContext())).page;
    page = (await watchedPage(await browser.newContext())).page;
    await addVirtualAuthenticator(page);
    records = await seedStarter(page, app, ADDRESS);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = (tab: Page, url: string): Promise<void> => openSeen(app, tab, url, tab === page);

  it("every page, in English, German and Arabic, light and dark: no serious or critical axe-core violation", async () => {
    const failures: string[] = [];
    for (const entry of STARTER_PAGES) {
      const tab = entry.signedIn ? page : signedOut;
      for (const locale of LOCALES) {
        for (const colorScheme of SCHEMES) {
          await tab.emulateMedia({ colorScheme });
          const url = prefixed(app.origin, locale, entry.path(records));
          await open(tab, url);
          failures.push(...(await lookAt(tab, `${locale}-${colorScheme}-${entry.name}`, url)));
        }
      }
    }
    assert.deepEqual(failures, [], `${failures.length} serious or critical WCAG 2.1 A/AA violations:\n${failures.join("\n")}`);
  });

  it("the list's table, its header and first row, is within the first screen of a laptop (1366x768, 1280x800), in every locale", async () => {
    for (const size of LAPTOPS) {
      await page.setViewportSize(size);
      for (const locale of LOCALES) {
        await open(page, prefixed(app.origin, locale, "/expenses"));
        const [top] = await edgesOf(page, "table[data-resource]", "top");
        const [firstRowBottom] = await edgesOf(page, "table[data-resource] tbody tr", "bottom");
        assert.ok((top ?? Infinity) < size.height, `${locale} at ${size.width}x${size.height}: the table starts at ${top} px`);
        assert.ok(
          (firstRowBottom ?? Infinity) <= size.height,
          `${locale} at ${size.width}x${size.height}: the first record ends at ${firstRowBottom} px, below the screen`,
        );
      }
    }
  });

  it("every input kind has the starter's border and background, in light and dark", async () => {
    await page.setViewportSize(LAPTOPS[0]);
    await page.goto(`${app.origin}/expenses/new`);
    await addEveryInputKind(page);
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme });
      assertInputStyles(await inputStyles(page), colorScheme);
    }
  });

  it("on a phone (375 px) a wide table scrolls inside its box, German and Arabic, and the page does not", async () => {
    await page.setViewportSize(PHONE);
    for (const locale of ["de", "ar"]) {
      await page.goto(prefixed(app.origin, locale, "/expenses"));
      assert.ok(((await page.textContent("table[data-resource]")) ?? "").includes(LONG_GERMAN_LABEL));
      const [wrapperScroll, wrapperClient, pageScroll, pageClient] = (await page.evaluate(
        `(() => { const w = document.querySelector("table[data-resource]").parentElement; const d = document.documentElement; return [w.scrollWidth, w.clientWidth, d.scrollWidth, d.clientWidth]; })()`,
      )) as number[];
      assert.ok(
        (wrapperScroll ?? 0) > (wrapperClient ?? 0),
        `${locale}: the table is wider than its box (${wrapperScroll} > ${wrapperClient})`,
      );
      assert.equal(pageScroll, pageClient, `${locale}: the page itself does not scroll sideways`);
      // The record's page, the long word its heading: the word breaks, the page does not widen.
      await open(page, prefixed(app.origin, locale, records.expense));
      assert.deepEqual(await pageWidths(page), [PHONE.width, PHONE.width], `${locale}: the record page fits the phone`);
    }
    await page.setViewportSize(LAPTOPS[0]);
  });

  it("action buttons line up: the tokens page's Revoke buttons at one edge, a record's Save and Delete on one line", async () => {
    for (const [locale, edge] of [
      ["en", "right"],
      ["ar", "left"],
    ] as const) {
      await open(page, prefixed(app.origin, locale, "/account/agents"));
      const edges = await edgesOf(page, "[data-agent-id] button.danger", edge);
      assert.ok(edges.length >= 2, "two tokens listed");
      assert.equal(new Set(edges).size, 1, `${locale}: every Revoke button ends at the same ${edge} edge (${edges.join(", ")})`);
      // A record's Save and Delete (two forms of lib/manifest's record page) share one top edge.
      await open(page, prefixed(app.origin, locale, records.expense));
      const tops = await edgesOf(page, "section[data-record-id] button", "top");
      assert.equal(tops.length, 2, "Save and Delete");
      assert.equal(new Set(tops).size, 1, `${locale}: Save and Delete tops ${tops.join(", ")}`);
    }
  });

  it("an unknown job id answers 404 with the starter's page, in the layout and the locale", async () => {
    const unknown = await page.goto(`${app.origin}/de/jobs/no-such-job`);
    assert.deepEqual([unknown?.status(), unknown?.headers()["content-type"]], [404, "text/html; charset=utf-8"]);
    assert.equal(await page.getAttribute("html", "lang"), "de");
    assert.ok((await page.evaluate(`document.querySelector('link[rel="stylesheet"]') !== null`)) === true, "the layout's stylesheet");
    assert.equal(await page.getAttribute("main [data-status]", "data-status"), "404");
    // Someone else's job is answered the same way (SPEC §4.3: indistinguishable from an unknown one).
    const other = (await watchedPage(await browser.newContext())).page;
    await signInByLink(other, app, "grace-pages@example.com");
    await other.waitForURL(`${app.origin}/account`);
    const theirs = await other.goto(`${app.origin}${records.job}`);
    assert.equal(theirs?.status(), 404);
    assert.equal(await other.getAttribute("main [data-status]", "data-status"), "404");
  });
});
