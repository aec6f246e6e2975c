/*
 * Precedence between patterns: A is more specific than B when A matches a
 * strict subset of B's requests (method and path compared apart, then
 * combined). An equivalent or merely overlapping pair is a conflict, refused
 * at registration: what lets the tree match literal-first and still pick
 * the most specific.
 */
import { SEG_END, SEG_LITERAL, SEG_MULTI, type ParsedPattern, type Segment } from "./pattern.ts";

/** How the request sets of two patterns relate (first relative to second). */
export type Relationship = "equivalent" | "moreSpecific" | "moreGeneral" | "overlaps" | "disjoint";

function combine(a: Relationship, b: Relationship): Relationship {
  if (a === "equivalent") return b;
  if (b === "equivalent") return a;
  if (a === "disjoint" || b === "disjoint") return "disjoint";
  if (a === b) return a;
  return "overlaps";
}

function compareSegments(s1: Segment, s2: Segment): Relationship {
  const m1 = s1.kind === SEG_MULTI;
  const m2 = s2.kind === SEG_MULTI;
  if (m1 && m2) return "equivalent";
  if (m1) return "moreGeneral";
  if (m2) return "moreSpecific";
  // Literals and {$} are concrete; {$} is the literal "end after a slash".
  const c1 = s1.kind === SEG_LITERAL || s1.kind === SEG_END;
  const c2 = s2.kind === SEG_LITERAL || s2.kind === SEG_END;
  if (!c1 && !c2) return "equivalent";
  // A single wildcard never matches the empty end segment.
  if (!c1) return s2.kind === SEG_END ? "disjoint" : "moreGeneral";
  if (!c2) return s1.kind === SEG_END ? "disjoint" : "moreSpecific";
  if (s1.kind !== s2.kind) return "disjoint";
  return s1.value === s2.value ? "equivalent" : "disjoint";
}

/** Compares the paths of two patterns. */
export function comparePaths(p1: ParsedPattern, p2: ParsedPattern): Relationship {
  const a = p1.segments;
  const b = p2.segments;
  let rel: Relationship = "equivalent";
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const s1 = a[i];
    const s2 = b[i];
    if (s1 === undefined || s2 === undefined) return "disjoint";
    rel = combine(rel, compareSegments(s1, s2));
    if (rel === "disjoint") return rel;
  }
  if (a.length === b.length) return rel;
  // Only a pattern ending in a multi wildcard matches more segments.
  if (a.length < b.length && a[a.length - 1]?.kind === SEG_MULTI) return combine(rel, "moreGeneral");
  if (b.length < a.length && b[b.length - 1]?.kind === SEG_MULTI) return combine(rel, "moreSpecific");
  return "disjoint";
}

/** Compares the methods of two patterns; a GET pattern also matches HEAD. */
export function compareMethods(p1: ParsedPattern, p2: ParsedPattern): Relationship {
  if (p1.method === p2.method) return "equivalent";
  if (p1.method === "") return "moreGeneral";
  if (p2.method === "") return "moreSpecific";
  if (p1.method === "GET" && p2.method === "HEAD") return "moreGeneral";
  if (p1.method === "HEAD" && p2.method === "GET") return "moreSpecific";
  return "disjoint";
}

/** Compares two patterns on method and path (hosts are not considered). */
export function comparePatterns(p1: ParsedPattern, p2: ParsedPattern): Relationship {
  const m = compareMethods(p1, p2);
  if (m === "disjoint") return m;
  return combine(m, comparePaths(p1, p2));
}

/** Returns why two patterns conflict, or undefined when they do not. */
export function describeConflict(p1: ParsedPattern, p2: ParsedPattern): string | undefined {
  if (p1.host !== p2.host) return undefined;
  const rel = comparePatterns(p1, p2);
  if (rel === "equivalent") return "both match the same requests";
  if (rel === "overlaps") return "both match some requests and neither is more specific than the other";
  return undefined;
}
