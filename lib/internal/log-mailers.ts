/*
 * The development-only logging sender (latch/mail `newLogMailer`, SPEC §2.6) marks the mailers it makes, so a component
 * can tell development from production without a flag of its own: an application that passes `newLogMailer(logger)` as
 * its `Mailer` (the guide's and the demo's development set-up) is in development as one that passes none.
 */

const logMailers = new WeakSet<object>();

/** Returns `mailer`, remembered as the logging sender's. */
export function markLogMailer<T extends object>(mailer: T): T {
  logMailers.add(mailer);
  return mailer;
}

/** Whether `mailer` is one the logging sender made (links are read from the log: development). */
export function isLogMailer(mailer: object): boolean {
  return logMailers.has(mailer);
}
