import { after, before, describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startServer, type ServerOptions, type TestServer } from "./server.ts";

// The slice of playwright-core used here. Its own .d.ts needs the DOM lib,
// which this project's tsconfig leaves out, so it is loaded untyped.
interface Page {
  goto(url: string): Promise<unknown>;
  waitForFunction(expression: string): Promise<unknown>;
  waitForURL(url: RegExp): Promise<void>;
  evaluate(expression: string): Promise<unknown>;
  on(event: "request", listener: (request: { url(): string }) => void): void;
  close(): Promise<void>;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface Chromium {
  launch(options: { executablePath: string; args: string[] }): Promise<Browser>;
}

async function loadChromium(): Promise<Chromium> {
  const specifier = "playwright-core";
  const mod: unknown = await import(specifier);
  if (typeof mod !== "object" || mod === null || !("chromium" in mod)) throw new Error("playwright-core: no chromium export");
  return mod.chromium as Chromium;
}

// A real browser runs lib/client/jobs.js against the real handlers.
const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);

interface Live {
  srv: TestServer;
  page: Page;
  report: (text: string) => void;
  finish: () => void;
  requests: string[];
}

describe("lib/client/jobs.js", { skip: available ? false : `no browser at ${CHROMIUM}` }, () => {
  let browser: Browser;
  before(async () => {
    browser = await (await loadChromium()).launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  });
  after(async () => {
    await browser.close();
  });

  async function open(t: TestContext, options: ServerOptions): Promise<Live> {
    const srv = await startServer(t, { Owner: () => "alice", PollSeconds: 0.2 }, options);
    const live: Live = { srv, page: await browser.newPage(), report: () => {}, finish: () => {}, requests: [] };
    t.after(() => live.page.close());
    live.page.on("request", (r) => live.requests.push(new URL(r.url()).pathname));
    const job = srv.jobs.Start(
      "alice",
      "report",
      (_s, progress) => {
        live.report = progress;
        return new Promise<void>((resolve) => (live.finish = resolve));
      },
      { Location: "/landing" },
    );
    await live.page.goto(`${srv.base}/jobs/${job.ID}`);
    return live;
  }

  async function followsToTheEnd(live: Live): Promise<void> {
    await live.page.waitForFunction(`document.querySelector("[data-poll]") !== null`);
    live.report("2/4 rows");
    await live.page.waitForFunction(`document.querySelector(".job-progress")?.textContent === "2/4 rows"`);
    assert.equal(await live.page.evaluate(`document.querySelector("progress")?.getAttribute("value")`), "50");
    live.finish();
    await live.page.waitForURL(/\/landing$/);
  }

  it("polls the fragment and follows Framework-Location without push", async (t) => {
    const live = await open(t, { push: false });
    await followsToTheEnd(live);
    assert.ok(live.requests.some((p) => p.endsWith("/fragment")));
    assert.ok(!live.requests.some((p) => p.endsWith("/events")));
  });

  it("follows the event stream and its done location", async (t) => {
    const live = await open(t, {});
    await followsToTheEnd(live);
    assert.ok(
      live.requests.some((p) => p.endsWith("/events")),
      "the stream was used",
    );
  });

  it("falls back to polling for good when the stream fails", async (t) => {
    const live = await open(t, { breakEvents: true });
    await followsToTheEnd(live);
    assert.equal(live.requests.filter((p) => p.endsWith("/events")).length, 1, "no second stream attempt");
    assert.ok(
      live.requests.some((p) => p.endsWith("/fragment")),
      "polling took over",
    );
  });
});
