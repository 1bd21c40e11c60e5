// JSON with object keys sorted at every level, so that equal data gives equal text whatever
// order its keys were written in: the basis of every content hash (candidates, run configs,
// cached LM requests).
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}
