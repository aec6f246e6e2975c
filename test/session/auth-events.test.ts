/*
 * One way to report an auth event: `authEventEmitter` stamps the time and
 * the client address, and the sign-in and passkey components both report
 * through it, so their events name the same client for the same request.
 */
import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, it } from "node:test";
import { authEventEmitter, type AuthEvent } from "../../lib/session/index.ts";
import { clientAddress } from "../../lib/internal/index.ts";
import { newAuthenticator } from "../_support/authenticator.ts";
import { captureLog } from "../_support/http.ts";
import { ORIGIN, enroll, startStack } from "../passkey/routes-stack.ts";

const AT = new Date("2030-01-01T00:00:00Z");
const clock = { now: () => AT };

/** A request on a socket that has no peer (as on a unix socket), with `headers`. */
function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  Object.assign(req.headers, headers);
  return req;
}

describe("authEventEmitter()", () => {
  it("stamps the clock's time and the ClientIP address, and hands the event to OnAuthEvent", () => {
    const events: AuthEvent[] = [];
    const emit = authEventEmitter(
      { OnAuthEvent: (e) => events.push(e), ClientIP: (req) => String(req.headers["x-client"]) },
      clock,
      captureLog().logger,
    );
    emit(request({ "x-client": "203.0.113.7" }), { Kind: "signed_out", Subject: "ann@example.com" });
    assert.deepEqual(events, [{ Kind: "signed_out", Subject: "ann@example.com", At: AT, Client: "203.0.113.7" }]);
  });

  it("leaves Client out when the request has no peer address and no ClientIP, and logs by default", () => {
    const log = captureLog();
    const emit = authEventEmitter({}, clock, log.logger);
    emit(request(), { Kind: "step_up", Subject: "ann@example.com", Method: "passkey" });
    assert.equal(clientAddress(request(), undefined), undefined);
    const { time: _time, level: _level, ...line } = log.lines()[0] ?? {};
    assert.deepEqual(line, { msg: "auth event", event: "step_up", at: AT.toISOString(), subject: "ann@example.com", method: "passkey" });
  });
});

describe("Sign-in and passkey auth events", () => {
  for (const [label, clientIP, expected] of [
    ["the ClientIP address", (req: IncomingMessage) => `proxied:${req.socket.remoteAddress}`, "proxied:127.0.0.1"],
    ["the peer address without ClientIP", undefined, "127.0.0.1"],
  ] as const) {
    it(`name the same client, ${label}, and the clock's time, whichever component reports`, async (t) => {
      const stack = await startStack(t, clientIP === undefined ? {} : { clientIP });
      const client = stack.client();
      await client.signIn("ann@example.com");
      await enroll(client, newAuthenticator({ origin: ORIGIN }));
      const seen = stack.events.map((e) => [e.Kind, e.Client, e.At.getTime()]);
      const now = stack.clock.now().getTime();
      assert.deepEqual(seen, [
        ["link_requested", expected, now],
        ["signed_in", expected, now],
        ["passkey_added", expected, now],
      ]);
    });
  }
});
