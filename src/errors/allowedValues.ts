// How a refused enumerated value is told the values allowed, in one wording for every room:
// "must be one of "a", "b" or "c" (got "x")". Text only (the config schema's zod helpers build on
// it: config/allowedValues.ts). Room errors/ (below every room): any room may import it; it imports none.

/** A value as a user writes it in JSON or TypeScript: strings quoted, false bare, a shape (`{ shape: '{ topK: n }' }`) as written. */
const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' && value !== null && 'shape' in value ? String((value as { shape: string }).shape) : String(value));

/** `"a", "b" or "c"`: the values allowed. */
export function allowedValuesText(values: readonly unknown[]): string {
  const parts = values.map(shown);
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

/** What a value that is none of `values` is told: `must be one of "a" or "b" (got "x")`. */
export function notOneOf(values: readonly unknown[], got: unknown): string {
  const input = got === undefined ? 'nothing' : typeof got === 'object' && got !== null ? JSON.stringify(got) : typeof got === 'string' ? JSON.stringify(got) : String(got);
  return `must be one of ${allowedValuesText(values)} (got ${input})`;
}
