import assert from "node:assert/strict";
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { describe, it } from "node:test";
import { currentSession, userID, type Session } from "../../lib/session/index.ts";
import { setCurrentSession } from "../../lib/session/current.ts";

function session(subject: string): Session {
  const t = new Date("2030-01-01T00:00:00Z");
  return {
    ID: "h",
    Subject: subject,
    Method: "magiclink",
    AuthTime: t,
    CreatedAt: t,
    LastSeen: t,
    ExpiresAt: t,
    PublicID: "p",
    Device: "",
  };
}

describe("UserID()", () => {
  it("returns the numeric subject, or undefined when it is not a positive safe integer", () => {
    const table: { subject: string; want: number | undefined }[] = [
      { subject: "1", want: 1 },
      { subject: "42", want: 42 },
      { subject: "9007199254740991", want: Number.MAX_SAFE_INTEGER },
      { subject: "9007199254740992", want: undefined },
      { subject: "0", want: undefined },
      { subject: "007", want: undefined },
      { subject: "-1", want: undefined },
      { subject: "1.5", want: undefined },
      { subject: "1e3", want: undefined },
      { subject: " 42", want: undefined },
      { subject: "0x10", want: undefined },
      { subject: "", want: undefined },
      { subject: "ann@example.com", want: undefined },
      { subject: "12345678901234567", want: undefined },
    ];
    for (const { subject, want } of table) {
      const req = new IncomingMessage(new Socket());
      setCurrentSession(req, session(subject));
      assert.equal(userID(req), want, JSON.stringify(subject));
    }
  });

  it("returns undefined without a session", () => {
    assert.equal(userID(new IncomingMessage(new Socket())), undefined);
  });
});

describe("Current()", () => {
  it("returns the session bound to that request only", () => {
    const a = new IncomingMessage(new Socket());
    const b = new IncomingMessage(new Socket());
    const s = session("ann@example.com");
    setCurrentSession(a, s);
    assert.equal(currentSession(a), s);
    assert.equal(currentSession(b), undefined);
  });
});
