// The job record (SPEC.md §2.8) and its text rules: progress and error text are bounded and free of control characters, safe in a log, JSON and HTML alike; a stack never leaves the server.
/** Status values of a job (SPEC.md §2.8, §3.1). */
export const Status = {
  /** The job function is running and counts against its owner. */
  Running: "running",
  /** The job function finished without error. */
  Done: "done",
  /** The job function threw, rejected, escaped an error, timed out or was stopped by shutdown. */
  Failed: "failed",
} as const;

/** A job status: `"running"`, `"done"` or `"failed"`. */
export type Status = (typeof Status)[keyof typeof Status];

/** A snapshot of one job (SPEC.md §2.8). Snapshots never change; read again for news. */
export interface Job {
  /** Unguessable id: 16 random bytes, base64url. */
  readonly ID: string;
  /** The session subject that started the job. */
  readonly Owner: string;
  /** The name given to `Start`. */
  readonly Name: string;
  /** Current status. */
  readonly Status: Status;
  /** Latest text passed to the progress callback; empty until set. At most `MAX_PROGRESS_LENGTH` characters. */
  readonly Progress: string;
  /** Error text for a failed job, shown to the owner; never a stack. At most `MAX_ERR_LENGTH` characters. */
  readonly Err: string;
  /** Where the owner lands on success; empty keeps them on the status page. */
  readonly Location: string;
  /** When `Start` ran, from the registry's clock. */
  readonly StartedAt: Date;
  /** When the job left `Running`; `undefined` while running. */
  readonly FinishedAt: Date | undefined;
}

/** Longest progress text kept, in characters (code points); longer text is cut. */
export const MAX_PROGRESS_LENGTH = 200;

/** Longest error text kept, in characters (code points); longer text is cut. */
export const MAX_ERR_LENGTH = 500;

// C0 controls, DEL, C1 controls and the Unicode line/paragraph separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** `text` with runs of control characters made one space, trimmed, cut to `max` code points (never splitting a surrogate pair). */
export function cleanText(text: string, max: number): string {
  const flat = text.replace(CONTROL, " ").trim();
  const points = Array.from(flat);
  return points.length <= max ? flat : points.slice(0, max).join("");
}

/** The text of a thrown value for `Job.Err`: an `Error`'s message (never its stack), else the value as a string. */

export function errorText(e: unknown): string {
  let text: string;
  if (e instanceof Error) text = e.message === "" ? e.name : e.message;
  else if (typeof e === "string") text = e;
  else {
    try {
      text = String(e);
    } catch {
      text = "job failed";
    }
  }
  const clean = cleanText(text, MAX_ERR_LENGTH);
  return clean === "" ? "job failed" : clean;
}
