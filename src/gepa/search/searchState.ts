// What the search draws from and advances: the candidate pool, the seeded RNG's state, the
// minibatch sampler's state, the step counter and the merge schedule, all plain values. The
// planner (proposalPlanner.ts) draws from them in a fixed order and returns the states after its
// draws; folds (searchProgress.ts) add to the pool. Made once per run from the settings.
import { initialSamplerState, type SamplerState } from '../strategies/minibatchSampler.js';
import { emptyPool, type CandidatePool } from '../core/candidatePool.js';
import type { ExampleTable } from '../core/exampleTable.js';
import { seededRngState, type RngState } from '../core/rng.js';

/** Merges left to try, whether one is due (a candidate joined since the last), and those tried. */
export interface MergeSchedule {
  left: number;
  due: boolean;
  tried: string[];
}

/** Everything the planner draws from and advances; plain data (the planner returns a new one). */
export interface SearchState {
  pool: CandidatePool;
  /** The RNG's state before the next draw. */
  rng: RngState;
  /** The epoch-shuffled sampler's state before the next minibatch. */
  sampler: SamplerState;
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
    rng: seededRngState(settings.seed),
    sampler: initialSamplerState(table.trainIds.length, settings.minibatchSize),
    step: 0,
    merges: { left: settings.maxMerges, due: false, tried: [] },
    hookFailures: 0,
  };
}
