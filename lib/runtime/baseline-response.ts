/*
 * The response class `Serve` builds its server with: it holds the baseline
 * security headers in a flat list until the head is written, then writes
 * status and headers in one `writeHead(status, raw)`; the application cannot
 * tell (lib/runtime/README.md, "Baseline headers at write time"). The rarer
 * calls (`appendHeader`, `writeHead` with headers of its own) first move the
 * list into Node's store, one `setHeader` each, and let Node do the rest.
 */
import {
  OutgoingMessage,
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
} from "node:http";

/** A header value as `setHeader` takes it. */
type HeaderValue = number | string | readonly string[];

/** The baseline headers of one runtime, prepared once at boot and never changed. */
export interface Baseline {
  /** Names and values, flat: `[name, value, name, value, ...]`. */
  raw: HeaderValue[];
  /** The lower-cased names, one per header. */
  keys: string[];
}

/** Prepares `list` (name, value pairs) for `BaselineResponse.holdBaseline`. */
export function prepareBaseline(list: readonly (readonly [string, string])[]): Baseline {
  return { raw: list.flat(), keys: list.map(([name]) => name.toLowerCase()) };
}

/** The headers a response holds: a runtime's Baseline until the first change copies it. */
interface Held extends Baseline {
  shared: boolean;
}

// Node has getRawHeaderNames on every outgoing message; @types/node declares it on ClientRequest only.
const nodeRawHeaderNames = (OutgoingMessage.prototype as unknown as ClientRequest).getRawHeaderNames;

/** A `ServerResponse` that writes the baseline headers with the head (see the file comment). */
export class BaselineResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  // While set, Node's own header store stays empty: the held list is the response's header set.
  #held: Held | undefined = undefined;

  /**
   * Holds `baseline` as the response's headers until the head is written.
   * Reports false (and holds nothing) when a header was already set before
   * the baseline: the caller sets the baseline itself then.
   */
  holdBaseline(baseline: Baseline): boolean {
    if (this.#held !== undefined || this.headersSent || super.getHeaderNames().length > 0) return false;
    this.#held = { raw: baseline.raw, keys: baseline.keys, shared: true };
    return true;
  }

  override setHeader(name: string, value: HeaderValue): this {
    if (this.#held === undefined || this.headersSent) return super.setHeader(name, value);
    // The checks (and errors) of Node's own setHeader, which passes numbers and lists to the value check too.
    validateHeaderName(name);
    validateHeaderValue(name, value as string);
    const { raw, keys } = this.#own(this.#held);
    const key = name.toLowerCase();
    const i = keys.indexOf(key);
    if (i < 0) {
      keys.push(key);
      raw.push(name, value);
    } else {
      // As in Node's store: the header keeps its place, its name is written as last set.
      raw[2 * i] = name;
      raw[2 * i + 1] = value;
    }
    return this;
  }

  override removeHeader(name: string): void {
    // Node's own validates the name, throws once the head is written, and notes a removed Date, Connection, ...
    super.removeHeader(name);
    if (this.#held === undefined) return;
    const { raw, keys } = this.#own(this.#held);
    const i = keys.indexOf(name.toLowerCase());
    if (i < 0) return;
    keys.splice(i, 1);
    raw.splice(2 * i, 2);
  }

  override getHeader(name: string): number | string | string[] | undefined {
    const held = this.#held;
    if (held === undefined || typeof name !== "string") return super.getHeader(name);
    const i = held.keys.indexOf(name.toLowerCase());
    // The value as set, as Node's store returns it.
    return i < 0 ? undefined : (held.raw[2 * i + 1] as number | string | string[]);
  }

  override hasHeader(name: string): boolean {
    const held = this.#held;
    if (held === undefined || typeof name !== "string") return super.hasHeader(name);
    return held.keys.includes(name.toLowerCase());
  }

  override getHeaderNames(): string[] {
    return this.#held?.keys.slice() ?? super.getHeaderNames();
  }

  getRawHeaderNames(): string[] {
    const held = this.#held;
    if (held === undefined) return nodeRawHeaderNames.call(this);
    return held.raw.filter((_, i) => i % 2 === 0) as string[];
  }

  override getHeaders(): OutgoingHttpHeaders {
    const held = this.#held;
    if (held === undefined) return super.getHeaders();
    const headers = Object.create(null) as OutgoingHttpHeaders;
    for (const [i, key] of held.keys.entries()) headers[key] = held.raw[2 * i + 1] as OutgoingHttpHeader;
    return headers;
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    this.#release();
    return super.appendHeader(name, value);
  }

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const held = this.#held;
    if (held === undefined || this.headersSent || headers !== undefined || (reason !== undefined && typeof reason !== "string")) {
      // Node merges the call's own headers into its store, as before the baseline was held.
      this.#release();
      return typeof reason === "string" ? super.writeHead(statusCode, reason, headers) : super.writeHead(statusCode, headers ?? reason);
    }
    // Node's store is empty, so Node writes the list as it is after the status line (then Date, Connection, Content-Length).
    const raw = held.raw as OutgoingHttpHeader[];
    return reason === undefined ? super.writeHead(statusCode, raw) : super.writeHead(statusCode, reason, raw);
  }

  /** Node's deprecated alias of `writeHead`, which would bypass the override above. */
  writeHeader(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    return this.writeHead(statusCode, reason, headers);
  }

  /** `held`, its lists copied from the runtime's Baseline on the first change. */
  #own(held: Held): Held {
    if (held.shared) {
      held.raw = held.raw.slice();
      held.keys = held.keys.slice();
      held.shared = false;
    }
    return held;
  }

  /** Moves the held list into Node's store, in order, one `setHeader` each; Node handles the headers from then on. */
  #release(): void {
    const held = this.#held;
    if (held === undefined || this.headersSent) return;
    this.#held = undefined;
    for (let i = 0; i < held.raw.length; i += 2) super.setHeader(held.raw[i] as string, held.raw[i + 1] as HeaderValue);
  }
}
