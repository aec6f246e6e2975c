/*
 * Server-sent event framing (WHATWG HTML §9.2.5): a line ends at CRLF, LF
 * or CR, so a data value is split into one `data:` line per line, and an
 * event name or id holding a line ending would smuggle a field: refused.
 */
const LINE_END = /\r\n|\r|\n/;

/** An event to encode. */
export interface SSEMessage {
  /** Event type; the reader defaults it to "message" when absent. */
  event?: string;
  /** Data; may span lines. An event with no data is never dispatched by a reader (§9.2.6). */
  data: string;
  /** Event id, remembered by the reader as the last event id. */
  id?: string;
}

/**
 * Encodes one event followed by the blank line that dispatches it. Throws
 * `TypeError` when `event` or `id` holds CR, LF or NUL: the callers' names
 * and ids are the framework's own, so that is a bug, never bad input.
 */
export function encodeEvent(message: SSEMessage): string {
  let out = "";
  if (message.event !== undefined) out += `event: ${checkField("event", message.event)}\n`;
  if (message.id !== undefined) out += `id: ${checkField("id", message.id)}\n`;
  for (const line of message.data.split(LINE_END)) out += `data: ${line}\n`;
  return out + "\n";
}

/** Encodes a comment line (ignored by readers, keeps proxies and sockets alive), e.g. `: ping`. */
export function encodeComment(text: string): string {
  return (
    text
      .split(LINE_END)
      .map((line) => `: ${line}\n`)
      .join("") + "\n"
  );
}

/** Encodes a `retry:` field: the reader's reconnection delay in ms (§9.2.6, ASCII digits only). */
export function encodeRetry(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) throw new TypeError("encode retry: must be a non-negative integer");
  return `retry: ${ms}\n\n`;
}

function checkField(name: string, value: string): string {
  // WHATWG HTML §9.2.5: a CR or LF ends the field; §9.2.6: an id containing NUL is ignored.
  if (/[\r\n\0]/.test(value)) throw new TypeError(`encode event: ${name} must not contain CR, LF or NUL`);
  return value;
}
