/* A language's own name for menus ("Deutsch", "Português (Brasil)"), first letter upper-cased by its own rules. */

const cache = new Map<string, string>();

/** Returns the name of `code` in its own language, or `code` when Intl has none. */
export function nativeName(code: string): string {
  const hit = cache.get(code);
  if (hit !== undefined) return hit;
  let name = code;
  try {
    const own = new Intl.DisplayNames([code], { type: "language" }).of(code);
    if (own !== undefined && own !== "") name = own.charAt(0).toLocaleUpperCase(code) + own.slice(1);
  } catch {
    name = code;
  }
  cache.set(code, name);
  return name;
}
