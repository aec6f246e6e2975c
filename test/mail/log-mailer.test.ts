import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { newLogger } from "../../lib/http/index.ts";
import { LOG_MAILER_WARNING } from "../../lib/mail/log-mailer.ts";
import { newLogMailer } from "../../lib/mail/index.ts";

function capture(): { lines: () => Array<Record<string, unknown>>; bytes: () => string; stream: Writable } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString("utf8");
      done();
    },
  });
  return {
    stream,
    bytes: () => text,
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

  // docs/guide.md, step 2: the printed link can be copied whole, at a terminal and from a JSON log line alike.
  const link = "http://localhost:8080/auth/verify?token=AbC-_12";
  const mail = {
    From: "app@example.com",
    To: "ada@example.com",
    Subject: "Sign in",
    Text: `Open this link:\n\n${link}\n\nOr type the code 123456.\n`,
  };

  it("writes the links on a JSON line as a field of their own, each a JSON string with nothing escaped", async () => {
    const out = capture();
    await newLogMailer(newLogger({ stream: out.stream, format: "json" })).Send(mail);
    const bytes = out.bytes();
    assert.equal(bytes.split("\n").length, 2, "one line");
    assert.ok(bytes.includes(`"links":["${link}"]`), bytes);
    assert.ok(bytes.includes(`"text":"Open this link:\\n\\n${link}\\n\\nOr type the code 123456.\\n"`), bytes);
  });

  it("writes the link on a line of its own at a terminal", async () => {
    const out = capture();
    await newLogMailer(newLogger({ stream: out.stream, format: "text" })).Send(mail);
    const bytes = out.bytes();
    assert.ok(bytes.split("\n").includes(`    ${link}`), bytes);
  });

  it("finds every web address in the text once, without a sentence's closing punctuation or a quote", async () => {
    const out = capture();
    const Text = `See ${link}. Or (${link}2), or "${link}3" and <https://x.example/a>; again: ${link}.\nhttp://x.example\\b`;
    await newLogMailer(newLogger({ stream: out.stream })).Send({ ...mail, Text });
    assert.deepEqual(out.lines()[0]?.["links"], [link, `${link}2`, `${link}3`, "https://x.example/a", "http://x.example"]);
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
