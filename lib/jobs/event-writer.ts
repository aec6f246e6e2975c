/*
 * One open event stream on a ServerResponse, with the limits of SPEC.md §6.1:
 *
 * - heartbeat: a `: ping` comment every `heartbeat` ms;
 * - per-write deadline: when a write is refused (the socket buffer is over
 *   its high-water mark) and `drain` does not follow within `writeTimeout`
 *   ms, the socket is destroyed: a reader that does not read is dropped;
 * - bounded lifetime: after `lifetime` ms the stream ends cleanly and the
 *   browser reconnects after the `retry:` delay sent first.
 *
 * Memory per stream stays bounded while blocked: heartbeats are skipped
 * (the connection is evidently busy) and updates coalesce into the latest
 * one; a final event replaces any pending update and ends the stream.
 */
import type { ServerResponse } from "node:http";
import { encodeComment, encodeRetry } from "./sse.ts";

/** Limits of one stream, in ms. */
export interface StreamLimits {
  heartbeat: number;
  writeTimeout: number;
  lifetime: number;
  retry: number;
}

/** Writes SSE text to one response under `StreamLimits`. */
export class EventWriter {
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
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      "X-Accel-Buffering": "no",
    });
    this.#heartbeat = setInterval(() => this.#write(encodeComment("ping"), "ping"), limits.heartbeat);
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
