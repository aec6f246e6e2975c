/*
 * A bounded memo for answers that cost more to work out than to keep (a locale's direction, an Intl formatter, a
 * currency's digits): made once per key, then read. A caller may pass any text as a key, so past `kept` entries the
 * table starts again rather than grow.
 */

/** Returns `cache`'s value for `key`, made by `make` the first time; past `kept` entries the cache starts again. */
export function remembered<V>(cache: Map<string, V>, key: string, make: () => V, kept: number): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= kept) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}
