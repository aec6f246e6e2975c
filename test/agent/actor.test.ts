import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Actor, humanActor } from "../../lib/agent/index.ts";
import { agentActor } from "../../lib/agent/actor.ts";
import { parseActor, type ActorInit } from "../../lib/agent/actor.ts";
import { auditForm } from "../../lib/agent/audit.ts";

function assertInvalid(fn: () => unknown): void {
  assert.throws(fn, (e: unknown) => e instanceof Error && "code" in e && e.code === "ERR_AGENT_INVALID_ACTOR");
}

describe("Actor.String()", () => {
  it('is "human" for a person and "agent:<name>" for an agent, toString() alike', () => {
    assert.equal(humanActor().String(), "human");
    assert.equal(`${humanActor()}`, "human");
    assert.equal(new Actor({ Human: true }).toString(), "human");
    const bot = agentActor("billing-bot.v2_1");
    assert.equal(bot.String(), "agent:billing-bot.v2_1");
    assert.equal(String(bot), "agent:billing-bot.v2_1");
    assert.equal(bot.Human, false);
    assert.equal(bot.Name, "billing-bot.v2_1");
  });
  it("cannot be changed after construction", () => {
    const bot = agentActor("bot");
    assert.throws(() => Object.assign(bot, { Name: "other" }), TypeError);
    assert.equal(bot.String(), "agent:bot");
  });
});

describe("new Actor()", () => {
  const good = ["a", "0", "bot", "billing-bot", "a.b_c-d", "x".repeat(64)];
  for (const name of good) it(`accepts agent name ${JSON.stringify(name)}`, () => assert.equal(agentActor(name).Name, name));
  const bad = [
    "",
    "Bot",
    "BOT",
    "a:b",
    "a b",
    " a",
    "a\n",
    "a\r",
    "a\t",
    "a\0",
    "a\x7f",
    "-a",
    ".a",
    "_a",
    "x".repeat(65),
    "é",
    "a/b",
    "agent:x",
  ];
  for (const name of bad) it(`rejects agent name ${JSON.stringify(name)}`, () => assertInvalid(() => agentActor(name)));
  it("rejects a human with a name, and a non-boolean Human", () => {
    assertInvalid(() => new Actor({ Human: true, Name: "alice" }));
    const sloppy: unknown = { Human: "yes" };
    assertInvalid(() => new Actor(sloppy as ActorInit));
  });
  it("keeps raw names out of the error message", () => {
    assert.throws(
      () => agentActor("Evil:Name"),
      (e: unknown) => e instanceof Error && !e.message.includes("Evil"),
    );
  });
});

describe("parseActor()", () => {
  it("inverts String()", () => {
    for (const actor of [humanActor(), agentActor("bot"), agentActor("a.b-c")])
      assert.equal(parseActor(actor.String()).String(), actor.String());
    assert.equal(parseActor("human").Human, true);
  });
  for (const form of ["", "Human", "agent:", "agent:Bot", "agent:a:b", "robot:x", "human "]) {
    it(`rejects ${JSON.stringify(form)}`, () => assertInvalid(() => parseActor(form)));
  }
});

describe("auditForm()", () => {
  it("is the audit string stored on events", () => {
    assert.equal(auditForm(humanActor()), "human");
    assert.equal(auditForm(agentActor("bot")), "agent:bot");
  });
});
