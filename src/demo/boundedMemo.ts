// A bounded memo for the simulated models' prompt parsers: the optimizer sends the same texts
// many times, so each parse is kept, the oldest entry evicted first once the limit is reached.

export function boundedMemo<T>(compute: (key: string) => T, limit = 2048): (key: string) => T {
  const cache = new Map<string, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      value = compute(key);
      if (cache.size >= limit) cache.delete(cache.keys().next().value as string);
      cache.set(key, value);
    }
    return value;
  };
}
