// The epoch-shuffled minibatch sampler: each epoch shuffles the training ids once with the
// run's RNG, pads the order to a multiple of the batch size with the least-used ids, and hands
// out consecutive chunks. Successive calls (several tasks in one step) get different chunks;
// nextSliding gives a whole step's chunks while moving the epoch on by one (the reference's pacing).
import type { Rng } from '../core/rng.js';
import type { StepMinibatches } from '../../types.js';

/**
 * A run's default by schedule: batched steps pace minibatches as the reference does ('sliding',
 * bench/README.md, "Sliding minibatches"); an async proposal is a step of one task, where the two
 * rules give the same minibatch, so async keeps the value its run directories always recorded.
 */
export const defaultStepMinibatches = (schedule: 'batched' | 'async'): StepMinibatches => (schedule === 'batched' ? 'sliding' : 'fresh');

export interface SamplerState {
  epoch: number;
  order: number[];
  position: number;
  useCounts: number[];
}

export class EpochShuffledSampler {
  private state: SamplerState;

  constructor(
    readonly size: number,
    readonly batchSize: number,
    state?: SamplerState,
  ) {
    if (size <= 0) throw new RangeError('the trainset is empty');
    if (!Number.isInteger(batchSize) || batchSize <= 0) throw new RangeError(`minibatch size must be a positive integer, got ${batchSize}`);
    this.state = state ? structuredClone(state) : { epoch: -1, order: [], position: 0, useCounts: new Array(size).fill(0) };
  }

  /** The next minibatch of ids in [0, size): a step of one task, fresh or sliding alike. */
  next(rng: Rng): number[] {
    return this.nextSliding(rng, 1)[0] as number[];
  }

  /**
   * The minibatches of a step of `count` tasks under the reference's pacing: the epoch moves on
   * by one chunk, and task j takes the j-th chunk after the step's first, wrapping within the
   * epoch's order (a multiple of the batch size, so no chunk straddles its end).
   */
  nextSliding(rng: Rng, count: number): number[][] {
    if (this.state.position + this.batchSize > this.state.order.length) this.startEpoch(rng);
    const { order, position } = this.state;
    this.state.position = position + this.batchSize;
    return Array.from({ length: count }, (_, j) => {
      const start = (position + j * this.batchSize) % order.length;
      return order.slice(start, start + this.batchSize);
    });
  }

  getState(): SamplerState {
    return structuredClone(this.state);
  }

  private startEpoch(rng: Rng): void {
    const counts = this.state.useCounts;
    const order = rng.shuffle(Array.from({ length: this.size }, (_, i) => i));
    for (const id of order) counts[id] = (counts[id] ?? 0) + 1;
    const padding = (this.batchSize - (order.length % this.batchSize)) % this.batchSize;
    for (let p = 0; p < padding; p++) {
      // Least used so far; ties go to the id met first in this epoch's order.
      let best = order[0] as number;
      for (const id of order) if ((counts[id] ?? 0) < (counts[best] ?? 0)) best = id;
      order.push(best);
      counts[best] = (counts[best] ?? 0) + 1;
    }
    this.state = { epoch: this.state.epoch + 1, order, position: 0, useCounts: counts };
  }
}
