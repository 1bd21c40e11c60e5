// Every refusal of an enumerated value lists the values allowed, in one wording: "must be one of
// "a", "b" or "c" (got "x")". The config schema builds its enums with oneOf, and gives its unions
// of values and shapes and its unions by `kind` refusingValues / refusingKinds; the command's
// stopWhen names and any other check of a name say it with notOneOf.
import { z } from 'zod';

/** A value as a user writes it in JSON or TypeScript: strings quoted, false bare, shapes as given. */
const shown = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' && value !== null && 'shape' in value ? String((value as { shape: string }).shape) : String(value));

/** `"a", "b" or "c"`: the values allowed (a shape, `{ shape: '{ topK: n }' }`, stands as written). */
export function allowedValuesText(values: readonly unknown[]): string {
  const parts = values.map(shown);
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

/** What a value that is none of `values` is told: `must be one of "a" or "b" (got "x")`. */
export function notOneOf(values: readonly unknown[], got: unknown): string {
  const input = got === undefined ? 'nothing' : typeof got === 'object' && got !== null ? JSON.stringify(got) : typeof got === 'string' ? JSON.stringify(got) : String(got);
  return `must be one of ${allowedValuesText(values)} (got ${input})`;
}

/** z.enum whose refusal lists the values allowed. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => notOneOf(values, issue.input) });
}

/**
 * The error param of a union of values and shapes (`false | 'memory' | 'disk'`, `'all' | 'best' |
 * { topK }`): a value that is none of them is told them all; an object that matches a shape in
 * part is told what is wrong in it.
 */
export const refusingValues = (allowed: readonly unknown[]) => ({
  error: (issue: { input?: unknown }) => (typeof issue.input === 'object' && issue.input !== null ? undefined : notOneOf(allowed, issue.input)),
});

/** The error param of a discriminated union on `kind`: an unknown kind is told the kinds allowed. */
export const refusingKinds = (kinds: readonly string[]) => ({
  error: (issue: { code?: string; input?: unknown; discriminator?: unknown }) =>
    issue.code === 'invalid_union' && issue.discriminator !== undefined ? notOneOf(kinds, (issue.input as { kind?: unknown } | undefined)?.kind) : undefined,
});
