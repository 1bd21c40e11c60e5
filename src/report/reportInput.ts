// What renderReport needs, checked before a line of HTML is built: a result read back from a
// file or assembled by hand may lack a field or hold one of the wrong type, and that must be a
// clear error naming the field, not a TypeError from deep inside a chart. Extra fields are fine.
import { z } from 'zod';
import { ConfigError, formatZodError } from '../errors/configError.js';

const finite = z.number().finite();
const count = z.number().int().nonnegative();
// Named texts, or a string artifact's text (optimizeAnything with a string seed).
const candidate = z.union([z.record(z.string(), z.string()), z.string()]);

const resultSchema = z.looseObject({
  candidates: z.array(candidate).min(1, 'the report needs at least the seed candidate'),
  parents: z.array(z.array(count)),
  valScores: z.array(finite),
  valSubscores: z.array(z.array(finite)),
  bestIndex: count,
  bestCandidate: candidate,
  bestScore: finite,
  metricCalls: count,
  reflectionCalls: count,
  costUsd: z.number().nonnegative(),
  discoveryMetricCalls: z.array(z.number()),
  discoveryElapsedMs: z.array(z.number()),
  stopReason: z.string(),
  proposals: z.array(z.looseObject({ outcome: z.string(), parents: z.array(count), staleness: z.number() })),
  elapsedMs: z.number().nonnegative(),
  workerUtilization: finite,
});

const reportInputSchema = z.looseObject({
  title: z.string(),
  result: resultSchema,
  workers: z.number().int().positive(),
  schedule: z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('batched'), parents: z.number().int().positive(), perParent: z.number().int().positive() }),
    z.looseObject({ kind: z.literal('async'), inFlight: z.number().int().positive() }),
  ]),
  minibatchSize: z.number().int().positive(),
  budget: z.number().optional(),
  slotIntervals: z.array(z.looseObject({ slot: count, start: z.number(), end: z.number(), kind: z.string() })),
  runStartedAt: z.number(),
  inspection: z.array(z.unknown()).optional(),
  facts: z.array(z.looseObject({ label: z.string(), value: z.string(), sub: z.string().optional() })).optional(),
  observedFrom: z.enum(['this process', 'the run log']).optional(),
});

/** Throws ConfigError naming every field that is missing or of the wrong type. */
export function checkReportInput(input: unknown): void {
  const parsed = reportInputSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(`invalid report input: ${formatZodError(parsed.error)}`);
  const { result } = parsed.data;
  const n = result.candidates.length;
  // Per-candidate arrays are read by index: a length that disagrees is a damaged result.
  for (const field of ['parents', 'valScores', 'valSubscores', 'discoveryMetricCalls', 'discoveryElapsedMs'] as const) {
    if (result[field].length !== n) throw new ConfigError(`invalid report input: result.${field}: ${result[field].length} entries for ${n} candidates`);
  }
  if (result.bestIndex >= n) throw new ConfigError(`invalid report input: result.bestIndex: ${result.bestIndex} is not a candidate (${n} candidates)`);
}
