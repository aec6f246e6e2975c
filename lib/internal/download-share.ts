// The downloads one person may have running at once, exports and CSV together (OWASP ASVS 5.0 §13.1.3; issue 36: ten concurrent exports of one account left 1 probe of 14 answered).
import type { ServerResponse } from "node:http";
import { personCount } from "./person-count.ts";

/** Downloads one person may have running at once, exports and CSV together: 2. */
export const MAX_DOWNLOADS_PER_PERSON: number = 2;

/** The `Retry-After` of a download refused for that limit, in whole seconds (RFC 9110 §10.2.3): 5. */
export const DOWNLOAD_RETRY_AFTER: number = 5;

/** Characters of text a download reads and writes in one piece, at most: 256 Ki, about a millisecond of one core (lib/account/README.md, "Export"). */

export const DOWNLOAD_PIECE: number = 256 * 1024;

const running = new WeakMap<object, ReturnType<typeof personCount>>();

/**
 * Counts a download of `person` in the application whose database handle
 * is `app` until `res` closes, and returns true; or, when the person has
 * `MAX_DOWNLOADS_PER_PERSON` running already, sets `Retry-After` on `res`
 * and returns false: the caller answers 429 its module's way.
 */
export function admitDownload(app: object, person: string, res: ServerResponse): boolean {
  let admit = running.get(app);
  if (admit === undefined) running.set(app, (admit = personCount(MAX_DOWNLOADS_PER_PERSON)));
  if (admit(person, res)) return true;
  // RFC 6585 §4: a 429 may say when to come back; RFC 9110 §10.2.3: in whole seconds.
  res.setHeader("Retry-After", String(DOWNLOAD_RETRY_AFTER));
  return false;
}
