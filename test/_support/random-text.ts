/*
 * Deterministic random text for oracle tests: a seeded xorshift picks code
 * points from ASCII (including space, tab, "=", "." and line breaks),
 * Latin-1, Cyrillic, CJK and astral emoji, never lone surrogates.
 */

const POOLS: ReadonlyArray<readonly [number, number]> = [
  [0x20, 0x7e],
  [0x20, 0x20],
  [0x09, 0x09],
  [0x0a, 0x0a],
  [0x2e, 0x2e],
  [0x3d, 0x3d],
  [0xa0, 0xff],
  [0x400, 0x4ff],
  [0x4e00, 0x4fff],
  [0x1f600, 0x1f64f],
];

/** Returns a generator of random strings, reproducible from `seed`. */
export function randomTexts(seed: number): (maxLength: number) => string {
  let x = seed >>> 0 || 1;
  const next = (): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  return (maxLength) => {
    const n = next() % (maxLength + 1);
    let s = "";
    for (let i = 0; i < n; i++) {
      const [lo, hi] = POOLS[next() % POOLS.length] ?? [0x61, 0x61];
      s += String.fromCodePoint(lo + (next() % (hi - lo + 1)));
    }
    return s;
  };
}
