// The epoch-shuffled minibatch sampler: every id once per epoch, padding with the least-used
// ids, consecutive chunks for consecutive calls, reproducible for a seed, exact save/restore.
import { describe, expect, it } from 'vitest';
import { drawSliding, EpochShuffledSampler, initialSamplerState } from '../src/gepa/strategies/minibatchSampler.js';
import { drawFrom, Rng, seededRngState } from '../src/gepa/core/rng.js';

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const sorted = (xs: number[]): number[] => xs.slice().sort((a, b) => a - b);
const countsOf = (ids: number[], size: number): number[] => {
  const counts = new Array<number>(size).fill(0);
  for (const id of ids) counts[id] = (counts[id] ?? 0) + 1;
  return counts;
};

describe('EpochShuffledSampler', () => {
  it('covers every id exactly once per epoch when the size is a multiple of the batch', () => {
    const sampler = new EpochShuffledSampler(12, 3);
    const rng = new Rng(1);
    for (let epoch = 0; epoch < 3; epoch++) {
      const batches = Array.from({ length: 4 }, () => sampler.next(rng));
      for (const b of batches) expect(b).toHaveLength(3);
      expect(sorted(batches.flat())).toEqual(range(12));
      expect(sampler.getState().epoch).toBe(epoch);
    }
  });

  it('hands out the shuffled order in consecutive chunks', () => {
    const sampler = new EpochShuffledSampler(6, 2);
    const rng = new Rng(3);
    const expectedOrder = new Rng(3).shuffle(range(6)); // the epoch's one shuffle, same draws
    expect([sampler.next(rng), sampler.next(rng), sampler.next(rng)]).toEqual([
      expectedOrder.slice(0, 2),
      expectedOrder.slice(2, 4),
      expectedOrder.slice(4, 6),
    ]);
  });

  it('gives consecutive calls different chunks (no id repeated within an epoch)', () => {
    const sampler = new EpochShuffledSampler(9, 3);
    const rng = new Rng(8);
    const [a, b, c] = [sampler.next(rng), sampler.next(rng), sampler.next(rng)];
    expect(new Set([...a, ...b, ...c]).size).toBe(9);
  });

  it('pads size 5, batch 3 to 6 slots with the first id of the epoch order (all used once: tie)', () => {
    const sampler = new EpochShuffledSampler(5, 3);
    const rng = new Rng(5);
    const order = new Rng(5).shuffle(range(5));
    const first = sampler.next(rng);
    const second = sampler.next(rng);
    expect([...first, ...second]).toEqual([...order, order[0]]);
    const state = sampler.getState();
    expect(state.order).toEqual([...order, order[0]]);
    // Counts after epoch 0: the padding id twice, every other id once.
    expect(state.useCounts).toEqual(range(5).map((id) => (id === order[0] ? 2 : 1)));
  });

  it('pads the next epoch with an id used less than the previous padding id', () => {
    const sampler = new EpochShuffledSampler(5, 3);
    const rng = new Rng(5);
    const epoch0 = [...sampler.next(rng), ...sampler.next(rng)];
    const epoch1 = [...sampler.next(rng), ...sampler.next(rng)];
    const pad0 = epoch0[5] as number;
    const pad1 = epoch1[5] as number;
    // Before padding epoch 1, pad0 has been used 3 times and every other id twice, so the
    // padding is the first id of epoch 1's order other than pad0.
    expect(pad1).not.toBe(pad0);
    expect(pad1).toBe(epoch1.slice(0, 5).find((id) => id !== pad0));
    expect(sorted(epoch1.slice(0, 5))).toEqual(range(5));
    const counts = countsOf([...epoch0, ...epoch1], 5);
    expect(sampler.getState().useCounts).toEqual(counts);
    expect(sorted(counts)).toEqual([2, 2, 2, 3, 3]);
    expect(counts[pad0]).toBe(3);
    expect(counts[pad1]).toBe(3);
  });

  it('keeps use counts within one of each other over many epochs when padding', () => {
    const sampler = new EpochShuffledSampler(7, 3); // 7 ids, 9 slots: 2 padding ids an epoch
    const rng = new Rng(12);
    const all: number[] = [];
    for (let i = 0; i < 3 * 10; i++) all.push(...sampler.next(rng)); // 10 epochs
    const counts = countsOf(all, 7);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(90);
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const run = (seed: number) => {
      const sampler = new EpochShuffledSampler(10, 4);
      const rng = new Rng(seed);
      return Array.from({ length: 8 }, () => sampler.next(rng));
    };
    expect(run(21)).toEqual(run(21));
    expect(run(21)).not.toEqual(run(22));
  });

  it('restores from getState and continues identically', () => {
    const sampler = new EpochShuffledSampler(5, 2);
    const rng = new Rng(9);
    for (let i = 0; i < 4; i++) sampler.next(rng); // mid-way through epoch 1
    const saved = sampler.getState();
    const restored = new EpochShuffledSampler(5, 2, saved);
    const rng2 = new Rng(rng.getState());
    const ahead = Array.from({ length: 10 }, () => sampler.next(rng));
    expect(Array.from({ length: 10 }, () => restored.next(rng2))).toEqual(ahead);
  });

  it('never changes a state in place: one it was built from or handed out stays as it was while it draws on', () => {
    // The sampler shares its state instead of copying it (a copy per plan cost ~14% of an async
    // run's CPU), which is sound only because drawing makes new states.
    const sampler = new EpochShuffledSampler(4, 2);
    const rng = new Rng(2);
    sampler.next(rng);
    const saved = sampler.getState();
    const copy = structuredClone(saved);
    const restored = new EpochShuffledSampler(4, 2, saved);
    const restoredRng = new Rng(rng.getState());
    // Past the end of the epoch: a new one starts (new order, new use counts) in both.
    for (let i = 0; i < 5; i++) {
      sampler.next(rng);
      restored.next(restoredRng);
    }
    expect(saved).toEqual(copy);
    expect(restored.getState()).toEqual(sampler.getState());
    expect(sampler.getState().epoch).toBeGreaterThan(saved.epoch);
  });

  it('fills a batch larger than the set with every id, least-used first', () => {
    const sampler = new EpochShuffledSampler(2, 5);
    const rng = new Rng(4);
    const [x, y] = new Rng(4).shuffle([0, 1]) as [number, number];
    // Counts 1,1 -> x (tie, first in order) -> y (1 < 2) -> x (tie 2,2).
    expect(sampler.next(rng)).toEqual([x, y, x, y, x]);
    const second = sampler.next(rng);
    expect(second).toHaveLength(5);
    expect(sampler.getState().useCounts).toEqual([5, 5]);
  });

  it('rejects an empty trainset and a batch size that is not a positive integer', () => {
    expect(() => new EpochShuffledSampler(0, 3)).toThrow(RangeError);
    expect(() => new EpochShuffledSampler(5, 0)).toThrow(RangeError);
    expect(() => new EpochShuffledSampler(5, 1.5)).toThrow(RangeError);
  });

  it("slides as the reference does: a step moves the epoch one chunk on, task j takes the j-th chunk after the step's first", () => {
    // 12 ids in batches of 3: 4 chunks an epoch. Steps of 3 tasks take chunks 0-2, 1-3, 2-3-0 (wrapping), 3-0-1.
    const sampler = new EpochShuffledSampler(12, 3);
    const rng = new Rng(4);
    const order = new Rng(4).shuffle(range(12));
    const chunk = (c: number) => order.slice(c * 3, c * 3 + 3);
    expect(sampler.nextSliding(rng, 3)).toEqual([chunk(0), chunk(1), chunk(2)]);
    expect(sampler.nextSliding(rng, 3)).toEqual([chunk(1), chunk(2), chunk(3)]);
    expect(sampler.nextSliding(rng, 3)).toEqual([chunk(2), chunk(3), chunk(0)]);
    expect(sampler.nextSliding(rng, 3)).toEqual([chunk(3), chunk(0), chunk(1)]);
    expect(sampler.getState().epoch).toBe(0);
    // The fifth step starts the next epoch with a new shuffle.
    const next = sampler.nextSliding(rng, 1);
    expect(sampler.getState().epoch).toBe(1);
    expect(next[0]).toEqual(sampler.getState().order.slice(0, 3));
  });

  it('with one task a step, slides exactly as it hands out fresh chunks', () => {
    const fresh = new EpochShuffledSampler(7, 3);
    const sliding = new EpochShuffledSampler(7, 3);
    const [a, b] = [new Rng(11), new Rng(11)];
    for (let i = 0; i < 10; i++) expect(sliding.nextSliding(b, 1)).toEqual([fresh.next(a)]);
    expect(sliding.getState()).toEqual(fresh.getState());
  });

  it('as values: drawSliding and drawFrom leave the states they are given unchanged and give the same draws as one long-lived sampler and RNG', () => {
    const cursor = new EpochShuffledSampler(7, 3);
    const rng = new Rng(13);
    let state = initialSamplerState(7, 3);
    let rngState = seededRngState(13);
    for (let step = 0; step < 6; step++) {
      const before = structuredClone(state);
      const rngBefore = rngState;
      const drawn = drawFrom(rngState, (r) => drawSliding(state, 3, r, 2));
      expect(state).toEqual(before);
      expect(rngState).toBe(rngBefore);
      expect(drawn.value.minibatches).toEqual(cursor.nextSliding(rng, 2));
      expect(drawn.state).toEqual(rng.getState());
      expect(JSON.parse(JSON.stringify(drawn.value.state))).toEqual(cursor.getState());
      [state, rngState] = [drawn.value.state, drawn.state];
    }
  });
});
