// JSON with object keys sorted at every level, so that equal data gives equal text whatever
// order its keys were written in: the basis of every content hash (candidates, run configs,
// cached LM requests).
export function canonicalJson(value: unknown): string {
  // Only plain objects' keys are reordered: data that holds none (strings, numbers, arrays of
  // them, as a candidate's [name, text] pairs, hashed for every child) is the same text
  // stringified natively, without the replacer called for every value.
  return holdsNoObject(value, 0) ? JSON.stringify(value) : JSON.stringify(value, sortedKeys);
}

/** The replacer: a plain object's entries in key order (arrays keep theirs). */
function sortedKeys(_key: string, v: unknown): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
    : v;
}

/** Strings, finite or not numbers, booleans, null, and arrays of them (no toJSON of their own), a few levels deep. */
function holdsNoObject(value: unknown, depth: number): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (!Array.isArray(value) || depth > 3 || (value as { toJSON?: unknown }).toJSON !== undefined) return false;
  for (const item of value as unknown[]) if (!holdsNoObject(item, depth + 1)) return false;
  return true;
}
