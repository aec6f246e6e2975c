// Inline SVG icons: they inherit `currentColor` and need no fetch; each is decorative (`aria-hidden`), the text beside it carries the meaning.
import { raw, SafeHTML } from "../http/index.ts";
import { SHAPES } from "./shapes.ts";

const OPEN =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24" fill="none" ' +
  'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" ' +
  'aria-hidden="true" focusable="false"';

// Rendered once: icons are constant, so Icon() is a map lookup.
const RENDERED: ReadonlyMap<string, SafeHTML> = new Map(
  [...SHAPES].map(([slug, shape]) => [slug, raw(`${OPEN} class="icon icon-${slug}">${shape}</svg>`)]),
);

const EMPTY: SafeHTML = raw("");

/**
 * Returns the inline `<svg>` for `slug` (24x24, class `icon icon-<slug>`); an unknown slug renders nothing.
 *

 * @example
 * html`<button>${Icon("sign-out")} Sign out</button>`;
 */
export function Icon(slug: string): SafeHTML {
  return RENDERED.get(slug) ?? EMPTY;
}

/** Returns the 11 icon slugs, in a fixed order (a fresh array each call). */
export function IconSlugs(): string[] {
  return [...SHAPES.keys()];
}
