// A worker's --concurrency counts metric calls (src/worker/callIntake.ts): at most that many run
// at once, and jobs are taken only while fewer calls are held, as many as fit in the calls lacking
// at the size of the jobs seen lately (none when less than one job lacks). A job per call keeps BullMQ's own count.
import { describe, expect, it } from 'vitest';
import { CallIntake } from '../src/worker/callIntake.js';

describe('CallIntake', () => {
  it('with a job per call, holds as many jobs as calls allowed', () => {
    const intake = new CallIntake(4);
    expect(intake.jobsWanted()).toBe(4);
    expect(intake.took(1)).toBe(4);
    expect(intake.took(1)).toBe(4);
    expect(intake.done(1)).toBe(4);
  });

  it('takes no job while it holds as many calls as allowed, and sizes its intake by the jobs seen', () => {
    const intake = new CallIntake(32);
    // A valset slice of 30 examples: 2 calls lacking, less than a job at the running mean size
    // (~8: 1, then 30 weighted 1/4): no job more, whose calls would wait here while other workers idle.
    expect(intake.took(30)).toBe(1);
    // A minibatch of 3 taken anyway (BullMQ asked for it before): 33 calls held, no more jobs than the 2 held.
    expect(intake.took(3)).toBe(2);
    expect(intake.calls).toBe(33);
    // The slice done: 29 lacking at a running mean size of ~6.9 (1, then 30 and 3 weighted 1/4) -> 4 jobs more.
    expect(intake.done(30)).toBe(5);
    expect(intake.done(3)).toBe(4);
  });

  it('runs at most `limit` calls at once, the others in their order of arrival', async () => {
    const intake = new CallIntake(2);
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const calls = [0, 1, 2, 3].map((i) =>
      intake.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(i);
            releases[i] = () => resolve(i);
          }),
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    releases[1]!();
    expect(await calls[1]).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    releases[0]!();
    releases[2]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2, 3]);
    releases[3]!();
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3]);
  });

  it('a call that throws gives its place to the next', async () => {
    const intake = new CallIntake(1);
    const failing = intake.run(() => Promise.reject(new Error('no')));
    const next = intake.run(() => Promise.resolve('yes'));
    await expect(failing).rejects.toThrow('no');
    expect(await next).toBe('yes');
  });
});
