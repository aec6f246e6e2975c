/*
 * Accessibility of every page a person sees (issue 26, "Pages"): the demo
 * (`examples/demo`) and the starter's pages as the guide's application
 * serves them (`examples/guide`), signed out and signed in, each in light
 * and dark (`prefers-color-scheme`), in English and in Arabic (right to
 * left), checked in headless Chromium by axe-core with the WCAG 2.1 A/AA
 * rules (test/_support/axe.ts). A serious or critical violation anywhere
 * fails the test, listed as rule, page and node.
 *
 * With SCREENSHOT_DIR set, each checked page is also written there as
 * `<app>-<locale>-<scheme>-<name>.png` for a person to look at.
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
import { mintTokenInBrowser, signInByLink, startDemo, startGuide, type Demo } from "../_support/demo.ts";
import { consentPath, pendingApproval, teamWithInvitation } from "../_support/starter-pages.ts";

const SHOTS = process.env["SCREENSHOT_DIR"];
// Each of a job's 10 steps takes a minute, so its status page is checked while it runs (its progress bar and spinner).
const JOB_STEP_MS = "60000";
const SCHEMES = ["light", "dark"] as const;
const LOCALES = ["en", "ar"] as const;

/** Checks pages of one application and remembers every failure as "rule (impact) on page: node". */
class Checker {
  readonly failures: string[] = [];
  private readonly app: string;
  private readonly page: Page;
  private readonly origin: string;
  constructor(app: string, page: Page, origin: string) {
    this.app = app;
    this.page = page;
    this.origin = origin;
  }

  /** Loads `path` in each locale and scheme and checks it. */
  async visit(name: string, path: string): Promise<void> {
    for (const locale of LOCALES) {
      const url = `${this.origin}${locale === "en" ? "" : `/${locale}`}${path}`;
      for (const colorScheme of SCHEMES) {
        await this.page.emulateMedia({ colorScheme });
        await this.page.goto(url);
        await this.check(`${locale}-${colorScheme}-${name}`, url);
      }
    }
  }

  /** Checks the page as it is now (reached by a form post), in each scheme. */
  async here(name: string): Promise<void> {
    for (const colorScheme of SCHEMES) {
      await this.page.emulateMedia({ colorScheme });
      await this.check(`en-${colorScheme}-${name}`, this.page.url());
    }
  }

  private async check(label: string, url: string): Promise<void> {
    if (SHOTS !== undefined) await this.page.screenshot({ path: join(SHOTS, `${this.app}-${label}.png`), fullPage: true });
    for (const v of await axeViolations(this.page)) {
      for (const node of v.nodes) this.failures.push(`${v.rule} (${v.impact}) on ${this.app} ${label} ${url}: ${node}`);
    }
  }

  /** Fails with every violation found so far, and starts over. */
  assertClean(): void {
    const found = this.failures.splice(0);
    assert.deepEqual(found, [], `${found.length} serious or critical WCAG 2.1 A/AA violations:\n${found.join("\n")}`);
  }
}

/** How many distinct lines the Save and Delete buttons of a record's card sit on. */
async function buttonTops(page: Page): Promise<unknown> {
  return page.evaluate(
    // A File field's Upload is on a line of its own, below (starter.css).
    `new Set([...document.querySelectorAll("section[data-record-id] button:not(form.resource-file button)")].map((b) => Math.round(b.getBoundingClientRect().top))).size`,
  );
}

/** The text of every heading of a record's history whose text is wider than its cell. */
const OVERFLOWING_HEADINGS = `[...document.querySelectorAll("table.preview th")].filter((th) => th.scrollWidth > th.clientWidth).map((th) => th.textContent)`;

/** The hrefs of the header's navigation. */
async function navLinks(page: Page): Promise<unknown> {
  return page.evaluate(`[...document.querySelectorAll("header nav a")].map((a) => a.getAttribute("href"))`);
}

const SIGNED_OUT: [string, string][] = [
  ["home", "/"],
  ["signin", "/signin"],
  ["signin-sent", "/signin?sent=1"],
  ["signin-rate", "/signin?err=rate"],
  ["signin-address", "/signin?err=address"],
  ["signin-expired", "/signin?err=expired"],
  ["signin-code", "/signin?err=code"],
  ["not-found", "/no/such/page"],
];

const SIGNED_IN: [string, string][] = [
  ["home-in", "/"],
  ["account", "/account"],
  ["security", "/account/security"],
  ["agents", "/account/agents"],
  ["approvals", "/account/approvals"],
  ["activity", "/account/activity"],
  ["expenses", "/expenses"],
  ["expenses-new", "/expenses/new"],
];

describe("accessibility: the demo's pages (browser)", { skip: hasChromium ? false : "no system Chromium" }, () => {
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  let checker: Checker;
  before(async () => {
    if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
    demo = await startDemo({ JOB_STEP_MS: JOB_STEP_MS });
    browser = await launchBrowser();
    page = (await watchedPage(await browser.newContext())).page;
    checker = new Checker("demo", page, demo.origin);
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  it("signed out: home, sign-in and its outcomes, the 404 and the error page", async () => {
    for (const [name, path] of SIGNED_OUT) await checker.visit(name, path);
    await checker.visit("error", "/demo/error");
    checker.assertClean();
  });

  it("signed in: account, security, agents, approvals, activity, expenses, notes, teams, a job, an approval, the consent page", async () => {
    await signInByLink(page, demo, "ada-a11y@example.com");
    await page.waitForURL(`${demo.origin}/account`);
    // Signed-in pages carry the demo's navigation in the header; the current page is marked.
    for (const path of ["/account", "/expenses", "/account/agents"]) {
      await page.goto(`${demo.origin}${path}`);
      assert.deepEqual(await navLinks(page), [
        "/account",
        "/expenses",
        "/notes",
        "/teams",
        "/account/agents",
        "/account/approvals",
        "/account/activity",
        "/account/security",
      ]);
      assert.equal(await page.getAttribute('header nav a[aria-current="page"]', "href"), path);
    }
    // The token page's Read/Write radios: a legend like a label, no browser-default fieldset border.
    assert.equal(await page.evaluate(`getComputedStyle(document.querySelector("fieldset")).borderTopWidth`), "0px");
    for (const [name, path] of SIGNED_IN) await checker.visit(name, path);
    await checker.visit("notes", "/notes");
    await checker.visit("notes-new", "/notes/new");
    // Teams (latch/teams): the list with its create form, then a team's page with a pending invitation, as its owner sees it.
    await checker.visit("teams", "/teams");
    const team = await teamWithInvitation(page, demo.origin, "Workshop", "grace-a11y@example.com");
    await checker.visit("teams-one", "/teams");
    await checker.visit("team", team);
    await checker.visit("team-delete", `${team}/delete`);

    await page.goto(`${demo.origin}/expenses/new`);
    await page.fill('input[name="label"]', "Train");
    await page.fill('input[name="amount"]', "12.50");
    await page.fill('input[name="reimbursed_on"]', "2026-11-20");
    await page.click('form[data-resource="expenses"] button[type="submit"]');
    await page.waitForSelector("section[data-record-id]");
    await checker.here("expense");
    // A record's Save and Delete sit on one line (the two forms of lib/manifest's record page), in both directions.
    for (const prefix of ["", "/ar"]) {
      await page.goto(`${demo.origin}${prefix}${new URL(page.url()).pathname}`);
      assert.deepEqual(await buttonTops(page), 1, `Save and Delete on one line (${prefix || "/"})`);
    }
    // WCAG 2.1 1.4.10 (reflow): on a phone the record's page, its receipt's upload form among it, is no wider than the
    // screen, and each field named in its history ("Reimbursed on") wraps in its column rather than run into the value.
    const screen = page.viewportSize();
    await page.setViewportSize(PHONE);
    for (const prefix of ["", "/ar"]) {
      await page.goto(`${demo.origin}${prefix}${new URL(page.url()).pathname}`);
      assert.deepEqual(await pageWidths(page), [PHONE.width, PHONE.width], `the record page fits the phone (${prefix || "/"})`);
      assert.deepEqual(await page.evaluate(OVERFLOWING_HEADINGS), [], `history's headings fit their cells (${prefix || "/"})`);
    }
    if (screen !== null) await page.setViewportSize(screen);
    await checker.visit("expenses-one", "/expenses");
    // The search box looks like the filters beside it (the starter's input style): as tall as the label filter.
    assert.deepEqual(
      await page.evaluate(
        `["#filter-q", "#filter-label"].map((s) => Math.round(document.querySelector(s).getBoundingClientRect().height))`,
      ),
      await page.evaluate(
        `["#filter-label", "#filter-label"].map((s) => Math.round(document.querySelector(s).getBoundingClientRect().height))`,
      ),
    );

    // The CSV import (lib/manifest README "Import"): its upload form, and a preview with a row in error.
    await checker.visit("expenses-import", "/expenses/import");
    await page.goto(`${demo.origin}/expenses/import`);
    await page.setInputFiles('form[data-import-upload] input[name="file"]', {
      name: "expenses.csv",
      mimeType: "text/csv",
      buffer: Buffer.from("label,amount,unknown\nTaxi,9.00,x\n,12.5.0,y\n"),
    });
    await page.click("form[data-import-upload] button[type=submit]");
    await page.waitForSelector("[data-import-errors]");
    const preview = new URL(page.url());
    await checker.visit("expenses-import-preview", `${preview.pathname}${preview.search}`);
    await page.goto(`${demo.origin}/account`);
    await page.click('form[action="/jobs"] button[value="ok"]');
    await page.waitForURL(/\/jobs\/[^/?]+$/);
    await page.waitForSelector(".job-status");
    await checker.visit("job", new URL(page.url()).pathname);

    const token = await mintTokenInBrowser(page, demo, "claude", "write");
    await checker.here("agents-token");
    const approval = await pendingApproval(demo.origin, token, "start_job", { kind: "ok", confirmed: true });
    await checker.visit("approval", approval);
    await checker.visit("consent", await consentPath(demo.origin));
    await page.goto(`${demo.origin}${approval}`);
    await page.click('button[data-approval="approve"]');
    await page.waitForSelector("[data-outcome]");
    await checker.here("approval-approved");
    checker.assertClean();
  });
});

describe(
  "accessibility: the starter's pages in the guide's application (browser)",
  { skip: hasChromium ? false : "no system Chromium" },
  () => {
    let app: Demo;
    let browser: Browser;
    let page: Page;
    let checker: Checker;
    before(async () => {
      if (SHOTS !== undefined) mkdirSync(SHOTS, { recursive: true });
      app = await startGuide({ JOB_STEP_MS: JOB_STEP_MS });
      browser = await launchBrowser();
      page = (await watchedPage(await browser.newContext())).page;
      await addVirtualAuthenticator(page);
      checker = new Checker("starter", page, app.origin);
    });
    after(async () => {
      await browser?.close();
      await app?.close();
    });

    it("signed out: home, sign-in and its outcomes, the 404", async () => {
      await page.goto(`${app.origin}/signin`);
      assert.deepEqual(await navLinks(page), [], "no navigation signed out");
      for (const [name, path] of SIGNED_OUT) await checker.visit(name, path);
      checker.assertClean();
    });

    it("signed in: account, security, agents, approvals, expenses, a job, a new token, a pending approval, the confirm, step-up and consent pages", async () => {
      await signInByLink(page, app, "grace-a11y@example.com");
      await page.waitForURL(`${app.origin}/account`);
      for (const path of ["/account", "/account/approvals"]) {
        await page.goto(`${app.origin}${path}`);
        assert.deepEqual(await navLinks(page), ["/account", "/account/agents", "/account/approvals", "/account/security"]);
      }
      for (const [name, path] of SIGNED_IN.filter(([n]) => n !== "activity")) await checker.visit(name, path);
      await checker.visit("confirm", "/confirm");
      await checker.visit("stepup", "/stepup?next=/account");
      await page.goto(`${app.origin}/account`);
      await page.click('form[action="/jobs"] button');
      await page.waitForURL(/\/jobs\/[A-Za-z0-9_-]+$/);
      await page.waitForSelector(".job-status");
      await checker.visit("job", new URL(page.url()).pathname);
      const token = await mintTokenInBrowser(page, app, "writer", "write");
      await checker.here("agents-token");
      await pendingApproval(app.origin, token, "expenses_create", { label: "Train-ticket-".repeat(9), amount: "20.00" });
      await checker.visit("approvals-pending", "/account/approvals");
      await checker.visit("consent", await consentPath(app.origin));
      // The consent card ends with its buttons, as far from its bottom edge as its first line is from its top.
      const edges = (await page.evaluate(
        `[document.querySelector("main .card"), document.querySelector("main .card > :first-child"), document.querySelector("[data-consent='deny']")].map((e) => e.getBoundingClientRect())`,
      )) as { top: number; bottom: number }[];
      const [card, first, deny] = edges.map((r) => ({ top: Math.round(r.top), bottom: Math.round(r.bottom) }));
      assert.equal((card?.bottom ?? 0) - (deny?.bottom ?? 0), (first?.top ?? 0) - (card?.top ?? 0));
      checker.assertClean();
    });
  },
);
