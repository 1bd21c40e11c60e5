// The staleness distribution of a run: for each proposal, how many candidates joined the pool
// between the moment its parent was drawn and the moment it finished. Zero for every batched
// proposal (a step's frontier is frozen); in an async run it measures how much of the pool's
// progress a proposal could not see, the price of having no barrier.
import type { ProposalRecord } from '../gepa/core/optimizeResult.js';

/** The distribution of proposals' staleness (ProposalRecord.staleness) over a run. */
export interface StalenessSummary {
  /** Proposals counted. */
  proposals: number;
  /** Mean staleness. */
  mean: number;
  /** Median (nearest rank). */
  median: number;
  /** 90th percentile (nearest rank). */
  p90: number;
  /** Largest staleness. */
  max: number;
  /** counts[s] = proposals with staleness s. */
  counts: number[];
}

/** The value below which `q` of the sorted values lie (nearest rank). */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** How stale a run's proposals were: 0 for every batched proposal; in an async run, pool additions it could not see. */
export function summarizeStaleness(proposals: readonly Pick<ProposalRecord, 'staleness'>[]): StalenessSummary {
  const values = proposals.map((p) => p.staleness).sort((a, b) => a - b);
  const counts: number[] = [];
  for (const s of values) counts[s] = (counts[s] ?? 0) + 1;
  return {
    proposals: values.length,
    mean: values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length,
    median: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    max: values[values.length - 1] ?? 0,
    counts: Array.from(counts, (c) => c ?? 0),
  };
}

/** "mean 2.4, median 2, p90 5, max 9" */
export function formatStaleness(s: StalenessSummary): string {
  return `mean ${s.mean.toFixed(1)}, median ${s.median}, p90 ${s.p90}, max ${s.max}`;
}
