/*
 * A record's row of its resource's search index (README "Search and export"; schema.ts makes the index, table.ts and
 * history.ts write it through `searchRow`). A user-scoped resource's row starts with its owner's tag, which the trigram
 * tokenizer makes one token, so `"<tag>" AND "<word>"` finds a word among one person's rows (issue 27). A tag shared by
 * two owners (about one in 2⁴⁵ a pair) costs reading both, never a wrong answer: the SQL still checks `owner = ?`.
 */
import { createHash } from "node:crypto";
import type { FieldValue } from "./merge.ts";

/** The first code point of Supplementary Private Use Area-A (U+F0000 to U+FFFFD): no script's text holds these. */
const PRIVATE_USE = 0xf0000;

/** Returns `owner`'s tag: 3 private-use characters from 45 bits of SHA-256(owner). */
export function ownerTag(owner: string): string {
  const hash = createHash("sha256").update(owner).digest();
  return String.fromCodePoint(...[0, 2, 4].map((at) => PRIVATE_USE + (hash.readUInt16BE(at) & 0x7fff)));
}

/**
 * Returns the index row of a record holding `texts` (its searched fields' values, in form order): the non-empty ones
 * one per line, after the tag of `owner` when the resource is user-scoped. Undefined: no row (a shared resource's
 * record without text).
 */
export function searchRow(owner: string | undefined, texts: readonly FieldValue[]): string | undefined {
  const lines = texts.filter((t) => t !== null && t !== "").map(String);
  if (owner !== undefined) lines.unshift(ownerTag(owner));
  return lines.length === 0 ? undefined : lines.join("\n");
}
