import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { isJobsError, JOBS_ERROR_CODES, JobsError } from "../../lib/jobs/errors.ts";
import { ErrOwnerBusy, isOwnerBusy } from "../../lib/jobs/index.ts";
import { LatchError } from "../../lib/http/index.ts";

describe("JOBS_ERROR_CODES", () => {
  it("pins the number of codes and each key equals its value", () => {
    const entries = Object.entries(JOBS_ERROR_CODES);
    assert.equal(entries.length, 5);
    for (const [key, value] of entries) assert.equal(key, value);
  });
});

describe("ErrOwnerBusy()", () => {
  it("is a LatchError with code ERR_JOBS_OWNER_BUSY and status 429", () => {
    const e = new ErrOwnerBusy("a@example.com", 4);
    assert.ok(e instanceof LatchError);
    assert.ok(e instanceof JobsError);
    assert.equal(e.code, "ERR_JOBS_OWNER_BUSY");
    assert.equal(e.status, 429);
    assert.match(e.message, /^start job: /);
    assert.ok(!e.message.includes("a@example.com"), "the message carries no user input");
    assert.ok(isOwnerBusy(e));
  });
});

describe("isJobsError()", () => {
  it("recognises jobs codes only", () => {
    assert.ok(isJobsError(new JobsError("ERR_JOBS_TIMEOUT", "x")));
    assert.ok(!isJobsError(new LatchError("ERR_HTTP_BODY_TOO_LARGE", "x")));
    assert.ok(!isJobsError(Object.assign(new Error("x"), { code: "toString" })));
    assert.ok(!isJobsError("ERR_JOBS_TIMEOUT"));
    assert.ok(!isOwnerBusy(new JobsError("ERR_JOBS_TIMEOUT", "x")));
  });
});
