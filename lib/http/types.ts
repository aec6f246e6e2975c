// The two shapes every part of latch is written against: Node's own request and response, in Node's `(req, res)` order (docs/spec.md, the idiom table).
import type { IncomingMessage, ServerResponse } from "node:http";

/** A request handler. It may return a promise; a rejection is a panic (see `recoverPanics`). */
export type HandlerFunc = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A middleware: returns a handler that does its work and calls `next` at most once. */
export type Middleware = (next: HandlerFunc) => HandlerFunc;
