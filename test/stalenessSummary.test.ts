// The staleness distribution reported after a run: hand-computed quantiles and histogram, and
// the CLI summary line that shows it for runs without barriers.
import { describe, expect, it } from 'vitest';
import { formatSummary } from '../src/cli/runSummary.js';
import { formatStaleness, summarizeStaleness } from '../src/report/stalenessSummary.js';
import type { OptimizeResult, ProposalRecord } from '../src/gepa/core/optimizeResult.js';

const of = (...values: number[]) => values.map((staleness) => ({ staleness }));

describe('summarizeStaleness', () => {
  it('gives mean, nearest-rank median and p90, max and a histogram', () => {
    // Sorted: 0 0 1 1 1 2 3 3 5 9 -> mean 25 / 10; median = 5th value (1); p90 = 9th value (5).
    const s = summarizeStaleness(of(3, 0, 1, 9, 1, 2, 0, 5, 1, 3));
    expect(s).toEqual({ proposals: 10, mean: 2.5, median: 1, p90: 5, max: 9, counts: [2, 3, 1, 2, 0, 1, 0, 0, 0, 1] });
    expect(formatStaleness(s)).toBe('mean 2.5, median 1, p90 5, max 9');
  });

  it('is all zeros for a batched run and for no proposals', () => {
    expect(summarizeStaleness(of(0, 0, 0))).toEqual({ proposals: 3, mean: 0, median: 0, p90: 0, max: 0, counts: [3] });
    expect(summarizeStaleness([])).toEqual({ proposals: 0, mean: 0, median: 0, p90: 0, max: 0, counts: [] });
  });
});

describe('the CLI summary', () => {
  const result = (staleness: number[]): OptimizeResult => {
    const proposals = staleness.map((s, i): ProposalRecord => ({ step: i + 1, task: 0, kind: 'reflective', parents: [0], outcome: 'rejected', reason: 'no', staleness: s, reflectionCostUsd: 0 }));
    return {
      candidates: [{ p: 'seed' }], parents: [[]], valScores: [0.5], valSubscores: [[0.5]], bestIndex: 0, bestCandidate: { p: 'seed' }, bestScore: 0.5,
      metricCalls: 10, reflectionCalls: 3, costUsd: 0, discoveryMetricCalls: [1], discoveryElapsedMs: [0], stopReason: 'maxMetricCalls',
      proposals, elapsedMs: 1000, workerUtilization: 0.5,
    };
  };

  it('prints the staleness line when proposals missed pool additions, and not for a batched run', () => {
    expect(formatSummary({ heading: 'run', result: result([0, 2, 4, 1]) })).toContain(
      'staleness (candidates that joined while a proposal ran): mean 1.8, median 1, p90 4, max 4',
    );
    expect(formatSummary({ heading: 'run', result: result([0, 0, 0]) })).not.toContain('staleness');
  });
});
