// Fair tags are weighted by metric calls (src/executors/fairShare.ts): the jobs asked for in one
// turn of the event loop are drawn in one round trip, and each job's tag follows its
// predecessor's calls, so a run sending batch jobs of 3 calls moves its virtual time 3 at a time.
import { describe, expect, it } from 'vitest';
import { FairTags, MAX_PRIORITY } from '../src/executors/fairShare.js';

describe('FairTags', () => {
  it("draws one turn's jobs at once, each tag after its predecessor's calls", async () => {
    const draws: number[] = [];
    const tags = new FairTags(async (calls) => (draws.push(calls), 10));
    expect(await Promise.all([tags.next(3), tags.next(), tags.next(8)])).toEqual([10, 13, 14]);
    expect(draws).toEqual([12]);
  });

  it('never passes BullMQ highest priority number, and a failed draw fails every job of it', async () => {
    const near = new FairTags(async () => MAX_PRIORITY - 1);
    expect(await Promise.all([near.next(2), near.next(2)])).toEqual([MAX_PRIORITY - 1, MAX_PRIORITY]);
    const failing = new FairTags(async () => Promise.reject(new Error('Redis went away')));
    const asks = [failing.next(), failing.next(4)];
    for (const ask of asks) await expect(ask).rejects.toThrow('Redis went away');
  });
});
