// Choosing the parent of a proposal from the pool: frequency-weighted Pareto sampling (each
// non-dominated candidate weighted by the number of fronts it is best on), current-best, or
// epsilon-greedy. All draws go through the run's RNG.
import { DEFAULT_TIE_ORDER, removeDominated, type Fronts } from '../core/paretoFront.js';
import type { Rng } from '../core/rng.js';
import { argmaxMean } from '../core/scores.js';
import type { ParentSelectionStrategy, TieOrder } from '../../settingValues.js';

export const EPSILON = 0.1;

// A pool's fronts and scores are fixed until a candidate joins: memoize the list on them.
const listMemo = new WeakMap<Fronts, { meanScores: ReadonlyArray<number>; tieOrder: TieOrder; list: number[] }>();

/** Each surviving candidate once per front it is on, ascending: the list Pareto sampling draws from. */
export function paretoSamplingList(fronts: Fronts, meanScores: ReadonlyArray<number>, tieOrder: TieOrder = DEFAULT_TIE_ORDER): number[] {
  const memo = listMemo.get(fronts);
  if (memo && memo.meanScores === meanScores && memo.tieOrder === tieOrder) return memo.list;
  const list = buildSamplingList(fronts, meanScores, tieOrder);
  listMemo.set(fronts, { meanScores, tieOrder, list });
  return list;
}

/**
 * The candidates Pareto sampling draws from (the non-dominated ones on some front), ascending,
 * each once: gepa's `new_front`. Reads the memoized sampling list, which the next plan reuses.
 */
export function paretoFrontMembers(fronts: Fronts, meanScores: ReadonlyArray<number>, tieOrder: TieOrder = DEFAULT_TIE_ORDER): number[] {
  // The sampling list is ascending, so its distinct values are too.
  return [...new Set(paretoSamplingList(fronts, meanScores, tieOrder))];
}

function buildSamplingList(fronts: Fronts, meanScores: ReadonlyArray<number>, tieOrder: TieOrder): number[] {
  const counts: number[] = [];
  for (const front of removeDominated(fronts, meanScores, tieOrder)) for (const c of front) counts[c] = (counts[c] ?? 0) + 1;
  const list: number[] = [];
  counts.forEach((n, c) => {
    for (let k = 0; k < n; k++) list.push(c);
  });
  return list;
}

export interface SelectionView {
  fronts: Fronts;
  meanScores: ReadonlyArray<number>;
  /** Default DEFAULT_TIE_ORDER. */
  tieOrder?: TieOrder;
}

/**
 * `busy[c]`: proposals in flight from candidate `c` (async). Pareto sampling then weighs each
 * entry by 1 / (1 + busy[c]), so concurrent proposals spread over the front instead of piling on
 * one parent whose children would compete with each other (as ShinkaEvolve weighs its parents).
 */
export function selectParent(strategy: ParentSelectionStrategy, view: SelectionView, rng: Rng, busy?: ReadonlyArray<number>): number {
  switch (strategy) {
    case 'pareto': {
      const list = paretoSamplingList(view.fronts, view.meanScores, view.tieOrder);
      if (list.length === 0) return argmaxMean(view.meanScores);
      return busy && list.some((c) => (busy[c] ?? 0) > 0) ? weightedPick(list, (c) => 1 / (1 + (busy[c] ?? 0)), rng) : rng.pick(list);
    }
    case 'current-best':
      return argmaxMean(view.meanScores);
    case 'epsilon-greedy':
      return rng.next() < EPSILON ? rng.int(view.meanScores.length) : argmaxMean(view.meanScores);
  }
}

/** One item drawn with probability proportional to its weight (one RNG draw). */
function weightedPick(items: readonly number[], weight: (item: number) => number, rng: Rng): number {
  const weights = items.map(weight);
  let u = rng.next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < items.length; i++) {
    u -= weights[i] as number;
    if (u < 0) return items[i] as number;
  }
  return items[items.length - 1] as number;
}
