// The worker-slot pool on XState's SimulatedClock: never more than W running, priorities under
// 'finish-first' vs arrival order under 'fifo', exact busy time and intervals for hand-computed
// schedules, errors confined to their task, aborted queued work dropped.
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { runOnSimulatedClock, sleep, steppingClock } from '../src/clock.js';
import { Rng } from '../src/gepa/core/rng.js';
import { WorkerSlots, type SlotInterval, type WorkKind } from '../src/evaluation/workerSlots.js';

function setup(capacity: number, policy?: 'finish-first' | 'start-first' | 'fifo') {
  const clock = steppingClock(new SimulatedClock());
  const intervals: SlotInterval[] = [];
  const slots = new WorkerSlots({ capacity, clock, ...(policy ? { policy } : {}), onInterval: (i) => intervals.push(i) });
  return { clock, slots, intervals };
}

describe('WorkerSlots', () => {
  it('never runs more than its capacity, with many tasks of random durations', async () => {
    const { clock, slots, intervals } = setup(3);
    const rng = new Rng(99);
    const kinds: WorkKind[] = ['valset', 'child', 'merge', 'reflection', 'parent', 'seed'];
    let running = 0;
    let peak = 0;
    let total = 0;
    const work: Promise<number>[] = [];
    for (let i = 0; i < 60; i++) {
      const ms = 1 + rng.int(50);
      total += ms;
      work.push(
        slots.run(rng.pick(kinds), async () => {
          running++;
          peak = Math.max(peak, running);
          await sleep(clock, ms);
          running--;
          return i;
        }),
      );
    }
    const done = await runOnSimulatedClock(clock, Promise.all(work));
    expect(done).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(slots.maxInFlight).toBe(3);
    expect([slots.inFlight, slots.queued]).toEqual([0, 0]);
    expect(slots.busySlotMs()).toBe(total);
    // Each slot's intervals never overlap.
    for (let s = 0; s < 3; s++) {
      const mine = intervals.filter((i) => i.slot === s).sort((a, b) => a.start - b.start);
      for (let k = 1; k < mine.length; k++) expect(mine[k]!.start).toBeGreaterThanOrEqual(mine[k - 1]!.end);
    }
    expect(new Set(intervals.map((i) => i.slot))).toEqual(new Set([0, 1, 2]));
    // Work-conserving: the slots are never all idle while work waits, so the run ends within
    // total / 3 + the longest task.
    expect(clock.now()).toBeLessThanOrEqual(total / 3 + 50);
  });

  it('capacity 2, tasks of 30, 10, 20 ms: exact intervals, 60 busy slot-ms, done at 30', async () => {
    const { clock, slots, intervals } = setup(2);
    const task = (ms: number) => () => sleep(clock, ms).then(() => ms);
    await runOnSimulatedClock(clock, Promise.all([30, 10, 20].map((ms) => slots.run('child', task(ms)))));
    // Slot 0 takes the 30; slot 1 the 10, then at t=10 the 20.
    expect(intervals).toEqual([
      { slot: 1, kind: 'child', start: 0, end: 10 },
      { slot: 0, kind: 'child', start: 0, end: 30 },
      { slot: 1, kind: 'child', start: 10, end: 30 },
    ]);
    expect(slots.busySlotMs()).toBe(60);
    expect(clock.now()).toBe(30);
  });

  it('capacity 2, tasks of 10, 20, 30 ms in that order: the 30 waits for the 10 and ends at 40', async () => {
    const { clock, slots, intervals } = setup(2);
    const busyAt: number[] = [];
    clock.setTimeout(() => busyAt.push(slots.busySlotMs()), 15);
    const task = (ms: number) => () => sleep(clock, ms);
    await runOnSimulatedClock(clock, Promise.all([10, 20, 30].map((ms) => slots.run('valset', task(ms)))));
    expect(intervals).toEqual([
      { slot: 0, kind: 'valset', start: 0, end: 10 },
      { slot: 1, kind: 'valset', start: 0, end: 20 },
      { slot: 0, kind: 'valset', start: 10, end: 40 },
    ]);
    // At t=15: 10 finished + 15 running on slot 1 + 5 running on slot 0.
    expect(busyAt).toEqual([30]);
    expect(slots.busySlotMs()).toBe(60);
    expect(clock.now()).toBe(40);
  });

  it("'finish-first' runs queued valset work before parent work queued earlier", async () => {
    const { clock, slots } = setup(1, 'finish-first');
    const started: string[] = [];
    const job = (name: string) => async () => {
      started.push(name);
      await sleep(clock, 5);
    };
    const all = Promise.all([
      slots.run('seed', job('seed')), // takes the only slot at once
      slots.run('parent', job('parent')),
      slots.run('reflection', job('reflection')),
      slots.run('child', job('child')),
      slots.run('valset', job('valset 1')),
      slots.run('merge', job('merge')),
      slots.run('valset', job('valset 2')),
    ]);
    await runOnSimulatedClock(clock, all);
    // Priority valset 0 < child = merge 1 < reflection 2 < parent 3; arrival order within a level.
    expect(started).toEqual(['seed', 'valset 1', 'valset 2', 'child', 'merge', 'reflection', 'parent']);
  });

  it("'start-first' runs work that leads to a long call first, valset work last", async () => {
    const { clock, slots } = setup(1, 'start-first');
    const started: string[] = [];
    const job = (name: string) => async () => {
      started.push(name);
      await sleep(clock, 5);
    };
    const all = Promise.all([
      slots.run('seed', job('seed')),
      slots.run('valset', job('valset')),
      slots.run('child', job('child')),
      slots.run('reflection', job('reflection')),
      slots.run('merge', job('merge')),
      slots.run('parent', job('parent')),
    ]);
    await runOnSimulatedClock(clock, all);
    // Priority parent 1 < reflection 2 < child = merge 3 < valset 4; arrival order within a level.
    expect(started).toEqual(['seed', 'parent', 'reflection', 'child', 'merge', 'valset']);
  });

  it("'fifo' runs queued work in arrival order whatever its kind", async () => {
    const { clock, slots } = setup(1, 'fifo');
    const started: string[] = [];
    const job = (name: string) => async () => {
      started.push(name);
      await sleep(clock, 5);
    };
    await runOnSimulatedClock(
      clock,
      Promise.all([slots.run('seed', job('seed')), slots.run('parent', job('parent')), slots.run('reflection', job('reflection')), slots.run('valset', job('valset'))]),
    );
    expect(started).toEqual(['seed', 'parent', 'reflection', 'valset']);
  });

  it('a synchronous throw rejects that task only and frees its slot', async () => {
    const { clock, slots, intervals } = setup(1);
    const results = runOnSimulatedClock(
      clock,
      Promise.allSettled([
        slots.run('child', () => {
          throw new Error('boom');
        }),
        slots.run('child', () => sleep(clock, 10).then(() => 'ok')),
        slots.run('child', () => Promise.reject(new Error('async boom'))),
        slots.run('child', () => sleep(clock, 5).then(() => 'also ok')),
      ]),
    );
    const settled = await results;
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['boom', 'ok', 'async boom', 'also ok']);
    expect(intervals.map((i) => [i.start, i.end])).toEqual([
      [0, 0],
      [0, 10],
      [10, 10],
      [10, 15],
    ]);
    expect(slots.inFlight).toBe(0);
  });

  it('drops queued work whose signal is aborted: rejected with the reason, never run', async () => {
    const { clock, slots, intervals } = setup(1);
    const controller = new AbortController();
    let droppedRan = false;
    clock.setTimeout(() => controller.abort(new Error('stopped')), 5);
    const settled = await runOnSimulatedClock(
      clock,
      Promise.allSettled([
        slots.run('parent', () => sleep(clock, 10).then(() => 'first')),
        slots.run(
          'parent',
          async () => {
            droppedRan = true;
            return 'dropped';
          },
          controller.signal,
        ),
        slots.run('parent', () => sleep(clock, 10).then(() => 'third')),
      ]),
    );
    expect(settled.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['first', 'stopped', 'third']);
    expect(droppedRan).toBe(false);
    // The dropped task took no slot time: the third starts as soon as the first ends.
    expect(intervals.map((i) => [i.start, i.end])).toEqual([
      [0, 10],
      [10, 20],
    ]);
  });

  it('rejects work submitted with an already-aborted signal without running it', async () => {
    const { slots } = setup(2);
    let ran = false;
    const reason = new Error('too late');
    await expect(
      slots.run(
        'valset',
        async () => {
          ran = true;
        },
        AbortSignal.abort(reason),
      ),
    ).rejects.toBe(reason);
    expect(ran).toBe(false);
    expect(slots.inFlight).toBe(0);
  });

  it('a job holding 3 slots waits until 3 are free, and work queued behind it does not pass it', async () => {
    const { clock, slots, intervals } = setup(3, 'fifo');
    const task = (ms: number) => () => sleep(clock, ms);
    await runOnSimulatedClock(clock, Promise.all([slots.run('child', task(10)), slots.runHolding('valset', 3, task(20)), slots.run('parent', task(5))]));
    const sorted = [...intervals].sort((a, b) => a.start - b.start || a.slot - b.slot);
    expect(sorted.map(({ kind, start, end }) => ({ kind, start, end }))).toEqual([
      { kind: 'child', start: 0, end: 10 },
      { kind: 'valset', start: 10, end: 30 },
      { kind: 'valset', start: 10, end: 30 },
      { kind: 'valset', start: 10, end: 30 },
      { kind: 'parent', start: 30, end: 35 },
    ]);
    expect(new Set(sorted.filter((i) => i.kind === 'valset').map((i) => i.slot))).toEqual(new Set([0, 1, 2]));
    expect(slots.maxInFlight).toBe(3);
    expect(slots.busySlotMs()).toBe(10 + 60 + 5);
    expect(() => slots.runHolding('valset', 4, task(1))).toThrow(RangeError);
  });

  it('rejects a capacity that is not a positive integer', () => {
    const clock = new SimulatedClock();
    expect(() => new WorkerSlots({ capacity: 0, clock })).toThrow(RangeError);
    expect(() => new WorkerSlots({ capacity: 1.5, clock })).toThrow(RangeError);
  });
});
