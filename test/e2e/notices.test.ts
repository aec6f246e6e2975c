/*
 * The demo sends security notices by default (lib/signin "Security
 * notices"): over its real SMTP server, a person who gives an agent token
 * write access gets one notice, and none for a read-only token, with no
 * token or sign-in link in it. The starter's application (the guide's)
 * sends them too.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { isSigninMail, mintAgentToken, signInOverHTTP, startDemo, startGuide, type Demo } from "../_support/demo.ts";
import { sendRequest } from "../_support/http-client.ts";

const ADA = "ada@example.com";

describe("security notices in the demo", () => {
  let demo: Demo;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.close();
  });

  it("mails one notice when an agent token gets write access, none for read access", async () => {
    const jar = await signInOverHTTP(demo, ADA);
    await mintAgentToken(demo, jar, "reader", "read");
    const token = await mintAgentToken(demo, jar, "writer", "write");
    const notice = await demo.smtp.waitForMessage((m) => m.to.includes(ADA) && !isSigninMail(m));
    assert.equal(notice.parsed.subject, "An agent can now change your data");
    assert.match(notice.parsed.text ?? "", /“writer”/);
    assert.ok(!notice.raw.includes(token), "the notice holds the token");
    for (const value of jar.cookies.values()) assert.ok(!notice.raw.includes(value), "the notice holds a cookie");
    // Sign in again from the same client: a known device, so no notice; then everything queued has gone out.
    await signInOverHTTP(demo, ADA);
    assert.deepEqual(
      demo.smtp.messages.filter((m) => m.to.includes(ADA) && !isSigninMail(m)).map((m) => m.parsed.subject),
      ["An agent can now change your data"],
    );
  });
});

describe("security notices in the starter's application (examples/guide)", () => {
  let guide: Demo;
  before(async () => {
    guide = await startGuide();
  });
  after(async () => {
    await guide?.close();
  });

  it("mails one notice when recovery codes are regenerated, with none of the codes in it", async () => {
    const jar = await signInOverHTTP(guide, ADA);
    const made = await sendRequest(guide.origin, "POST", "/account/recovery-codes", { jar, form: {} }, guide.origin);
    assert.equal(made.status, 200);
    const codes = [...made.body.matchAll(/<code[^>]*>([^<]+)<\/code>/g)].map((m) => m[1] ?? "");
    assert.ok(codes.length > 0, "the page shows the new codes");
    const notice = await guide.smtp.waitForMessage((m) => m.to.includes(ADA) && !isSigninMail(m));
    assert.equal(notice.parsed.subject, "New recovery codes");
    assert.match(notice.parsed.text ?? "", new RegExp(`${guide.origin}/account`));
    for (const code of codes) assert.ok(!notice.raw.includes(code), "the notice holds a recovery code");
  });
});
