/*
 * The one reader of a field of untrusted JSON (a request body, a fetched
 * document, a token's parts): only the object's own property counts. `in`
 * and plain property access also find what the prototype chain holds
 * (`constructor`, `toString`, or anything a polluted `Object.prototype`
 * gained), which no sender wrote (OWASP ASVS 5.0 §1.5.2, safe
 * deserialization).
 */

/** The value of `obj`'s own property `name`, or undefined when it has none (an inherited one included). */
export function ownField(obj: object, name: string): unknown {
  return Object.getOwnPropertyDescriptor(obj, name)?.value;
}
