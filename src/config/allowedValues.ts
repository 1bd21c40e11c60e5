// Every refusal of an enumerated value lists the values allowed, in one wording: "must be one of
// "a", "b" or "c" (got "x")" (the text: errors/allowedValues.ts, which rooms below config/ use
// too). The config schema builds its enums with oneOf, and gives its unions of values and shapes
// and its unions by `kind` refusingValues / refusingKinds.
import { z } from 'zod';
import { notOneOf } from '../errors/allowedValues.js';

export { allowedValuesText, notOneOf } from '../errors/allowedValues.js';

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
