/**
 * Reports whether `e` is an Error whose `code` is one of `codes`' own keys.
 * Each module's `isXError` guard is this check against its code table: by
 * shape, not `instanceof`, so vendored copies of latch recognise each other.
 */
export function hasErrorCode(e: unknown, codes: Readonly<Record<string, string>>): boolean {
  if (!(e instanceof Error) || !("code" in e)) return false;
  const code: unknown = e.code;
  return typeof code === "string" && Object.hasOwn(codes, code);
}
