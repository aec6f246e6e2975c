/*
 * A server-sent events reader written from the WHATWG HTML Standard,
 * §9.2.5 "Parsing an event stream" and §9.2.6 "Interpreting an event
 * stream", used to check what the server frames:
 *
 * - the stream is UTF-8; one leading BOM is dropped;
 * - lines end at CRLF, a lone LF or a lone CR (a CR at the end of a chunk
 *   waits for the next chunk to see whether an LF follows);
 * - an empty line dispatches; a line starting with ":" is a comment;
 * - "name:value" splits at the first colon and drops one leading space of
 *   the value; a line without a colon is a field with an empty value;
 * - `event` sets the type, `data` appends value + LF, `id` sets the last
 *   event id unless the value holds NUL, `retry` sets the reconnection time
 *   when the value is ASCII digits only; other fields are ignored;
 * - dispatch: the last event id is committed; an empty data buffer
 *   dispatches nothing; one trailing LF of data is removed; the type
 *   defaults to "message"; type and data buffers reset;
 * - at end of stream an unfinished event is discarded.
 *
 * Comments are ignored by the standard; this reader also records them so
 * tests can count heartbeats.
 */

/** One dispatched event. */
export interface SSEEvent {
  type: string;
  data: string;
  lastEventId: string;
}

/** An incremental event-stream reader. */
export class SSEParser {
  /** Dispatched events, in order. */
  readonly events: SSEEvent[] = [];
  /** Comment lines (text after the colon), in order. */
  readonly comments: string[] = [];
  /** The reconnection time last set by `retry`, in ms. */
  retry: number | undefined;
  /** The last event id. */
  lastEventId = "";

  readonly #decoder = new TextDecoder("utf-8");
  #buffer = "";
  #started = false;
  #type = "";
  #data = "";
  #idBuffer = "";

  /** Feeds bytes; returns the events this chunk dispatched. */
  feed(chunk: Uint8Array): SSEEvent[] {
    let text = this.#decoder.decode(chunk, { stream: true });
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.startsWith("\uFEFF")) text = text.slice(1);
    }
    this.#buffer += text;
    return this.#drain(false);
  }

  /** Ends the stream: the trailing unfinished event, if any, is discarded. */
  end(): SSEEvent[] {
    this.#buffer += this.#decoder.decode();
    const out = this.#drain(true);
    this.#type = "";
    this.#data = "";
    return out;
  }

  #drain(final: boolean): SSEEvent[] {
    const out: SSEEvent[] = [];
    for (;;) {
      const cr = this.#buffer.indexOf("\r");
      const lf = this.#buffer.indexOf("\n");
      let end: number;
      let width = 1;
      if (cr === -1 && lf === -1) break;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        if (cr === this.#buffer.length - 1 && !final) break;
        end = cr;
        if (this.#buffer[cr + 1] === "\n") width = 2;
      } else end = lf;
      const line = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + width);
      const event = this.#line(line);
      if (event !== undefined) out.push(event);
    }
    this.events.push(...out);
    return out;
  }

  #line(line: string): SSEEvent | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) {
      this.comments.push(line.slice(1).replace(/^ /, ""));
      return undefined;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.#type = value;
    else if (field === "data") this.#data += value + "\n";
    else if (field === "id") {
      if (!value.includes("\0")) this.#idBuffer = value;
    } else if (field === "retry") {
      if (/^[0-9]+$/.test(value)) this.retry = Number(value);
    }
    return undefined;
  }

  #dispatch(): SSEEvent | undefined {
    this.lastEventId = this.#idBuffer;
    if (this.#data === "") {
      this.#type = "";
      return undefined;
    }
    const data = this.#data.endsWith("\n") ? this.#data.slice(0, -1) : this.#data;
    const event = { type: this.#type === "" ? "message" : this.#type, data, lastEventId: this.lastEventId };
    this.#type = "";
    this.#data = "";
    return event;
  }
}
