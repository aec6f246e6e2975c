import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { newLogger } from "../../lib/http/index.ts";
import { LOG_MAILER_WARNING } from "../../lib/mail/log-mailer.ts";
import { newLogMailer } from "../../lib/mail/index.ts";

function capture(): { lines: () => Array<Record<string, unknown>>; stream: Writable } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  return {
    stream,
    lines: () =>
      text
        .split("\n")
        .filter((l) => l !== "")
        .map((l): Record<string, unknown> => JSON.parse(l)),
  };
}

describe("NewLogMailer()", () => {
  it("writes one warn line per send carrying To, Subject and the link", async () => {
    const out = capture();
    const mailer = newLogMailer(newLogger({ stream: out.stream, level: "debug" }));
    const link = "https://app.example/auth/verify?t=AbC123";
    await mailer.Send({ From: "app@example.com", To: "Ada <ada@example.com>", Subject: "Sign in", Text: `Open ${link}` });
    await mailer.Send({ From: "app@example.com", To: ["b@example.com"], Subject: "Again", Text: `Open ${link}2` });
    const lines = out.lines();
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.equal(line["level"], "warn");
      assert.equal(line["msg"], LOG_MAILER_WARNING);
      assert.match(String(line["msg"]), /not delivered/i);
    }
    assert.deepEqual(lines[0]?.["to"], ["ada@example.com"]);
    assert.equal(lines[0]?.["subject"], "Sign in");
    assert.equal(lines[0]?.["text"], `Open ${link}`);
    assert.equal(lines[1]?.["text"], `Open ${link}2`);
  });

  it("refuses what the SMTP mailer refuses, and logs nothing then", async () => {
    const out = capture();
    const mailer = newLogMailer(newLogger({ stream: out.stream }));
    await assert.rejects(mailer.Send({ From: "app@example.com", To: "a@example.com", Subject: "x\r\nBcc: e@evil.example", Text: "t" }), {
      code: "ERR_MAIL_HEADER_INJECTION",
    });
    await assert.rejects(mailer.Send({ From: "app@example.com", To: "a@example.com", Subject: "x", Text: "t" }, AbortSignal.abort()), {
      code: "ERR_MAIL_ABORTED",
    });
    assert.equal(out.lines().length, 0);
  });
});
