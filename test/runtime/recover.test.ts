import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, test } from "node:test";
import { ErrAbortHandler, HTTPError, type HandlerFunc } from "../../lib/http/index.ts";
import { ErrOwnerBusy } from "../../lib/jobs/index.ts";
import { PLAIN_500 } from "../../lib/runtime/recover.ts";
import { fetchHTTP, startHandler, type LogLine } from "../_support/http.ts";

const REF = /^[a-z2-7]{6}$/;

function refInBody(body: string): string {
  const m = /Reference: (\S+)/.exec(body);
  assert.ok(m?.[1] !== undefined, `no reference in ${JSON.stringify(body)}`);
  return m[1];
}

const errorsOf = (lines: LogLine[]): LogLine[] => lines.filter((l) => l["level"] === "error");

describe("recoverPanics() with a JavaScript handler that returns a value", () => {
  for (const value of [42, { then: 1 }, "done", null]) {
    test(`serves the response and stays up when the handler returns ${JSON.stringify(value)}`, async (t) => {
      const handler = ((_req: IncomingMessage, res: ServerResponse) => {
        res.end("served");
        return value;
      }) as unknown as HandlerFunc;
      const { port } = await startHandler(t, { Mux: handler });
      assert.equal((await fetchHTTP(port, "/")).body, "served");
      assert.equal((await fetchHTTP(port, "/")).status, 200);
    });
  }
});

describe("recoverPanics()", () => {
  const panics: { name: string; mux: HandlerFunc }[] = [
    {
      name: "a synchronous throw",
      mux: () => {
        throw new Error("boom: internal detail");
      },
    },
    {
      name: "a rejected promise",
      mux: async () => {
        await Promise.resolve();
        throw new Error("boom: internal detail");
      },
    },
  ];
  for (const { name, mux } of panics) {
    test(`answers ${name} with a 500, a reference and a log line carrying it`, async (t) => {
      const { port, log } = await startHandler(t, { Mux: mux });
      const reply = await fetchHTTP(port, "/x?q=1");
      assert.equal(reply.status, 500);
      assert.ok(reply.body.startsWith(`${PLAIN_500}\n`), reply.body);
      assert.ok(reply.body.startsWith("Something went wrong."));
      assert.ok(!reply.body.includes("internal detail"), "error text leaked to the client");
      const ref = refInBody(reply.body);
      assert.match(ref, REF);
      const errors = errorsOf(log.lines());
      assert.equal(errors.length, 1);
      assert.equal(errors[0]?.["ref"], ref);
      assert.equal(errors[0]?.["path"], "/x");
      assert.equal(errors[0]?.["method"], "GET");
      assert.match(JSON.stringify(errors[0]?.["error"]), /internal detail/);
    });
  }

  test("renders the 500 through ErrorPage with status 500 and the logged reference", async (t) => {
    const calls: { status: number; ref: string }[] = [];
    const { port, log } = await startHandler(t, {
      Mux: () => {
        throw new Error("boom");
      },
      ErrorPage: (_req, res, status, ref) => {
        calls.push({ status, ref });
        res.statusCode = status;
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.end(`<h1>Oops</h1><p>${ref}</p>`);
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.status, 500);
    assert.match(calls[0]?.ref ?? "", REF);
    assert.equal(reply.body, `<h1>Oops</h1><p>${calls[0]?.ref}</p>`);
    assert.equal(errorsOf(log.lines())[0]?.["ref"], calls[0]?.ref);
  });

  test("falls back to the plain text when ErrorPage itself throws", async (t) => {
    const { port } = await startHandler(t, {
      Mux: () => {
        throw new Error("boom");
      },
      ErrorPage: () => {
        throw new Error("page broken");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    assert.ok(reply.body.startsWith("Something went wrong."));
  });

  test("drops cookies and content headers the handler set before panicking", async (t) => {
    const { port } = await startHandler(t, {
      Mux: (_req, res) => {
        res.setHeader("Set-Cookie", "sid=secret");
        res.setHeader("Content-Encoding", "gzip");
        throw new Error("boom");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    assert.equal(reply.headers["set-cookie"], undefined);
    assert.equal(reply.headers["content-encoding"], undefined);
    assert.equal(reply.headers["content-type"], "text/plain; charset=utf-8");
  });

  test("cuts a response that already started and logs it", async (t) => {
    const { port, log } = await startHandler(t, {
      Mux: async (_req, res) => {
        res.writeHead(200, { "Content-Type": "text/plain" });
        res.write("partial page");
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error("boom mid-stream");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.ok(reply.error !== undefined || !reply.complete, "client saw a complete response");
    if (reply.status !== undefined) assert.equal(reply.status, 200);
    assert.ok(!reply.body.includes(PLAIN_500), "a 500 page was spliced into the response");
    const errors = errorsOf(log.lines());
    assert.equal(errors.length, 1);
    assert.match(String(errors[0]?.["msg"]), /response cut/);
    assert.match(String(errors[0]?.["ref"]), REF);
  });

  test("aborts quietly on ErrAbortHandler", async (t) => {
    const { port, log } = await startHandler(t, {
      Mux: async () => {
        await Promise.resolve();
        throw ErrAbortHandler;
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, undefined);
    assert.ok(reply.error !== undefined, "expected the connection to be cut");
    assert.deepEqual(errorsOf(log.lines()), []);
  });

  test("answers a thrown 4xx latch error without ErrorPage with its message and a reference, logged once at info", async (t) => {
    const { port, log } = await startHandler(t, {
      Mux: () => {
        throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "read thing: not a thing", { status: 422 });
      },
    });
    const reply = await fetchHTTP(port, "/things?token=secret-in-query");
    assert.equal(reply.status, 422);
    assert.equal(reply.headers["content-type"], "text/plain; charset=utf-8");
    const ref = refInBody(reply.body);
    assert.match(ref, REF);
    // The bytes on the wire: latch's reason (SPEC §2.2) and the reference the log line carries.
    assert.equal(reply.body, `read thing: not a thing\nReference: ${ref}\n`);
    // One log line carrying the reference, latch's code and message, the path without its query; not an error.
    const logged = log.lines().filter((l) => l["ref"] === ref);
    assert.deepEqual(
      logged.map(({ level, msg, status, code, reason, path, method }) => ({ level, msg, status, code, reason, path, method })),
      [
        {
          level: "info",
          msg: "client error",
          status: 422,
          code: "ERR_HTTP_MALFORMED_BODY",
          reason: "read thing: not a thing",
          path: "/things",
          method: "GET",
        },
      ],
    );
    assert.ok(!JSON.stringify(log.lines()).includes("secret-in-query"), "the query reached the log");
    assert.deepEqual(errorsOf(log.lines()), []);
  });

  test("renders a thrown 4xx latch error through ErrorPage with its status, logging the reference, not the page's words", async (t) => {
    const calls: { status: number; ref: string }[] = [];
    const { port, log } = await startHandler(t, {
      Mux: () => {
        throw new ErrOwnerBusy("ann@example.com", 4);
      },
      ErrorPage: (_req, res, status, ref) => {
        calls.push({ status, ref });
        res.statusCode = status;
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.end(`<p>The app's own words (${ref})</p>`);
      },
    });
    const reply = await fetchHTTP(port, "/jobs?kind=ok");
    assert.equal(reply.status, 429);
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.status, 429);
    assert.match(calls[0]?.ref ?? "", REF);
    assert.equal(reply.body, `<p>The app's own words (${calls[0]?.ref})</p>`);
    assert.ok(!reply.body.includes("running jobs"), "latch's wording reached the client");
    const logged = log.lines().filter((l) => l["ref"] === calls[0]?.ref);
    assert.equal(logged.length, 1);
    assert.equal(logged[0]?.["status"], 429);
    assert.equal(logged[0]?.["code"], "ERR_JOBS_OWNER_BUSY");
    assert.equal(logged[0]?.["path"], "/jobs");
    assert.deepEqual(errorsOf(log.lines()), [], "bad input is not an error of the server");
  });

  test("answers a 4xx in plain text, its message and the reference, when ErrorPage throws", async (t) => {
    const { port } = await startHandler(t, {
      Mux: () => {
        throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "read thing: not a thing", { status: 400 });
      },
      ErrorPage: () => {
        throw new Error("page broken");
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 400);
    assert.equal(reply.body, `read thing: not a thing\nReference: ${refInBody(reply.body)}\n`);
  });

  test("drops the failed response's cookies and body headers on a 4xx, keeping the CSP", async (t) => {
    const { port } = await startHandler(t, {
      Mux: (_req, res) => {
        res.setHeader("Set-Cookie", "half=done; Path=/");
        res.setHeader("Content-Encoding", "gzip");
        throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "read thing: not a thing", { status: 400 });
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 400);
    assert.equal(reply.headers["set-cookie"], undefined);
    assert.equal(reply.headers["content-encoding"], undefined);
    assert.ok(String(reply.headers["content-security-policy"]).includes("default-src 'self'"));
  });

  test("treats a latch error with a 5xx status as a panic", async (t) => {
    const { port } = await startHandler(t, {
      Mux: () => {
        throw new HTTPError("ERR_HTTP_MALFORMED_BODY", "internal: db down", { status: 503 });
      },
    });
    const reply = await fetchHTTP(port, "/");
    assert.equal(reply.status, 500);
    assert.ok(!reply.body.includes("db down"));
  });

  test("keeps answering after panics of every kind", async (t) => {
    let n = 0;
    const circular: Record<string, unknown> = {};
    circular["self"] = circular;
    const throwers: (() => unknown)[] = [
      () => new Error("sync"),
      () => "a string",
      () => undefined,
      () => 42n,
      () => circular,
      () => ErrAbortHandler,
    ];
    const { port } = await startHandler(t, {
      Mux: (req, res) => {
        if (req.url === "/ok") {
          res.end("still here");
          return;
        }
        const make = throwers[n++ % throwers.length];
        throw make?.();
      },
    });
    for (let i = 0; i < throwers.length; i++) {
      const reply = await fetchHTTP(port, "/panic");
      if (i < throwers.length - 1) assert.equal(reply.status, 500, `thrower ${i}`);
    }
    const reply = await fetchHTTP(port, "/ok");
    assert.equal(reply.status, 200);
    assert.equal(reply.body, "still here");
  });
});
