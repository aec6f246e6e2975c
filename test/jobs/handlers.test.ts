import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { discardLogger } from "../../lib/http/index.ts";
import * as jobsModule from "../../lib/jobs/index.ts";
import { newHandlers, Registry, type Config } from "../../lib/jobs/index.ts";
import { settle } from "./support.ts";
import { fetchAs, openStream, startServer } from "./server.ts";

const never = (): Promise<void> => new Promise(() => {});

describe("newHandlers()", () => {
  const jobs = new Registry(discardLogger);
  const render = (): void => {};
  const complete: Config = { Jobs: jobs, Render: render, RenderFragment: render };
  for (const field of ["Jobs", "Render", "RenderFragment"] as const) {
    it(`refuses a config without ${field}`, () => {
      const config: Partial<Config> = { ...complete };
      delete config[field];
      // @ts-expect-error: the field is required
      assert.throws(() => newHandlers(config), { code: "ERR_JOBS_INVALID_CONFIG", message: new RegExp(`${field} is required`) });
    });
  }

  it("refuses a NotFound that is not a function", () => {
    // @ts-expect-error: NotFound is a handler
    assert.throws(() => newHandlers({ ...complete, NotFound: "404.html" }), {
      code: "ERR_JOBS_INVALID_CONFIG",
      message: /NotFound must be a function/,
    });
  });

  it("accepts the three required fields", () => {
    const h = newHandlers(complete);
    assert.deepEqual(Object.keys(h).sort(), ["Events", "Fragment", "StatusPage"]);
  });
});

describe("latch/jobs exports", () => {
  it("are the contract's names, its three job limits, the default markup and the error-code table, nothing else", () => {
    assert.deepEqual(
      Object.keys(jobsModule).sort(),
      [
        "ErrOwnerBusy",
        "HEARTBEAT_INTERVAL",
        // JobsErrorCode, which public signatures name, is a key of this table (issue 42).
        "JOBS_ERROR_CODES",
        "MAX_RUNNING_PER_OWNER",
        "MAX_RUNTIME",
        "metaRefresh",
        "newHandlers",
        "Registry",
        "renderFragmentHTML",
        "renderStatusHTML",
        "Status",
        "isOwnerBusy",
      ].sort(),
    );
  });
});

describe("newHandlers() routes", () => {
  it("answer refusals as short plain text that is never cached", async (t) => {
    const srv = await startServer(t);
    const job = srv.jobs.Start("alice", "n", never);
    for (const suffix of ["", "/fragment", "/events"]) {
      for (const [owner, status, body] of [
        ["mallory", 404, "Job not found.\n"],
        [undefined, 401, "Sign in required.\n"],
      ] as const) {
        const got = await fetchAs(`${srv.base}/jobs/${job.ID}${suffix}`, owner);
        assert.deepEqual(
          [got.status, got.body, got.headers["content-type"], got.headers["cache-control"], got.headers["content-length"]],
          [status, body, "text/plain; charset=utf-8", "no-store", String(Buffer.byteLength(body))],
          `${suffix} ${status}`,
        );
      }
    }
  });

  it("answer 404 to another owner and to an unknown id, 401 without an owner", async (t) => {
    const srv = await startServer(t);
    const job = srv.jobs.Start("alice", "n", never);
    for (const suffix of ["", "/fragment", "/events"]) {
      const wrong = await fetchAs(`${srv.base}/jobs/${job.ID}${suffix}`, "mallory");
      const unknown = await fetchAs(`${srv.base}/jobs/AAAAAAAAAAAAAAAAAAAAAA${suffix}`, "alice");
      assert.equal(wrong.status, 404, suffix);
      assert.deepEqual([unknown.status, unknown.body], [wrong.status, wrong.body], "indistinguishable");
      assert.equal((await fetchAs(`${srv.base}/jobs/${job.ID}${suffix}`, undefined)).status, 401);
    }
  });

  it("answer an unknown or another owner's job with NotFound when set, still 404 and never cached; the fragment and the stream keep plain text", async (t) => {
    const page = '<!doctype html><title>Not found</title><main data-status="404">Not found</main>';
    const srv = await startServer(t, {
      NotFound: (_req, res) => {
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.end(page);
      },
    });
    const job = srv.jobs.Start("alice", "n", never);
    for (const [id, owner] of [
      [job.ID, "mallory"],
      ["AAAAAAAAAAAAAAAAAAAAAA", "alice"],
    ] as const) {
      const got = await fetchAs(`${srv.base}/jobs/${id}`, owner);
      assert.deepEqual(
        [got.status, got.body, got.headers["content-type"], got.headers["cache-control"]],
        [404, page, "text/html; charset=utf-8", "no-store"],
        `${id} as ${owner}`,
      );
      for (const suffix of ["/fragment", "/events"]) {
        const plain = await fetchAs(`${srv.base}/jobs/${id}${suffix}`, owner);
        assert.deepEqual([plain.status, plain.body], [404, "Job not found.\n"], suffix);
      }
    }
    // Without an owner it is still the plain 401: NotFound answers only what is not found.
    assert.deepEqual(
      [(await fetchAs(`${srv.base}/jobs/${job.ID}`, undefined)).status, (await fetchAs(`${srv.base}/jobs/${job.ID}`, undefined)).body],
      [401, "Sign in required.\n"],
    );
    // The owner still sees the page.
    assert.equal((await fetchAs(`${srv.base}/jobs/${job.ID}`, "alice")).status, 200);
  });

  it("take the owner from the request's session when Owner is unset (SPEC.md §5.8)", async (t) => {
    const srv = await startServer(t, {}, { session: true });
    const job = srv.jobs.Start("alice@example.com", "n", never);
    for (const suffix of ["", "/fragment"]) {
      const url = `${srv.base}/jobs/${job.ID}${suffix}`;
      assert.equal((await fetchAs(url, "alice@example.com")).status, 200, `owner ${suffix}`);
      assert.equal((await fetchAs(url, "mallory@example.com")).status, 404, `other subject ${suffix}`);
      assert.equal((await fetchAs(url, undefined)).status, 401, `no session ${suffix}`);
    }
    const stream = await openStream(`${srv.base}/jobs/${job.ID}/events`, "alice@example.com");
    await stream.until((p) => p.events.length === 1);
    assert.equal(stream.parser.events[0]?.type, "update", "the owner's stream opened");
    stream.res.destroy();
  });

  it("render the page with poll attributes and a meta refresh only while running", async (t) => {
    const srv = await startServer(t, { PollSeconds: 3 });
    let finish: () => void = () => {};
    const job = srv.jobs.Start("alice", "report", (_s, progress) => {
      progress("3/4 <b>");
      return new Promise<void>((resolve) => (finish = resolve));
    });
    const running = await fetchAs(`${srv.base}/jobs/${job.ID}`, "alice");
    assert.equal(running.status, 200);
    assert.equal(running.headers["cache-control"], "no-store");
    assert.ok(running.body.includes(`data-poll="/jobs/${job.ID}/fragment"`));
    assert.ok(running.body.includes(`data-poll-every="3"`));
    assert.ok(running.body.includes(`data-poll-push="/jobs/${job.ID}/events"`));
    assert.ok(running.body.includes(`<noscript><meta http-equiv="refresh" content="3"></noscript>`));
    assert.ok(running.body.includes(`<progress max="100" value="75" aria-label="Running report">`));
    assert.ok(running.body.includes("3/4 &lt;b&gt;"), "progress text is escaped");
    finish();
    await settle();
    const done = await fetchAs(`${srv.base}/jobs/${job.ID}`, "alice");
    assert.equal(done.status, 200, "done without Location stays on the status page");
    assert.ok(!done.body.includes("http-equiv"), "no meta refresh once finished");
    assert.ok(!done.body.includes("data-poll"), "nothing polls a final page");
  });

  it("answer 303 to Location from the page and 204 with Framework-Location from the fragment once done", async (t) => {
    const srv = await startServer(t);
    const job = srv.jobs.Start("alice", "n", async () => {}, { Location: "/reports/7" });
    await settle();
    const page = await fetchAs(`${srv.base}/jobs/${job.ID}`, "alice");
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, "/reports/7");
    const fragment = await fetchAs(`${srv.base}/jobs/${job.ID}/fragment`, "alice");
    assert.equal(fragment.status, 204);
    assert.equal(fragment.headers["framework-location"], "/reports/7");
  });

  it("send the fragment while running and the status page as destination once failed", async (t) => {
    const srv = await startServer(t);
    let fail: (e: Error) => void = () => {};
    const job = srv.jobs.Start("alice", "n", () => new Promise<void>((_ok, no) => (fail = no)), { Location: "/never" });
    const running = await fetchAs(`${srv.base}/jobs/${job.ID}/fragment`, "alice");
    assert.equal(running.status, 200);
    assert.ok(running.body.startsWith(`<p class="job-status" data-status="running">`), "fragment alone, no layout");
    fail(new Error("the <export> broke"));
    await settle();
    const fragment = await fetchAs(`${srv.base}/jobs/${job.ID}/fragment`, "alice");
    assert.equal(fragment.status, 204);
    assert.equal(fragment.headers["framework-location"], `/jobs/${job.ID}`);
    const page = await fetchAs(`${srv.base}/jobs/${job.ID}`, "alice");
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`<p class="job-error" role="alert">the &lt;export&gt; broke</p>`));
  });

  it("take the id from Config.ID when set", async (t) => {
    let id = "";
    const srv = await startServer(t, { ID: () => id });
    const job = srv.jobs.Start("alice", "n", never);
    id = job.ID;
    assert.equal((await fetchAs(`${srv.base}/jobs/ignored`, "alice")).status, 200);
  });
});
