/// <reference types="node" preserve="true" />
export { LatchError, isLatchError, HTTPError, ErrAbortHandler, isAbortHandler } from "./errors.ts";
export { newLogger, discardLogger } from "./logger.ts";
export { systemClock, cryptoRandom } from "./clock.ts";
export { html, raw, SafeHTML } from "./html.ts";
export { readBody, readForm, readJSON, DEFAULT_BODY_LIMIT } from "./body.ts";
export { NewRef } from "./ref.ts";
export { writeJSON, seeOther } from "./respond.ts";
export { queryParams, isLocalPath } from "./url.ts";
export { requestSignal } from "./request-signal.ts";
export { crossOriginProtection } from "./csrf.ts";
export type { HandlerFunc, Middleware } from "./types.ts";
export type { LatchErrorOptions } from "./errors.ts";
export type { Logger } from "./logger.ts";
export type { Clock, RandomReader } from "./clock.ts";
// Named by the signatures above (issue 42: a public signature names only public types).
export type { BodyOptions } from "./body.ts";
export type { CrossOriginOptions } from "./csrf.ts";
export type { HTTPErrorCode } from "./errors.ts";
export type { Attrs, LoggerOptions } from "./logger.ts";
export { HTTP_ERROR_CODES } from "./errors.ts";
export type { Level, LogFormat } from "./logger.ts";
