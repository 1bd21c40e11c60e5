// The epoch-shuffled minibatch sampler: each epoch shuffles the training ids once with the
// run's RNG, pads the order to a multiple of the batch size with the least-used ids, and hands
// out consecutive chunks. Successive calls (several tasks in one step) get different chunks;
// nextSliding gives a whole step's chunks while moving the epoch on by one (the reference's pacing).
import type { Rng } from '../core/rng.js';
import type { StepMinibatches } from '../../settingValues.js';

/**
 * A run's default by schedule: batched steps pace minibatches as the reference does ('sliding',
 * bench/README.md, "Sliding minibatches"); an async proposal is a step of one task, where the two
 * rules give the same minibatch, so async keeps the value its run directories always recorded.
 */
export const defaultStepMinibatches = (schedule: 'batched' | 'async'): StepMinibatches => (schedule === 'batched' ? 'sliding' : 'fresh');

/** A value: nothing changes one in place (drawSliding makes a new one), so it is shared, never copied. */
export interface SamplerState {
  readonly epoch: number;
  readonly order: readonly number[];
  readonly position: number;
  readonly useCounts: readonly number[];
}

/** A sampler over `size` ids before its first epoch (checks the size and the batch size). */
export function initialSamplerState(size: number, batchSize: number): SamplerState {
  if (size <= 0) throw new RangeError('the trainset is empty');
  if (!Number.isInteger(batchSize) || batchSize <= 0) throw new RangeError(`minibatch size must be a positive integer, got ${batchSize}`);
  return { epoch: -1, order: [], position: 0, useCounts: new Array(size).fill(0) };
}

/**
 * The minibatches of a step of `count` tasks under the reference's pacing: the epoch moves on by
 * one chunk, and task j takes the j-th chunk after the step's first, wrapping within the epoch's
 * order (a multiple of the batch size, so no chunk straddles its end). Pure: `state` is not
 * changed; the answer holds the state after the draw (the RNG is drawn from only when an epoch starts).
 */
export function drawSliding(state: SamplerState, batchSize: number, rng: Rng, count: number): { state: SamplerState; minibatches: number[][] } {
  const current = state.position + batchSize > state.order.length ? startEpoch(state, batchSize, rng) : state;
  const { order, position } = current;
  // A loop, not Array.from with a callback: this runs at every proposal.
  const minibatches: number[][] = [];
  for (let j = 0; j < count; j++) {
    const start = (position + j * batchSize) % order.length;
    minibatches.push(order.slice(start, start + batchSize));
  }
  return { state: { ...current, position: position + batchSize }, minibatches };
}

/** The next epoch: the ids shuffled once, padded to a multiple of the batch size with the least-used ids. */
function startEpoch(state: SamplerState, batchSize: number, rng: Rng): SamplerState {
  const counts = state.useCounts.slice();
  const order = rng.shuffle(Array.from({ length: counts.length }, (_, i) => i));
  for (const id of order) counts[id] = (counts[id] ?? 0) + 1;
  const padding = (batchSize - (order.length % batchSize)) % batchSize;
  for (let p = 0; p < padding; p++) {
    // Least used so far; ties go to the id met first in this epoch's order.
    let best = order[0] as number;
    for (const id of order) if ((counts[id] ?? 0) < (counts[best] ?? 0)) best = id;
    order.push(best);
    counts[best] = (counts[best] ?? 0) + 1;
  }
  return { epoch: state.epoch + 1, order, position: 0, useCounts: counts };
}

/**
 * The sampler as an object that keeps its state (drawSliding over it), for callers that draw one
 * step at a time. A SamplerState is a value: drawSliding never changes one in place (a new epoch
 * makes new arrays, a draw a new object sharing them), so the state is taken and handed out by
 * reference. Cloning it cost ~14% of an async run's CPU at a valset of 20 (it is restored and
 * read once per plan; bench/README.md, "Where the time goes").
 */
export class EpochShuffledSampler {
  private state: SamplerState;

  constructor(
    readonly size: number,
    readonly batchSize: number,
    state?: SamplerState,
  ) {
    // A fresh state only when none is given: the planner restores the sampler at every plan.
    this.state = state ?? initialSamplerState(size, batchSize);
  }

  /** The next minibatch of ids in [0, size): a step of one task, fresh or sliding alike. */
  next(rng: Rng): number[] {
    return this.nextSliding(rng, 1)[0] as number[];
  }

  /** A step's minibatches under the reference's pacing (drawSliding). */
  nextSliding(rng: Rng, count: number): number[][] {
    const drawn = drawSliding(this.state, this.batchSize, rng, count);
    this.state = drawn.state;
    return drawn.minibatches;
  }

  /** The state now (a value: not to be changed in place). */
  getState(): SamplerState {
    return this.state;
  }
}
