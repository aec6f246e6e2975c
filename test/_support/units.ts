/*
 * The functions of a TypeScript or JavaScript source and the lines each
 * spans, for the unit-size rule (STYLE §3). The compiler in node_modules
 * (typescript 7) has no JavaScript API, so this is a small scanner: it
 * blanks comments, string and template text and regular expressions
 * (keeping line breaks), then reads the remaining tokens for the three
 * shapes a function body takes: `function name(…) {`, `(…) => {` (or a
 * concise `=> expression`) and a method `name(…) {`. A function spans
 * from the line of its name or parameters to the line of its closing brace.
 */

/** One function found in a source. */
export interface Unit {
  name: string;
  start: number;
  end: number;
  lines: number;
}

interface Token {
  text: string;
  line: number;
  at: number;
}

// After these, a "/" starts a regular expression, not a division.
const BEFORE_REGEX = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await"]);
// A parenthesized group after these is a condition or a call, not parameters.
const NOT_A_METHOD = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "with",
  "return",
  "typeof",
  "await",
  "new",
  "super",
  "function",
  "yield",
  "void",
  "in",
  "of",
]);
// After these, a "{" in a return type opens an object type, not the body.
const BEFORE_TYPE_BRACE = new Set([":", "|", "&", ",", "<", "(", "[", "=>", "keyof", "typeof", "?", "is"]);

/** Returns `source` with comments, string and template text and regular expressions blanked, line breaks kept. */
export function blankText(source: string): string {
  const out = source.split("");
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k++) if (out[k] !== "\n") out[k] = " ";
  };
  // Each open template's brace depth at its `${`, so a `}` at that depth returns to the template.
  const templates: number[] = [];
  let depth = 0;
  let last = ""; // the last significant character or word, to tell a regex from a division
  let i = 0;
  const template = (): void => {
    // Reads template text from i until "`" (closes) or "${" (opens an expression).
    const from = i;
    while (i < source.length && source[i] !== "`" && !(source[i] === "$" && source[i + 1] === "{")) i += source[i] === "\\" ? 2 : 1;
    blank(from, i);
    if (source[i] === "`") {
      i++;
      last = "`";
    } else {
      templates.push(depth);
      depth++;
      i += 2;
      last = "{";
    }
  };
  while (i < source.length) {
    const c = source[i] ?? "";
    const next = source[i + 1] ?? "";
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const to = end === -1 ? source.length : end;
      blank(i, to);
      i = to;
    } else if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const to = end === -1 ? source.length : end + 2;
      blank(i, to);
      i = to;
    } else if (c === '"' || c === "'") {
      const from = i++;
      while (i < source.length && source[i] !== c && source[i] !== "\n") i += source[i] === "\\" ? 2 : 1;
      blank(from + 1, i);
      i++;
      last = c;
    } else if (c === "`") {
      i++;
      template();
    } else if (c === "/" && (last === "" || /[(,=:[!&|?{};+\-*%<>~^]$/.test(last) || BEFORE_REGEX.has(last))) {
      const from = i++;
      let inClass = false;
      while (i < source.length && source[i] !== "\n" && (inClass || source[i] !== "/")) {
        if (source[i] === "\\") i++;
        else if (source[i] === "[") inClass = true;
        else if (source[i] === "]") inClass = false;
        i++;
      }
      blank(from + 1, i);
      i++;
      last = "/re/";
    } else if (c === "{") {
      depth++;
      last = c;
      i++;
    } else if (c === "}") {
      depth--;
      i++;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        template();
      } else last = c;
    } else if (/[A-Za-z0-9_$]/.test(c)) {
      const from = i;
      while (i < source.length && /[A-Za-z0-9_$]/.test(source[i] ?? "")) i++;
      last = source.slice(from, i);
    } else {
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return out.join("");
}

function tokenize(code: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  const pattern = /\n|[A-Za-z_$][A-Za-z0-9_$]*|=>|\.\.\.|\?\.|[^\s]/g;
  for (const match of code.matchAll(pattern)) {
    if (match[0] === "\n") line++;
    else tokens.push({ text: match[0], line, at: match.index });
  }
  return tokens;
}

const PAIRS = new Map([
  ["(", ")"],
  ["[", "]"],
  ["{", "}"],
]);

/** Returns the index of the token closing the group opened at `open`, or -1. */
function closing(tokens: readonly Token[], open: number): number {
  const stack: string[] = [];
  for (let k = open; k < tokens.length; k++) {
    const text = tokens[k]?.text ?? "";
    const pair = PAIRS.get(text);
    if (pair !== undefined) stack.push(pair);
    else if (text === ")" || text === "]" || text === "}") {
      if (stack.pop() !== text) return -1;
      if (stack.length === 0) return k;
    }
  }
  return -1;
}

/** Returns the index of the last token of the concise arrow body starting at `body`. */
function conciseEnd(tokens: readonly Token[], body: number): number {
  for (let k = body; k < tokens.length; k++) {
    const text = tokens[k]?.text ?? "";
    if (PAIRS.has(text)) {
      k = closing(tokens, k);
      if (k === -1) return -1;
    } else if (text === ";" || text === "," || text === ")" || text === "]" || text === "}") return k - 1;
  }
  return tokens.length - 1;
}

/**
 * Skips an optional return type after the parameters closing at `close`;
 * returns the index of the body's "{" or of "=>", or -1 when neither follows.
 */
function bodyAfter(tokens: readonly Token[], close: number): number {
  let k = close + 1;
  if (tokens[k]?.text === "=>" || tokens[k]?.text === "{") return k;
  if (tokens[k]?.text !== ":") return -1;
  let angles = 0;
  for (k++; k < tokens.length; k++) {
    const text = tokens[k]?.text ?? "";
    const before = tokens[k - 1]?.text ?? "";
    if (text === "<") angles++;
    else if (text === ">") angles--;
    else if (text === "(" || text === "[" || (text === "{" && (angles > 0 || BEFORE_TYPE_BRACE.has(before)))) {
      k = closing(tokens, k);
      if (k === -1) return -1;
    } else if (text === "=>" && before === ")") {
      // A function type, `(): () => void {`: its return type follows.
    } else if (angles === 0 && (text === "{" || text === "=>")) return k;
    else if (angles === 0 && (text === ";" || text === "=" || text === ")" || text === "}" || text === ",")) return -1;
  }
  return -1;
}

/** The name a function is known by: its own, the const, property or method it is assigned to, or "(anonymous)". */
function nameBefore(tokens: readonly Token[], k: number): string {
  const t = (n: number): string => tokens[n]?.text ?? "";
  if (t(k - 1) === "function") return t(k - 2) === "=" || t(k - 2) === ":" ? t(k - 3) : "(anonymous)";
  if (t(k - 2) === "function" || t(k - 2) === "*") return t(k - 1);
  if (/^[A-Za-z_$]/.test(t(k - 1)) && !NOT_A_METHOD.has(t(k - 1))) {
    if (t(k - 2) === "=" || t(k - 2) === ":") return t(k - 3);
    return t(k - 1);
  }
  if (t(k - 1) === "=" || t(k - 1) === ":") return t(k - 2);
  if (t(k - 1) === "async" && (t(k - 2) === "=" || t(k - 2) === ":")) return t(k - 3);
  return "(anonymous)";
}

/** Returns every function of `source` with the lines it spans, in order of their start. */
export function functionUnits(source: string): Unit[] {
  const tokens = tokenize(blankText(source));
  const t = (n: number): string => tokens[n]?.text ?? "";
  const byBody = new Map<number, Unit>();
  const add = (startToken: number, name: string, body: number, end: number): void => {
    const start = tokens[startToken]?.line ?? 0;
    const last = tokens[end]?.line ?? 0;
    const unit = { name, start, end: last, lines: last - start + 1 };
    const known = byBody.get(body);
    if (known === undefined || known.start < start) byBody.set(body, unit);
  };
  // Tokens of a return type already read (`(): () => void {`), not functions themselves.
  const inType = new Set<number>();
  for (let k = 0; k < tokens.length; k++) {
    if (inType.has(k)) continue;
    const text = t(k);
    // `x => {`: a single parameter without parentheses.
    if (/^[A-Za-z_$]/.test(text) && t(k + 1) === "=>" && t(k - 1) !== ":" && !NOT_A_METHOD.has(text)) {
      const body = k + 2;
      add(k, nameBefore(tokens, k), body, t(body) === "{" ? closing(tokens, body) : conciseEnd(tokens, body));
      continue;
    }
    if (text !== "(") continue;
    const close = closing(tokens, k);
    if (close === -1) continue;
    const at = bodyAfter(tokens, close);
    if (at === -1) continue;
    for (let n = close + 1; n < at; n++) inType.add(n);
    const before = t(k - 1);
    const isFunction = before === "function" || t(k - 2) === "function" || (before === ">" && t(k - 2) !== "=");
    const isMethod = /^[A-Za-z_$\]]/.test(before) && !NOT_A_METHOD.has(before);
    if (t(at) === "=>") {
      const body = at + 1;
      add(k, nameBefore(tokens, k), body, t(body) === "{" ? closing(tokens, body) : conciseEnd(tokens, body));
    } else if (isFunction || isMethod) {
      const start = before === "function" ? k - 1 : t(k - 2) === "function" ? k - 2 : isMethod ? k - 1 : k;
      add(start, nameBefore(tokens, k), at, closing(tokens, at));
    }
  }
  return [...byBody.values()].filter((u) => u.end >= u.start).sort((a, b) => a.start - b.start);
}

/** The number of lines of `source`, as `wc -l` counts a file ending in a line break. */
export function lineCount(source: string): number {
  return source.endsWith("\n") ? source.split("\n").length - 1 : source.split("\n").length;
}
