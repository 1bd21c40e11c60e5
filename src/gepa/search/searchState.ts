// What the search draws from and advances: the candidate pool, the seeded RNG, the minibatch
// sampler, the step counter and the merge schedule. The planner (proposalPlanner.ts) draws from
// it in a fixed order; folds (searchProgress.ts) add to its pool. Made once per run from the settings.
import { EpochShuffledSampler } from '../strategies/minibatchSampler.js';
import { emptyPool, type CandidatePool } from '../core/candidatePool.js';
import type { ExampleTable } from '../core/exampleTable.js';
import { Rng } from '../core/rng.js';

/** Merges left to try, whether one is due (a candidate joined since the last), and those tried. */
export interface MergeSchedule {
  left: number;
  due: boolean;
  tried: string[];
}

/** Everything the planner draws from and advances. The RNG and the sampler are advanced in place. */
export interface SearchState {
  pool: CandidatePool;
  rng: Rng;
  sampler: EpochShuffledSampler;
  /** The last step (batched) or proposal (async) number given out. */
  step: number;
  merges: MergeSchedule;
  /** Proposals in a row that the planning hooks failed to plan (reset by any launch). */
  hookFailures: number;
}

export interface SearchSettings {
  seed: number;
  minibatchSize: number;
  maxMerges: number;
  trackBestOutputs: boolean;
}

/** The state before the seed is evaluated: an empty pool, the RNG at `seed`, the sampler over the trainset. */
export function initialSearchState(settings: SearchSettings, table: Pick<ExampleTable<unknown>, 'trainIds'>): SearchState {
  return {
    pool: emptyPool({ trackBestOutputs: settings.trackBestOutputs }),
    rng: new Rng(settings.seed),
    sampler: new EpochShuffledSampler(table.trainIds.length, settings.minibatchSize),
    step: 0,
    merges: { left: settings.maxMerges, due: false, tried: [] },
    hookFailures: 0,
  };
}
