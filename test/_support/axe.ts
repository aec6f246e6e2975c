/*
 * The accessibility engine for the browser tests: axe-core's source is
 * evaluated in the page through the DevTools protocol (not a <script>, so
 * the page's strict CSP stays as it is) and run with the WCAG 2.0/2.1 A
 * and AA rules. What counts as a failure is the bar (issue 26):
 * every violation of impact "serious" or "critical".
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "./browser.ts";

/** The axe-core rule tags run: WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS: readonly string[] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** The impacts a test fails on. */
export const FAILING_IMPACTS: readonly string[] = ["serious", "critical"];

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One failing rule on one page: the rule, its impact, and the selector of every node it failed on. */
export interface Violation {
  rule: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** Runs axe-core on the page as loaded and returns its serious and critical WCAG 2.1 A/AA violations. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(AXE_SOURCE);
  const options = JSON.stringify({ runOnly: { type: "tag", values: WCAG_TAGS }, resultTypes: ["violations"] });
  const impacts = JSON.stringify(FAILING_IMPACTS);
  const found = await page.evaluate(
    `axe.run(document, ${options}).then((r) => r.violations` +
      `.filter((v) => ${impacts}.includes(v.impact))` +
      `.map((v) => ({ rule: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ") + " — " + n.failureSummary.replace(/\\s+/g, " ")) })))`,
  );
  return found as Violation[];
}
