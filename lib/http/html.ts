// Server-rendered HTML, escaped by default: an interpolation is escaped unless it is `SafeHTML`; arrays render item by item, undefined, null and false render nothing.
/** A string of trusted HTML. */
export class SafeHTML {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  toString(): string {
    return this.#value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;
const escapeOne = (c: string): string => ESCAPES[c] ?? c;

/** Escapes text for an HTML body or a quoted attribute value. */
export function escapeHTML(text: string): string {
  // Most text has nothing to escape: asked first, it is returned as it is (issue 44: a list page escapes every cell).
  return SPECIAL.test(text) ? text.replace(SPECIALS, escapeOne) : text;
}

/** Marks a string as trusted HTML. Never pass user input. */
export function raw(trusted: string): SafeHTML {
  return new SafeHTML(trusted);
}

function render(value: unknown): string {
  if (value === undefined || value === null || value === false) return "";
  if (value instanceof SafeHTML) return value.toString();
  if (Array.isArray(value)) {
    // Appended, not joined: a join copies its items into one new string at every level (a list page's rows, each row's
    // cells); in V8 appending links them, and the page is copied once, when written (issue 44: 0.90-0.94x a list body's
    // time, BENCHMARKS.md (o)).
    let out = "";
    for (let i = 0; i < value.length; i++) out += render(value[i]);
    return out;
  }
  return escapeHTML(String(value));
}

/**
 * Tagged template producing escaped HTML.
 *
 * @example
 * const page = html`<p>Hello, ${name}</p>`; // name is escaped
 * res.end(page.toString());
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHTML {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return new SafeHTML(out);
}
