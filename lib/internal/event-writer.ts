/*
 * One open event stream under SPEC.md §6.1's limits: a heartbeat, a write
 * deadline (a reader that does not read is dropped), a bounded lifetime.
 * Heartbeats are staggered, PING_BATCH per turn of the event loop, so one
 * fan-out to 10,000 streams never holds the loop at once. While blocked,
 * heartbeats are skipped and updates coalesce into the latest.
 */
import type { ServerResponse } from "node:http";
import { holdsStream } from "./stream-share.ts";
import { encodeComment, encodeRetry } from "./sse.ts";

/** Heartbeats written in one turn of the event loop; the rest wait for the next turn. */
export const PING_BATCH = 128;

const PING = encodeComment("ping");

/** The headers of an event stream (and of its HEAD answer). */
export const STREAM_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache, no-transform",
  "X-Accel-Buffering": "no",
};

/** Limits of one stream, in ms. */
export interface StreamLimits {
  heartbeat: number;
  writeTimeout: number;
  lifetime: number;
  retry: number;
}

/** Writes SSE text to one response under `StreamLimits`. */
export class EventWriter {
  // Streams whose heartbeat is due but over this turn's PING_BATCH, in order.
  static #waiting: EventWriter[] = [];
  static #pingsThisTurn = 0;
  static #turnScheduled = false;

  static #queuePing(writer: EventWriter): void {
    if (EventWriter.#pingsThisTurn < PING_BATCH && EventWriter.#waiting.length === 0) {
      EventWriter.#pingsThisTurn++;
      writer.#write(PING, "ping");
    } else {
      EventWriter.#waiting.push(writer);
    }
    if (!EventWriter.#turnScheduled) {
      EventWriter.#turnScheduled = true;
      setImmediate(EventWriter.#nextTurn);
    }
  }

  static #nextTurn(this: void): void {
    const batch = EventWriter.#waiting.splice(0, PING_BATCH);
    EventWriter.#pingsThisTurn = batch.length;
    for (const writer of batch) writer.#write(PING, "ping");
    if (batch.length > 0) setImmediate(EventWriter.#nextTurn);
    else EventWriter.#turnScheduled = false;
  }

  readonly #res: ServerResponse;
  readonly #writeTimeout: number;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  readonly #lifetime: ReturnType<typeof setTimeout>;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #pending: string | undefined;
  #endAfterPending = false;
  #closed = false;
  #ended = false;
  #onClose: (() => void) | undefined;

  /** Sends the headers and `retry:`, and starts the heartbeat and lifetime timers. */
  constructor(res: ServerResponse, limits: StreamLimits) {
    this.#res = res;
    this.#writeTimeout = limits.writeTimeout;
    res.writeHead(200, STREAM_HEADERS);
    // Under `Serve`, streams count against a share of the connection cap; past it, the oldest ends.
    holdsStream(res);
    this.#heartbeat = setInterval(() => EventWriter.#queuePing(this), limits.heartbeat);
    this.#lifetime = setTimeout(() => this.end(), limits.lifetime);
    res.on("close", () => this.#cleanup());
    this.#write(encodeRetry(limits.retry), "update");
  }

  /** Registers the one callback run when the stream closes for any reason. */
  onClose(fn: () => void): void {
    this.#onClose = fn;
  }

  /** Writes an update; while blocked it replaces any pending update. */
  update(text: string): void {
    this.#write(text, "update");
  }

  /** Writes a final event and ends the stream. */
  final(text: string): void {
    this.#write(text, "final");
  }

  /** Ends the stream cleanly once pending text is written. */
  end(): void {
    if (this.#closed || this.#ended) return;
    if (this.#deadline !== undefined) {
      this.#endAfterPending = true;
      return;
    }
    this.#finish();
  }

  #write(text: string, kind: "ping" | "update" | "final"): void {
    if (this.#closed || this.#ended || this.#endAfterPending) return;
    if (this.#deadline !== undefined) {
      if (kind !== "ping") this.#pending = text;
      if (kind === "final") this.#endAfterPending = true;
      return;
    }
    const flushed = this.#res.write(text);
    if (kind === "final") this.#finish();
    else if (!flushed) this.#block();
  }

  #block(): void {
    this.#deadline = setTimeout(() => this.#res.destroy(), this.#writeTimeout);
    this.#res.once("drain", () => {
      clearTimeout(this.#deadline);
      this.#deadline = undefined;
      const pending = this.#pending;
      const end = this.#endAfterPending;
      this.#pending = undefined;
      this.#endAfterPending = false;
      if (pending !== undefined) this.#write(pending, end ? "final" : "update");
      else if (end) this.#finish();
    });
  }

  // Ends the response; a reader that never takes the last bytes is dropped after the write deadline.
  #finish(): void {
    if (this.#closed || this.#ended) return;
    this.#ended = true;
    this.#stopTimers();
    const flushed = !this.#res.writableNeedDrain;
    this.#res.end();
    if (!flushed) this.#deadline = setTimeout(() => this.#res.destroy(), this.#writeTimeout);
  }

  #stopTimers(): void {
    clearInterval(this.#heartbeat);
    clearTimeout(this.#lifetime);
  }

  #cleanup(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopTimers();
    clearTimeout(this.#deadline);
    this.#onClose?.();
  }
}
