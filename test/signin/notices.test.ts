/*
 * Security notices (lib/signin notices.ts) through the real stack and a
 * real SMTP server: each moment mails one notice to the person, in the
 * language they use, with no secret in it; a sign-in is told about only
 * from a device not seen before; a failing mailer fails nothing but the
 * notice, whose failure is logged with a reference.
 */
import { describe, it, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { Schema as agentSchema } from "../../lib/agent/schema.ts";
import { AgentTokens } from "../../lib/agent/tokens.ts";
import { EventStore, Schema as eventsSchema } from "../../lib/events/index.ts";
import { newSMTPMailer, type Mailer } from "../../lib/mail/index.ts";
import { MAX_KNOWN_DEVICES, securityNotices, type NoticesConfig, type SecurityNotices } from "../../lib/signin/notices.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { captureLog, type CapturedLog } from "../_support/http.ts";
import { startSMTPServer, type CapturedMessage, type TestSMTPServer } from "../_support/smtp-server.ts";
import { ORIGIN, enroll, pendingClient, startStack, type Client, type Stack } from "../passkey/routes-stack.ts";

const ALICE = "alice@example.com";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SAFARI =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const LOCALES = ["en", "fr", "de"];

interface World {
  stack: Stack;
  smtp: TestSMTPServer;
  notices: SecurityNotices;
  log: CapturedLog;
  events: EventStore;
  /** The notices mailed so far to `to`, once every queued one was sent. */
  inbox(to: string): Promise<CapturedMessage[]>;
}

async function startWorld(t: TestContext, options: Partial<NoticesConfig> & { mailer?: Mailer } = {}): Promise<World> {
  const smtp = await startSMTPServer();
  t.after(() => smtp.close());
  let notices: SecurityNotices | undefined;
  const stack = await startStack(t, {
    locales: LOCALES,
    schema: [...eventsSchema, ...agentSchema],
    sink: (event, req) => notices?.Sink(event, req),
  });
  const log = captureLog();
  notices = securityNotices({
    DB: stack.db,
    Mailer: options.mailer ?? newSMTPMailer(`smtp://127.0.0.1:${smtp.port}`),
    MailFrom: "security@example.com",
    Origin: ORIGIN,
    Logger: log.logger,
    ...options,
  });
  const events = new EventStore(stack.db, { Clock: stack.clock, OnAppend: notices.Audited });
  const world = notices;
  return {
    stack,
    smtp,
    notices,
    log,
    events,
    inbox: async (to) => {
      await new Promise((resolve) => setImmediate(resolve));
      await world.Flush();
      return smtp.messages.filter((m) => m.to.includes(to));
    },
  };
}

/** A client that speaks as one browser: its User-Agent and, optionally, its chosen language. */
function browser(stack: Stack, ua: string, locale?: string): Client {
  const client = stack.client();
  client.headers["User-Agent"] = ua;
  if (locale !== undefined) client.cookies.set("framework_locale", locale);
  return client;
}

/** Everything a notice must never hold: the session cookie, links and codes mailed, recovery codes. */
function assertNoSecret(message: CapturedMessage, secrets: readonly string[]): void {
  assert.ok(secrets.length > 0);
  for (const secret of secrets) assert.ok(!message.raw.includes(secret), `the notice "${message.parsed.subject}" holds a secret`);
  assert.doesNotMatch(message.raw, /token=/);
}

function secretsOf(stack: Stack, client: Client, codes: readonly string[] = []): string[] {
  const mailed = stack.mail.flatMap((m) => [...m.Text.matchAll(/token=([A-Za-z0-9_-]+)|\b(\d{6})\b/g)].map((x) => x[1] ?? x[2] ?? ""));
  return [...client.cookies.values(), ...mailed, ...codes].filter((s) => s.length >= 6);
}

describe("securityNotices", () => {
  it("mails one notice per passkey added and removed, recovery codes made and used, in the person's language, with no secret", async (t) => {
    const world = await startWorld(t);
    const alice = browser(world.stack, FIREFOX, "fr");
    await alice.signIn(ALICE);
    const authenticator = newAuthenticator({ origin: ORIGIN });
    const id = await enroll(alice, authenticator);
    const added = await world.inbox(ALICE);
    assert.deepEqual(
      added.map((m) => m.parsed.subject),
      ["Une clé d’accès a été ajoutée"],
    );
    assert.match(added[0]?.parsed.text ?? "", /Appareil : Firefox on Linux/);
    assert.match(added[0]?.parsed.text ?? "", /Quand : 2025-06-01 12:00 UTC/);
    assert.match(added[0]?.parsed.text ?? "", /http:\/\/localhost\/account\/security/);

    const made = await alice.post("/account/recovery-codes");
    assert.equal(made.status, 200);
    const codes = made.body as string[];
    const pending = await pendingClient(world.stack, ALICE);
    pending.headers["User-Agent"] = FIREFOX;
    pending.cookies.set("framework_locale", "fr");
    const used = await pending.send("POST", "/passkey/signin/recovery", { form: { code: codes[0] ?? "" } });
    assert.equal(used.status, 303);
    const removed = await pending.send("POST", "/account/passkeys/delete", { form: { id } });
    assert.equal(removed.status, 303);

    const all = await world.inbox(ALICE);
    assert.deepEqual(
      all.map((m) => m.parsed.subject),
      [
        "Une clé d’accès a été ajoutée",
        "Nouveaux codes de récupération",
        "Un code de récupération a été utilisé",
        "Une clé d’accès a été supprimée",
      ],
    );
    for (const message of all) {
      assert.equal(message.parsed.headers.get("from"), "security@example.com");
      assertNoSecret(message, [...secretsOf(world.stack, alice, codes), ...secretsOf(world.stack, pending)]);
    }
  });

  it("mails a sign-in only from a device not seen before, in the owner's language", async (t) => {
    const world = await startWorld(t);
    await browser(world.stack, FIREFOX, "fr").signIn(ALICE); // the first sign-in: nothing to compare with
    await browser(world.stack, FIREFOX, "fr").signIn(ALICE); // the same device again
    assert.deepEqual(await world.inbox(ALICE), []);
    const thief = browser(world.stack, SAFARI, "de");
    await thief.signIn(ALICE);
    const mails = await world.inbox(ALICE);
    assert.deepEqual(
      mails.map((m) => m.parsed.subject),
      ["Nouvelle connexion à votre compte"],
    );
    assert.match(mails[0]?.parsed.text ?? "", /Appareil : Safari on iOS/);
    assertNoSecret(mails[0] as CapturedMessage, secretsOf(world.stack, thief));
    await browser(world.stack, SAFARI, "de").signIn(ALICE); // now a known device
    assert.equal((await world.inbox(ALICE)).length, 1);
  });

  it(`remembers at most ${MAX_KNOWN_DEVICES} devices a person, forgetting the least recently seen`, async (t) => {
    const world = await startWorld(t);
    const rows = (): number =>
      (world.stack.db.prepare("SELECT count(*) AS n FROM signin_notice_devices WHERE subject = ?").get(ALICE) as { n: number }).n;
    // Descriptions are coarse ("Firefox on Linux"): each device here is another browser or system.
    const browsers = ["Edg/1", "OPR/1", "Firefox/1", "Chrome/1", "Version/1 Safari/1"];
    const systems = ["Android", "iPhone", "Windows", "Mac OS X", "CrOS", "Linux"];
    const devices = browsers.flatMap((b) => systems.map((s) => `Mozilla/5.0 (${s}) ${b}`)).slice(0, MAX_KNOWN_DEVICES + 1);
    for (const ua of devices) {
      await browser(world.stack, ua).signIn(ALICE);
      world.stack.clock.advance(1000);
    }
    assert.equal(rows(), MAX_KNOWN_DEVICES);
    // The first device was forgotten: signing in from it again is news.
    const before = (await world.inbox(ALICE)).length;
    await browser(world.stack, devices[0] ?? "").signIn(ALICE);
    assert.equal((await world.inbox(ALICE)).length, before + 1);
  });

  it("mails an agent token given write access, not one given read access", async (t) => {
    const world = await startWorld(t);
    await browser(world.stack, FIREFOX, "fr").signIn(ALICE);
    const tokens = new AgentTokens(world.stack.db, { Clock: world.stack.clock, Events: world.events });
    tokens.mint({ Subject: ALICE, Name: "reader", Access: "read" });
    const { Token } = tokens.mint({ Subject: ALICE, Name: "writer", Access: "write" });
    const mails = await world.inbox(ALICE);
    assert.deepEqual(
      mails.map((m) => m.parsed.subject),
      ["Un agent peut désormais modifier vos données"],
    );
    assert.match(mails[0]?.parsed.text ?? "", /« writer »/);
    assert.ok(!(mails[0]?.raw ?? "").includes(Token));
  });

  it("mails the new address when the address changed (lib/account's address_changed auth event)", async (t) => {
    const world = await startWorld(t);
    world.notices.Sink({ Kind: "address_changed", At: world.stack.clock.now(), Subject: "alice@new.example" });
    const mails = await world.inbox("alice@new.example");
    assert.deepEqual(
      mails.map((m) => m.parsed.subject),
      ["Your account’s address changed"],
    );
    assert.match(mails[0]?.parsed.text ?? "", /is now alice@new\.example/);
  });

  it("sends no notice of a kind turned off", async (t) => {
    const world = await startWorld(t, { Off: ["passkey_added"] });
    const alice = browser(world.stack, FIREFOX);
    await alice.signIn(ALICE);
    await enroll(alice, newAuthenticator({ origin: ORIGIN }));
    assert.deepEqual(await world.inbox(ALICE), []);
  });

  it("sends nothing for a change that rolled back", async (t) => {
    const world = await startWorld(t);
    assert.throws(() =>
      world.stack.db
        .transaction(() => {
          world.notices.Sink({ Kind: "passkey_added", At: world.stack.clock.now(), Subject: ALICE });
          throw new Error("the audit stream refused it");
        })
        .immediate(),
    );
    assert.deepEqual(await world.inbox(ALICE), []);
  });

  it("sends at start the notices a stopped process queued and never sent", async (t) => {
    const world = await startWorld(t);
    world.stack.db
      .prepare(
        "INSERT INTO signin_notices (subject, kind, at, device, locale, name) VALUES (?, 'passkey_removed', ?, 'Firefox on Linux', 'en', '')",
      )
      .run(ALICE, world.stack.clock.now().getTime());
    const restarted = securityNotices({
      DB: world.stack.db,
      Mailer: newSMTPMailer(`smtp://127.0.0.1:${world.smtp.port}`),
      MailFrom: "security@example.com",
      Origin: ORIGIN,
    });
    await restarted.Flush();
    assert.deepEqual(
      world.smtp.messages.map((m) => m.parsed.subject),
      ["A passkey was removed"],
    );
  });

  it("with the mailer failing, the change completes and the failure is logged with a reference and no secret", async (t) => {
    const failing: Mailer = {
      Send: () => Promise.reject(new Error("connection refused by smtp.example.com")),
    };
    const world = await startWorld(t, { mailer: failing });
    const alice = browser(world.stack, FIREFOX);
    await alice.signIn(ALICE);
    await enroll(alice, newAuthenticator({ origin: ORIGIN }));
    assert.equal(world.stack.keys.Credentials(ALICE).length, 1);
    const line = await world.log.waitFor((l) => l["msg"] === "security notice not sent");
    assert.match(String(line["ref"]), /^[a-z2-7]{6}$/);
    assert.equal(line["notice"], "passkey_added");
    const text = JSON.stringify(world.log.lines());
    for (const secret of secretsOf(world.stack, alice)) assert.ok(!text.includes(secret), "the log holds a secret");
  });
});
