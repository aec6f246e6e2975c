/*
 * The event store's codes: a malformed event is the caller's (400); an append at a sequence the stream has left is a
 * conflict (409), reported with both numbers so the caller can re-read and decide.
 */
import { LatchError } from "../http/index.ts";
import { hasErrorCode } from "../internal/index.ts";

/** The events module's error codes, each equal to its key. */
export const EVENTS_ERROR_CODES = {
  ERR_EVENTS_INVALID_EVENT: "ERR_EVENTS_INVALID_EVENT",
  ERR_EVENTS_CONFLICT: "ERR_EVENTS_CONFLICT",
} as const;

/** An events error code. */
export type EventsErrorCode = keyof typeof EVENTS_ERROR_CODES;

/** An error from the event store. */
export class EventsError extends LatchError<EventsErrorCode> {
  override name: string = "EventsError";
}

/**
 * Thrown by `append` when the stream's last sequence is not the one the
 * caller expected: someone else appended first. Nothing was written.
 */
export class EventConflictError extends EventsError {
  override name: string = "EventConflictError";
  /** The stream appended to. */
  readonly stream: string;
  /** The sequence the caller expected the stream to be at. */
  readonly expected: number;
  /** The sequence the stream was at. */
  readonly actual: number;

  constructor(stream: string, expected: number, actual: number) {
    super("ERR_EVENTS_CONFLICT", `append event: stream is at sequence ${actual}, not ${expected}`, { status: 409 });
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Reports whether `e` is an events error (by code, so vendored copies match). */
export function isEventsError(e: unknown): e is EventsError {
  return hasErrorCode(e, EVENTS_ERROR_CODES);
}

/** Reports whether `e` is an append conflict (by code). */
export function isEventConflict(e: unknown): e is EventConflictError {
  return isEventsError(e) && e.code === "ERR_EVENTS_CONFLICT";
}
