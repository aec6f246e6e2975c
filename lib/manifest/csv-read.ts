/*
 * Reading a CSV an import brings (README "Import"): RFC 4180 text in UTF-8, with or without a byte order mark, its
 * delimiter (comma, semicolon or tab) read from the header row, parsed as its bytes arrive so a file is never held
 * whole: the reader holds one row, each cell bounded (`importCellMax`), each row's cells bounded (IMPORT_COLUMNS_MAX).
 */
import { Kind } from "./kinds.ts";
import type { Field } from "./spec.ts";
import { MAX_LENGTH_LIMIT } from "./validate.ts";
import { maxLength } from "./values.ts";

/**
 * The longest cell any import reads, in characters: 100,000, twice the longest text a field may declare
 * (MAX_LENGTH_LIMIT), as the export may write an apostrophe before each of its characters (csv.ts `csvField`).
 */
export const IMPORT_CELL_MAX: number = 2 * MAX_LENGTH_LIMIT;

/** The longest cell an import reads whatever its fields: 8192 characters (a column no field names is read, then ignored). */
export const IMPORT_CELL_MIN: number = 8 * 1024;

/**
 * The longest cell an import of `fields` (the resource's, and the name fields of the records its references name, as
 * the export writes them beside their ids) reads: twice the longest text one of them holds, since the export's formula
 * neutralisation may put an apostrophe before each character (a text of tabs) and the quotes around a cell and a
 * doubled quote are not counted; at least IMPORT_CELL_MIN, at most IMPORT_CELL_MAX. Every value the export wrote of a
 * valid record is read back; the file's own bound (IMPORT_MAX_BYTES) bounds a row's memory whatever its cells.
 */
export function importCellMax(fields: readonly Field[]): number {
  const texts = fields.filter((f) => TEXTS.includes(f.Kind));
  const longest = Math.max(0, ...texts.map((f) => 2 * maxLength(f)));
  return Math.min(IMPORT_CELL_MAX, Math.max(IMPORT_CELL_MIN, longest));
}

// The kinds whose value is text a person typed, as long as `maxLength` allows; every other kind's cell is short (an id, a number, a date).
const TEXTS: readonly string[] = [Kind.Text, Kind.Textarea, Kind.Email, Kind.URL];

/** The most cells a row of an import may hold: 256. */
export const IMPORT_COLUMNS_MAX: number = 256;

/** The delimiters an import recognises in the header row; the most frequent outside quotes wins, a comma when none. */
export const IMPORT_DELIMITERS: readonly string[] = [",", ";", "\t"];

/** What is wrong with a row as text, before any field reads it. */
export type RowProblem = "cell_too_long" | "columns" | "quote";

/** One row of the file: its cells and its number as a spreadsheet shows it (the header is row 1; a quoted line break stays in its row). */
export interface CSVRow {
  readonly cells: string[];
  readonly line: number;
  readonly problem?: RowProblem | undefined;
}

/** The file is no UTF-8 text, or its header row is missing or unreadable: nothing of it can be read. */
export class CSVRefused extends Error {
  /** Why, as the catalogs word it: `resource.import.refused.<reason>`, with `args`. */
  readonly reason: "not_utf8" | "header_long" | "no_header" | "twice";
  readonly args: Record<string, string | number>;
  constructor(reason: CSVRefused["reason"], message: string, args: Record<string, string | number> = {}) {
    super(message);
    this.reason = reason;
    this.args = args;
  }
}

/**
 * OWASP "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection): the apostrophe the export (csv.ts
 * `csvField`) put before a formula character, at a cell's start or after a separator inside it, is taken off again;
 * nothing else of a cell is changed, and no cell is ever evaluated: "=1+1" is kept as that text.
 */
const NEUTRALISED = /(^|[,;\t\r\n])'(?='*[=+\-@\t\r\0])/g;

/** `cell` as the export's source held it: its neutralising apostrophes removed (`NEUTRALISED`). */
export function unneutralised(cell: string): string {
  return cell.replace(NEUTRALISED, "$1");
}

/** The delimiter of `header` (the first row's text): the one of IMPORT_DELIMITERS most frequent outside quotes, a comma when none. */
export function detectDelimiter(header: string): string {
  const counts = new Map(IMPORT_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const c of header) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && counts.has(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return [...counts].reduce((best, next) => (next[1] > best[1] ? next : best), [",", 0])[0];
}

/** A streaming RFC 4180 parser: `push` text as it is decoded, then `end`; each returns the rows it completed. */
class RowParser {
  readonly #delimiter: string;
  readonly #cellMax: number;
  #cells: string[] = [];
  #cell = "";
  #quoted = false;
  // After the closing quote of a quoted cell: a quote doubles it, a delimiter or line break ends the cell.
  #closed = false;
  // The row has begun (a row of one empty cell is no blank row), the cell has begun (a quote opens only a cell's first
  // character), and a CR was just read (its LF belongs to it).
  #started = false;
  #begun = false;
  #afterCR = false;
  #problem: RowProblem | undefined;
  #line = 0;

  constructor(delimiter: string, cellMax: number) {
    this.#delimiter = delimiter;
    this.#cellMax = cellMax;
  }

  push(text: string): CSVRow[] {
    const rows: CSVRow[] = [];
    for (const c of text) {
      if (this.#afterCR) {
        this.#afterCR = false;
        if (c === "\n") continue;
      }
      if (this.#quoted) {
        if (c === '"') this.#quoted = false;
        else this.#add(c);
        if (c === '"') this.#closed = true;
        continue;
      }
      if (c === '"' && this.#closed) {
        // RFC 4180 §2.7: a doubled quote inside a quoted cell is one quote.
        this.#add('"');
        this.#quoted = true;
        this.#closed = false;
      } else if (c === '"' && !this.#begun) {
        this.#quoted = true;
        this.#started = true;
        this.#begun = true;
      } else if (c === this.#delimiter) {
        this.#endCell();
        this.#started = true;
      } else if (c === "\n" || c === "\r") {
        this.#afterCR = c === "\r";
        const row = this.#endRow();
        if (row !== undefined) rows.push(row);
      } else {
        // RFC 4180 §2.5, §2.6: a quoted cell ends with its quote; text after it is a malformed row.
        if (this.#closed) this.#problem ??= "quote";
        this.#add(c);
        this.#started = true;
        this.#begun = true;
      }
    }
    return rows;
  }

  end(): CSVRow[] {
    // The body ends inside a quoted cell: the quote was never closed.
    if (this.#quoted) this.#problem ??= "quote";
    const row = this.#endRow();
    return row === undefined ? [] : [row];
  }

  #add(c: string): void {
    if (this.#cell.length < this.#cellMax) this.#cell += c;
    else this.#problem ??= "cell_too_long";
  }

  #endCell(): void {
    if (this.#cells.length < IMPORT_COLUMNS_MAX) this.#cells.push(this.#cell);
    else this.#problem ??= "columns";
    this.#cell = "";
    this.#closed = false;
    this.#begun = false;
  }

  // A row ends; a blank one (no character) is counted, as a spreadsheet shows it, and not returned.
  #endRow(): CSVRow | undefined {
    this.#line += 1;
    const blank = this.#cells.length === 0 && this.#cell === "" && !this.#started && !this.#quoted;
    if (!blank) this.#endCell();
    const row = blank ? undefined : { cells: this.#cells, line: this.#line, problem: this.#problem };
    this.#cells = [];
    this.#started = false;
    this.#closed = false;
    this.#quoted = false;
    this.#problem = undefined;
    return row;
  }
}

/**
 * The rows of a CSV arriving as `pieces` (bytes), header first, a cell at most `cellMax` characters (`importCellMax`):
 * decoded as UTF-8 (a byte order mark dropped), the delimiter read from the header (`detectDelimiter`). Throws
 * CSVRefused for bytes that are not UTF-8 or a first line longer than 4 × IMPORT_CELL_MIN characters.
 */
export async function* csvRows(pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, cellMax: number): AsyncGenerator<CSVRow> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (bytes?: Uint8Array): string => {
    try {
      return bytes === undefined ? decoder.decode() : decoder.decode(bytes, { stream: true });
    } catch {
      throw new CSVRefused("not_utf8", "the file is not UTF-8 text");
    }
  };
  let parser: RowParser | undefined;
  // Text before the header's end, to read its delimiter; bounded by the longest header a parser would accept.
  let head = "";
  const headMax = IMPORT_CELL_MIN * 4;
  const first = (text: string): CSVRow[] => {
    head += text;
    const end = head.search(/[\r\n]/);
    if (end < 0 && head.length <= headMax) return [];
    if (end < 0) throw new CSVRefused("header_long", `the header row is longer than ${headMax} characters`, { max: headMax });
    parser = new RowParser(detectDelimiter(head.slice(0, end)), cellMax);
    const rows = parser.push(head);
    head = "";
    return rows;
  };
  for await (const piece of pieces) {
    const text = decode(piece);
    yield* parser === undefined ? first(text) : parser.push(text);
  }
  const rest = decode();
  if (parser === undefined) {
    parser = new RowParser(detectDelimiter(head + rest), cellMax);
    yield* parser.push(head + rest);
  } else yield* parser.push(rest);
  yield* parser.end();
}

/** The rows of `text`, as `csvRows` reads them (an agent's CSV, given whole within the tools' body limit, so read at once). */
export function csvTextRows(text: string, cellMax: number): CSVRow[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const end = body.search(/[\r\n]/);
  const parser = new RowParser(detectDelimiter(end < 0 ? body : body.slice(0, end)), cellMax);
  return [...parser.push(body), ...parser.end()];
}
