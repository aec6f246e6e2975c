/*
 * Locale codes: BCP 47 language[-Script][-REGION] (`en`, `pt-BR`, `zh-Hans-CN`) in canonical case, no
 * extensions or variants: a code is also a file name and a URL segment (letters, digits, hyphens).
 */

// RFC 5646 §2.1: language (2-3 letters), script (4 letters), region (2 letters or 3 digits).
const CODE_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|[0-9]{3}))?$/;

/**
 * Returns the canonical form of a locale code (`pt-br` -> `pt-BR`), or
 * `undefined` when it is not a language[-Script][-REGION] tag.
 */
export function canonicalLocale(code: string): string | undefined {
  if (!CODE_PATTERN.test(code)) return undefined;
  try {
    return Intl.getCanonicalLocales(code)[0];
  } catch {
    return undefined;
  }
}

/** Returns the declared code equal to `code` ignoring case (RFC 5646 §2.1.1), or `undefined`. */
export function findDeclared(codes: readonly string[], code: string): string | undefined {
  const want = code.toLowerCase();
  return codes.find((c) => c.toLowerCase() === want);
}

/**
 * Returns the language and script of a tag after adding likely subtags
 * (`pt` -> `pt-Latn`, `zh-TW` -> `zh-Hant`), or `undefined` for a tag Intl
 * refuses. Two tags with the same answer are written the same way.
 */
export function languageScript(tag: string): string | undefined {
  try {
    const max = new Intl.Locale(tag).maximize();
    return `${max.language}-${max.script ?? ""}`.toLowerCase();
  } catch {
    return undefined;
  }
}
