// The simulated-time driver on public XState only: steppingClock tracks a SimulatedClock's timers
// through its calls, runOnSimulatedClock jumps to each, and a bare SimulatedClock is told how to wrap.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, sleep, steppingClock, type SteppingClock } from '../src/clock.js';

describe('steppingClock and runOnSimulatedClock', () => {
  it('knows the earliest pending timer and forgets cleared and fired ones', () => {
    const clock = steppingClock(new SimulatedClock());
    expect(clock.nextDue()).toBe(Infinity);
    const late = clock.setTimeout(() => {}, 50);
    let fired = false;
    clock.setTimeout(() => {
      fired = true;
    }, 20);
    expect(clock.nextDue()).toBe(20);
    clock.set(20);
    expect(fired).toBe(true);
    expect(clock.nextDue()).toBe(50);
    clock.clearTimeout(late);
    expect(clock.nextDue()).toBe(Infinity);
  });

  it('runs timed work to completion in simulated time, in order', async () => {
    const clock = steppingClock(new SimulatedClock());
    const order: string[] = [];
    const work = Promise.all([
      sleep(clock, 3_600_000).then(() => order.push(`an hour at ${clock.now()}`)),
      sleep(clock, 1_000).then(() => order.push(`a second at ${clock.now()}`)),
    ]);
    await runOnSimulatedClock(clock, work);
    expect(order).toEqual(['a second at 1000', 'an hour at 3600000']);
  });

  it('fires a timer whose start + timeout rounds so that now - start falls an ulp short of timeout', async () => {
    // 618.896... + 83.119... = 702.015...; XState then computes 702.015... - 618.896... < 83.119...
    const clock = steppingClock(new SimulatedClock());
    const work = (async () => {
      await sleep(clock, 618.896237490959);
      await sleep(clock, 83.1194802738644);
      return clock.now();
    })();
    expect(await runOnSimulatedClock(clock, work)).toBeCloseTo(702.0157177648234, 9);
  });

  it('says how to wrap a bare SimulatedClock instead of failing obscurely', async () => {
    const bare = new SimulatedClock() as unknown as SteppingClock;
    await expect(runOnSimulatedClock(bare, Promise.resolve(1))).rejects.toThrow(/steppingClock\(new SimulatedClock\(\)\)/);
  });

  it('names a deadlock: work that waits on no timer', async () => {
    const clock = steppingClock(new SimulatedClock());
    await expect(runOnSimulatedClock(clock, new Promise<void>(() => {}))).rejects.toThrow(/deadlock/);
  });
});
