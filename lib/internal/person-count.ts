/*
 * What one person holds open at once (event streams, downloads), counted
 * from admission until the response closes, however it closes: ended,
 * cut at a write deadline, or left by the client. OWASP ASVS 5.0 §13.1.3
 * (resource management). Memory only: a restart forgets it, as it ends
 * every response it counted.
 */
import type { ServerResponse } from "node:http";

/** Open responses per person, at most `max` each. */
export class PersonCount {
  readonly #open = new Map<string, number>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** Counts `res` of `person` in until it closes and returns true; false when they hold `max` already. */
  admit(person: string, res: ServerResponse): boolean {
    const count = this.#open.get(person) ?? 0;
    if (count >= this.#max) return false;
    // A client gone before its response began is not counted: its response closed already, and would never release the count.
    if (res.closed) return true;
    this.#open.set(person, count + 1);
    res.once("close", () => {
      const left = (this.#open.get(person) ?? 1) - 1;
      if (left === 0) this.#open.delete(person);
      else this.#open.set(person, left);
    });
    return true;
  }
}
