import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, test } from "node:test";
import { newLogger } from "../../lib/http/index.ts";
import { newLogMailer } from "../../lib/mail/index.ts";
import { captureLog } from "../_support/http.ts";

describe("NewLogger()", () => {
  test("writes one JSON line with time, level, msg and attributes", () => {
    const log = captureLog();
    log.logger.with({ component: "t" }).warn("disk low", { free: 3 });
    const [line] = log.lines();
    assert.equal(line?.["level"], "warn");
    assert.equal(line?.["msg"], "disk low");
    assert.equal(line?.["component"], "t");
    assert.equal(line?.["free"], 3);
    assert.ok(!Number.isNaN(Date.parse(String(line?.["time"]))));
  });

  test("keeps an error's name, message, code and stack", () => {
    const log = captureLog();
    const err = Object.assign(new Error("nope"), { code: "ERR_X" });
    log.logger.error("failed", { error: err });
    const error = log.lines()[0]?.["error"];
    assert.ok(typeof error === "object" && error !== null);
    assert.equal("message" in error && error.message, "nope");
    assert.equal("code" in error && error.code, "ERR_X");
    assert.ok("stack" in error && typeof error.stack === "string");
  });

  test("never throws on an attribute that does not serialize, and keeps the others", () => {
    const log = captureLog();
    const circular: Record<string, unknown> = {};
    circular["self"] = circular;
    assert.doesNotThrow(() => log.logger.error("panic", { ref: "abcdef", error: circular, n: 10n }));
    const [line] = log.lines();
    assert.equal(line?.["ref"], "abcdef");
    assert.equal(line?.["error"], "[unserializable]");
    assert.equal(line?.["n"], "10");
  });

  test("drops lines below the level", () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(String(chunk));
        callback();
      },
    });
    const logger = newLogger({ stream, level: "warn" });
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    assert.deepEqual(
      written.map((l) => {
        const parsed: unknown = JSON.parse(l);
        return typeof parsed === "object" && parsed !== null && "msg" in parsed ? parsed.msg : undefined;
      }),
      ["w", "e"],
    );
  });
});

/** A stream collecting what is written; `isTTY` as a terminal's stderr has it. */
function sink(isTTY: boolean): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  return { stream: Object.assign(stream, { isTTY }), text: () => text };
}

describe("newLogger() at a terminal", () => {
  test("writes one readable line per record when the stream is a TTY: time, level, message, key=value", () => {
    const out = sink(true);
    newLogger({ stream: out.stream }).info("listening", { url: "http://localhost:8080", note: "two words", to: ["a@example.com"], n: 3 });
    assert.match(out.text(), /^\d\d:\d\d:\d\d INFO  listening url=http:\/\/localhost:8080 note="two words" to=\["a@example.com"\] n=3\n$/);
  });

  test("puts a multi-line value (the development mailer's email) on its own indented lines, so the link stands alone", async () => {
    const out = sink(true);
    const mailer = newLogMailer(newLogger({ stream: out.stream }));
    const link = "http://localhost:8080/auth/verify?token=abc";
    await mailer.Send({ From: "no-reply@example.com", To: ["a@example.com"], Subject: "Sign in", Text: `Open this link:\n${link}\n` });
    assert.ok(out.text().split("\n").includes(`    ${link}`), out.text());
  });

  test("writes JSON on a TTY when asked (format: json), and text to a pipe when asked (format: text)", () => {
    const tty = sink(true);
    newLogger({ stream: tty.stream, format: "json" }).info("x", { a: 1 });
    assert.equal(JSON.parse(tty.text())["a"], 1);
    const pipe = sink(false);
    newLogger({ stream: pipe.stream, format: "text" }).warn("y");
    assert.match(pipe.text(), /^\d\d:\d\d:\d\d WARN  y\n$/);
  });

  test("writes JSON when the stream is not a TTY", () => {
    const pipe = sink(false);
    newLogger({ stream: pipe.stream }).info("x");
    assert.equal(JSON.parse(pipe.text())["msg"], "x");
  });
});
