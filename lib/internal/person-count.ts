// What one person holds open at once (event streams, downloads), counted until the response closes, however it closes. OWASP ASVS 5.0 §13.1.3.
import type { ServerResponse } from "node:http";

/** Returns the function that counts `res` of `person` in until it closes and returns true, or false when they hold `max` already. */
export function personCount(max: number): (person: string, res: ServerResponse) => boolean {
  const open = new Map<string, number>();
  return (person, res) => {
    const count = open.get(person) ?? 0;
    if (count >= max) return false;
    // A client gone before its response began is not counted: its response closed already, and would never release the count.
    if (res.closed) return true;
    open.set(person, count + 1);
    res.once("close", () => {
      const left = (open.get(person) ?? 1) - 1;
      if (left === 0) open.delete(person);
      else open.set(person, left);
    });
    return true;
  };
}
