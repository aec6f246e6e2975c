/// <reference types="node" preserve="true" />
export { clientKey } from "./client-key.ts";
export { LatchCookie, readCookie, serializeCookie, appendSetCookie } from "./cookie.ts";
export { hasErrorCode } from "./error-code.ts";
export { MAX_TIMER_MS, countProblem, positiveProblem, durationProblem } from "./option-checks.ts";
export { requestTarget, mediaType, parseOrigin, crossOriginVerdict, originVerdict, clientAddress } from "./request.ts";
export { writeText, writeErrorPage, writeChunk } from "./respond.ts";
export { equalSecret } from "./secret.ts";
export { rememberNext, takeNext } from "./next-cookie.ts";
export { requestSlot, SlottedRequest } from "./request-slot.ts";
export { bindShutdownSignal, shutdownSignal } from "./shutdown-signal.ts";
export { bindStreamWatcher, holdsStream } from "./stream-share.ts";
export { bindWaitWatcher, waitOutside } from "./waiting.ts";
export { OUTBOUND_FILES, takeOutbound, outboundInFlight } from "./outbound.ts";
export { encodeEvent } from "./sse.ts";
export { EventWriter, endOnShutdown } from "./event-writer.ts";
export type { ErrorPageTarget } from "./respond.ts";
export { needRoute, routeNeedsOf, bindRouteCheck, unroutedNeeds } from "./route-needs.ts";
export type { RouteNeed } from "./route-needs.ts";
