import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { newSMTPMailer } from "../../lib/mail/index.ts";
import type { Message } from "../../lib/mail/index.ts";
import { resolveSMTPOptions } from "../../lib/mail/smtp-options.ts";
import { startSMTPServer } from "../_support/smtp-server.ts";
import { makeTestCert } from "../_support/tls-cert.ts";

const insecureTLS = { rejectUnauthorized: false };
const msg: Message = {
  From: "App <app@example.com>",
  To: "ada@example.com",
  Subject: "Sign in",
  Text: "Open https://app.example/auth/verify?t=abc",
};

describe("NewSMTPMailer()", () => {
  it("delivers over plaintext to a loopback server, with the configured EHLO name", async (t) => {
    const srv = await startSMTPServer();
    t.after(() => srv.close());
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { helo: "client.test" }).Send({
      ...msg,
      To: ["ada@example.com", "Bob <bob@example.org>"],
    });
    const got = await srv.waitForMessage();
    assert.equal(got.from, "app@example.com");
    assert.deepEqual(got.to, ["ada@example.com", "bob@example.org"]);
    assert.equal(got.helo, "client.test");
    assert.equal(got.secure, false);
    assert.equal(got.parsed.subject, "Sign in");
    assert.equal(got.parsed.text, msg.Text);
    assert.match(got.parsed.headers.get("message-id") ?? "", /^<[0-9a-f]{32}@example\.com>$/);
    assert.match(got.parsed.headers.get("date") ?? "", /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} \+0000$/);
  });

  const authRows = [
    { name: "AUTH PLAIN", methods: ["PLAIN"], prefer: undefined, want: "PLAIN" },
    { name: "AUTH LOGIN", methods: ["LOGIN"], prefer: undefined, want: "LOGIN" },
    { name: "PLAIN first when both are offered", methods: ["LOGIN", "PLAIN"], prefer: undefined, want: "PLAIN" },
    { name: "the preferred LOGIN when both are offered", methods: ["PLAIN", "LOGIN"], prefer: "LOGIN", want: "LOGIN" },
  ] as const;
  for (const row of authRows) {
    it(`upgrades with STARTTLS and authenticates with ${row.name}`, async (t) => {
      const srv = await startSMTPServer({
        starttls: true,
        auth: { user: "app@example.com", pass: "p@ss:w0rd/é", methods: [...row.methods] },
      });
      t.after(() => srv.close());
      const url = `smtp://app%40example.com:${encodeURIComponent("p@ss:w0rd/é")}@127.0.0.1:${srv.port}`;
      await newSMTPMailer(url, { tls: insecureTLS, ...(row.prefer === undefined ? {} : { authMethod: row.prefer }) }).Send(msg);
      const got = await srv.waitForMessage();
      assert.equal(got.secure, true);
      assert.equal(got.user, "app@example.com");
      assert.equal(got.authMethod, row.want);
    });
  }

  it("delivers over implicit TLS (smtps)", async (t) => {
    const srv = await startSMTPServer({ secure: true, auth: { user: "u", pass: "p" } });
    t.after(() => srv.close());
    await newSMTPMailer(`smtps://u:p@127.0.0.1:${srv.port}`, { tls: insecureTLS }).Send(msg);
    const got = await srv.waitForMessage();
    assert.equal(got.secure, true);
    assert.equal(got.user, "u");
  });

  it("keeps dot-led lines and a 2000-char line intact across DATA", async (t) => {
    const srv = await startSMTPServer();
    t.after(() => srv.close());
    const text = ".leading dot\r\n..two dots\r\n.\r\n" + "w".repeat(2000) + "\r\nend.";
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`).Send({ ...msg, Text: text });
    const got = await srv.waitForMessage();
    assert.equal(got.parsed.text, text);
    // The dot-led lines really were on the wire (stuffed, then unstuffed by the server).
    assert.ok(got.raw.includes("\r\n.leading dot\r\n..two dots\r\n.\r\n"));
    for (const line of got.raw.split("\r\n")) assert.ok(line.length <= 998);
  });

  it("carries a non-ASCII subject and an HTML alternative intact", async (t) => {
    const srv = await startSMTPServer();
    t.after(() => srv.close());
    const subject = "Привет, 世界 ✓";
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`).Send({
      ...msg,
      Subject: subject,
      Text: "Привет",
      HTML: "<p>Привет, <b>世界</b></p>",
    });
    const got = await srv.waitForMessage();
    assert.equal(got.parsed.subject, subject);
    assert.equal(got.parsed.text, "Привет");
    assert.equal(got.parsed.html, "<p>Привет, <b>世界</b></p>");
  });

  it("reads multi-line replies split across TCP packets", async (t) => {
    const received: string[] = [];
    const server = createServer((s) => {
      let buf = "";
      let inData = false;
      s.write("220-first greeting line\r\n220 ready\r\n");
      s.on("data", (chunk: Buffer) => {
        buf += chunk.toString("utf8");
        let i: number;
        while ((i = buf.indexOf("\r\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 2);
          received.push(line);
          if (inData) {
            if (line === ".") ((inData = false), s.write("250 queued\r\n"));
          } else if (line.startsWith("EHLO")) {
            // Replies cut mid-line, one piece per write.
            for (const piece of ["250-scripted.example gr", "eets you\r\n250-SIZE 1000", "0\r\n250-8BITMIME\r", "\n250 HELP\r\n"])
              s.write(piece);
          } else if (line === "DATA") ((inData = true), s.write("354 go\r\n"));
          else if (line === "QUIT") s.end("221 bye\r\n");
          else s.write("250-ok\r\n250 fine\r\n");
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const address = server.address();
    assert.ok(address !== null && typeof address !== "string");
    await newSMTPMailer(`smtp://127.0.0.1:${address.port}`, { helo: "[127.0.0.1]" }).Send(msg);
    assert.equal(received[0], "EHLO [127.0.0.1]");
    assert.equal(received[1], "MAIL FROM:<app@example.com>");
    assert.equal(received[2], "RCPT TO:<ada@example.com>");
    assert.equal(received[3], "DATA");
  });
});

describe("NewSMTPMailer() trusting a server's own certificate, verification on", () => {
  it("refuses it by default, naming the settings that trust it", async (t) => {
    const cert = makeTestCert(t);
    const srv = await startSMTPServer({ starttls: true, tls: cert });
    t.after(() => srv.close());
    await assert.rejects(newSMTPMailer(`smtp://localhost:${srv.port}`).Send(msg), (err: unknown) => {
      assert.ok(err instanceof Error && "code" in err);
      assert.equal(err.code, "ERR_MAIL_CONNECT");
      assert.match(
        err.message,
        /^mail: TLS handshake with localhost failed: the server's certificate is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); trust it with the option caFile \(its CA's PEM file\) or certSHA256 \(its SHA-256 fingerprint\)/,
      );
      return true;
    });
    assert.equal(srv.messages.length, 0);
  });

  it("accepts it with its CA file (caFile)", async (t) => {
    const cert = makeTestCert(t);
    const srv = await startSMTPServer({ starttls: true, tls: cert });
    t.after(() => srv.close());
    await newSMTPMailer(`smtp://localhost:${srv.port}`, { caFile: cert.certFile }).Send(msg);
    assert.equal((await srv.waitForMessage()).secure, true);
  });

  // RFC 6125 §6.2.1, RFC 5280 §4.2.1.6: a server reached by its IP address is checked against the certificate's IP addresses.
  it("checks a server reached by IP address against the certificate's IP addresses after STARTTLS", async (t) => {
    const byAddress = makeTestCert(t, "mail.test", "DNS:mail.test,IP:127.0.0.1");
    const srv = await startSMTPServer({ starttls: true, tls: byAddress });
    t.after(() => srv.close());
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { caFile: byAddress.certFile }).Send(msg);
    assert.equal((await srv.waitForMessage()).secure, true);

    const byName = makeTestCert(t, "localhost", "DNS:localhost");
    const named = await startSMTPServer({ starttls: true, tls: byName });
    t.after(() => named.close());
    await assert.rejects(newSMTPMailer(`smtp://127.0.0.1:${named.port}`, { caFile: byName.certFile }).Send(msg), {
      code: "ERR_MAIL_CONNECT",
      message: /^mail: TLS handshake with 127\.0\.0\.1 failed: the server's certificate is not trusted \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
    });
    assert.equal(named.messages.length, 0);
  });

  it("accepts it pinned by its SHA-256 fingerprint (certSHA256), with or without colons, any case", async (t) => {
    const cert = makeTestCert(t);
    const srv = await startSMTPServer({ starttls: true, tls: cert });
    t.after(() => srv.close());
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { certSHA256: cert.sha256 }).Send(msg);
    await newSMTPMailer(`smtp://127.0.0.1:${srv.port}`, { certSHA256: cert.sha256.replaceAll(":", "").toLowerCase() }).Send(msg);
    assert.equal((await srv.waitForMessage()).secure, true);
  });

  it("refuses a certificate whose fingerprint is not the pinned one, before any credential is sent", async (t) => {
    const cert = makeTestCert(t);
    const other = makeTestCert(t);
    const srv = await startSMTPServer({ starttls: true, tls: cert, auth: { user: "u", pass: "p" } });
    t.after(() => srv.close());
    await assert.rejects(newSMTPMailer(`smtp://u:p@127.0.0.1:${srv.port}`, { certSHA256: other.sha256 }).Send(msg), (err: unknown) => {
      assert.ok(err instanceof Error && "code" in err);
      assert.equal(err.code, "ERR_MAIL_CONNECT");
      assert.match(
        err.message,
        /^mail: TLS handshake with 127\.0\.0\.1 failed: the server's certificate is not the one pinned by certSHA256/,
      );
      return true;
    });
    assert.equal(srv.messages.length, 0);
  });

  it("refuses a caFile it cannot read and a certSHA256 that is not 32 bytes of hex, at construction", () => {
    assert.throws(() => newSMTPMailer("smtp://localhost", { caFile: "/nonexistent/ca.pem" }), {
      code: "ERR_MAIL_INVALID_OPTIONS",
      message: "mail: invalid SMTP options: caFile /nonexistent/ca.pem cannot be read (ENOENT)",
    });
    assert.throws(() => newSMTPMailer("smtp://localhost", { certSHA256: "AB:CD" }), {
      code: "ERR_MAIL_INVALID_OPTIONS",
      message:
        "mail: invalid SMTP options: certSHA256 must be 64 hex digits (colons allowed), as `openssl x509 -noout -fingerprint -sha256` prints",
    });
  });
});

describe("resolveSMTPOptions() helo", () => {
  it("sends an IP address (an origin's host may be one) as an address literal (RFC 5321 §4.1.3)", () => {
    const rows = [
      ["127.0.0.1", "[127.0.0.1]"],
      ["[127.0.0.1]", "[127.0.0.1]"],
      ["[::1]", "[IPv6:::1]"],
      ["app.example.com", "app.example.com"],
    ] as const;
    for (const [given, sent] of rows) assert.equal(resolveSMTPOptions({ helo: given }).helo, sent, given);
  });
});
