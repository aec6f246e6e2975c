// The media types the asset handler sends, by extension: deliberately few; an unknown one is application/octet-stream, and nosniff stops the browser guessing.
const TEXT = "; charset=utf-8";

const TYPES: ReadonlyMap<string, string> = new Map([
  [".css", "text/css" + TEXT],
  [".js", "text/javascript" + TEXT],
  [".mjs", "text/javascript" + TEXT],
  [".json", "application/json" + TEXT],
  [".map", "application/json" + TEXT],
  [".svg", "image/svg+xml" + TEXT],
  [".txt", "text/plain" + TEXT],
  [".html", "text/html" + TEXT],
  [".png", "image/png"],
  [".jpg", "image/jpeg"],
  [".jpeg", "image/jpeg"],
  [".webp", "image/webp"],
  [".ico", "image/x-icon"],
  [".woff2", "font/woff2"],
  [".wasm", "application/wasm"],
]);

/** The type sent for an extension the table does not know. */
export const DEFAULT_CONTENT_TYPE: string = "application/octet-stream";

/** The `Content-Type` of an asset name by its extension (case-insensitive); text types carry `charset=utf-8`. */

export function contentTypeFor(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return DEFAULT_CONTENT_TYPE;
  return TYPES.get(base.slice(dot).toLowerCase()) ?? DEFAULT_CONTENT_TYPE;
}
