/*
 * Headless Chromium through playwright-core, for the browser tests. The
 * package's own .d.ts needs the DOM lib, which this project's tsconfig
 * leaves out, so it is loaded untyped and seen through the small slice of
 * its API declared here. The browser is the Debian one at /usr/bin/chromium;
 * nothing is ever downloaded.
 */
import { existsSync } from "node:fs";

/** Path of the system Chromium. */
export const CHROMIUM = "/usr/bin/chromium";

/** Reports whether the system Chromium is installed (tests skip otherwise). */
export const hasChromium: boolean = existsSync(CHROMIUM);

const ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A navigation's response. */
export interface PageResponse {
  status(): number;
  headers(): Record<string, string>;
}

/** A console message. */
export interface ConsoleMessage {
  type(): string;
  text(): string;
}

/** A Chrome DevTools Protocol session. */
export interface CDPSession {
  send(method: string, params?: Record<string, unknown>): Promise<unknown>;
}

/**
 * The slice of a playwright Page the tests use. No `waitForFunction`: it
 * evaluates strings inside the page, which the demo's CSP (no
 * 'unsafe-eval') refuses; wait with selectors instead.
 */
export interface Page {
  goto(url: string): Promise<PageResponse | null>;
  url(): string;
  content(): Promise<string>;
  click(selector: string): Promise<void>;
  fill(selector: string, value: string): Promise<void>;
  selectOption(selector: string, value: string): Promise<string[]>;
  /** Sets the files of a file input, as a person choosing them would. */
  setInputFiles(selector: string, files: { name: string; mimeType: string; buffer: Buffer }): Promise<void>;
  waitForURL(url: RegExp | string): Promise<void>;
  waitForSelector(selector: string): Promise<unknown>;
  /** Handles the page's requests to `url` (a glob or RegExp), e.g. `route.abort()` to cut them. */
  route(url: string | RegExp, handler: (route: { abort(): Promise<void> }) => unknown): Promise<void>;
  evaluate(expression: string): Promise<unknown>;
  getAttribute(selector: string, name: string): Promise<string | null>;
  textContent(selector: string): Promise<string | null>;
  /** Moves the keyboard focus to the element, as Tab would. */
  focus(selector: string): Promise<void>;
  readonly keyboard: { press(key: string): Promise<void> };
  /** Writes a PNG of the page to `path`. */
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  on(event: "console", listener: (message: ConsoleMessage) => void): void;
  on(event: "pageerror", listener: (error: Error) => void): void;
  on(event: "response", listener: (response: PageResponse & { url(): string }) => void): void;
  context(): BrowserContext;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  viewportSize(): { width: number; height: number } | null;
  /** Emulates `prefers-color-scheme` for the page's next renders. */
  emulateMedia(options: { colorScheme: "light" | "dark" }): Promise<void>;
  close(): Promise<void>;
}

/** A phone's screen, in CSS px: the width the pages' reflow is checked at (WCAG 2.1 1.4.10). */
export const PHONE = { width: 375, height: 740 } as const;

/** Returns the page's scroll width and its visible width: equal when the page does not scroll sideways. */
export async function pageWidths(page: Page): Promise<unknown> {
  return page.evaluate(`[document.documentElement.scrollWidth, document.documentElement.clientWidth]`);
}

/** The slice of a playwright BrowserContext the tests use. */
export interface BrowserContext {
  newPage(): Promise<Page>;
  /** The context's cookies (names and values). */
  cookies(): Promise<{ name: string; value: string }[]>;
  /** Adds cookies, each for the origin `url` (a session signed in over HTTP). */
  addCookies(cookies: { name: string; value: string; url: string }[]): Promise<void>;
  newCDPSession(page: Page): Promise<CDPSession>;
  /** Grants browser permissions (e.g. "clipboard-read") to pages of `origin`. */
  grantPermissions(permissions: string[], options?: { origin?: string }): Promise<void>;
  close(): Promise<void>;
}

/** The slice of a playwright Browser the tests use. */
export interface Browser {
  /** `locale` sets the context's Accept-Language and navigator.language. */
  newContext(options?: { javaScriptEnabled?: boolean; locale?: string }): Promise<BrowserContext>;
  close(): Promise<void>;
}

interface Chromium {
  launch(options: { executablePath: string; args: string[] }): Promise<Browser>;
}

/** Launches headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  const specifier = "playwright-core";
  const mod: unknown = await import(specifier);
  if (typeof mod !== "object" || mod === null || !("chromium" in mod)) throw new Error("playwright-core: no chromium export");
  const chromium = mod.chromium as Chromium;
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A page plus what it reported: console errors, uncaught exceptions, and every response's CSP header. */
export interface WatchedPage {
  page: Page;
  /** Console errors and page errors, in order. */
  errors: string[];
  /** The Content-Security-Policy of every HTML document loaded. */
  policies: string[];
  /** "<status> <url>" of every response with status 400 or more. */
  failures: string[];
  /** The URL of every response, in order. */
  visited: string[];
}

/** Opens a page in `context` that records errors and document CSPs. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const watched: WatchedPage = { page, errors: [], policies: [], failures: [], visited: [] };
  page.on("console", (m) => {
    if (m.type() === "error") watched.errors.push(m.text());
  });
  page.on("pageerror", (e) => watched.errors.push(`${e.name}: ${e.message}`));
  page.on("response", (r) => {
    watched.visited.push(r.url());
    if (r.status() >= 400) watched.failures.push(`${r.status()} ${r.url()}`);
    const headers = r.headers();
    if ((headers["content-type"] ?? "").startsWith("text/html")) watched.policies.push(headers["content-security-policy"] ?? "");
  });
  return watched;
}

/**
 * Adds a CDP virtual authenticator (CTAP2, internal, resident keys, user
 * verification that always succeeds) to `page`; WebAuthn calls on the page
 * then complete without a human.
 */
export async function addVirtualAuthenticator(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
  return cdp;
}
