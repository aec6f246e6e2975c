/**
 * The one reader of a field of untrusted JSON: the value of `obj`'s own
 * property `name`, or undefined. `in` and plain access also find what the
 * prototype chain holds (`constructor`, a polluted `Object.prototype`),
 * which no sender wrote (OWASP ASVS 5.0 §1.5.2, safe deserialization).
 */

export function ownField(obj: object, name: string): unknown {
  return Object.getOwnPropertyDescriptor(obj, name)?.value;
}
