/*
 * Where a sign-in returns survives the passkey second factor and the
 * step-up: the page that sent the person away (an OAuth authorization
 * request, a page needing a fresh session) is where the passkey's answer
 * points, once; another origin never is.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newAuthenticator } from "../_support/authenticator.ts";
import { ORIGIN, enrolledClient, startStack, type Client, type Stack } from "./routes-stack.ts";

const ALICE = "alice@example.com";
const NEXT = "/oauth/authorize?client_id=x&state=a%3Bb";

/** Begins a sign-in naming `next` and follows the emailed link; the client then holds the pending half-session. */
async function pendingWithNext(stack: Stack, next: string): Promise<Client> {
  const client = stack.client();
  const before = stack.mail.length;
  const begun = await client.send("POST", "/signin", { form: { email: ALICE, next } });
  assert.equal(begun.headers.get("location"), "/signin?sent=1");
  const link = /http:\/\/localhost\/auth\/verify\?token=[A-Za-z0-9_-]+/.exec(stack.mail.slice(before)[0]?.Text ?? "")?.[0] ?? "";
  const landed = await client.send("GET", link.slice(ORIGIN.length));
  assert.equal(landed.headers.get("location"), "/confirm");
  return client;
}

describe("next through the passkey", () => {
  it("the passkey sign-in after the emailed link answers the remembered page, once", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    await enrolledClient(stack, ALICE, key);
    const client = await pendingWithNext(stack, NEXT);
    const begin = await client.post("/passkey/signin/begin");
    const finish = await client.post("/passkey/signin/finish", key.assert(begin.body));
    assert.equal(finish.status, 200);
    assert.deepEqual(finish.body, { location: NEXT });
    const again = await client.post("/passkey/stepup/begin");
    const stepped = await client.post("/passkey/stepup/finish", key.assert(again.body));
    assert.deepEqual(stepped.body, { location: "/account" }, "taken once");
  });

  it("a step-up answers the remembered page", async (t) => {
    const stack = await startStack(t);
    const key = newAuthenticator({ origin: ORIGIN });
    const [client] = await enrolledClient(stack, ALICE, key);
    // What RequireFreshSession (and the OAuth authorization endpoint) leaves in the browser: Begin with next does the same.
    await client.send("POST", "/signin", { form: { email: "nobody", next: NEXT } });
    const begin = await client.post("/passkey/stepup/begin");
    const finish = await client.post("/passkey/stepup/finish", key.assert(begin.body));
    assert.deepEqual(finish.body, { location: NEXT });
  });
});
