// batchJobs 'auto' sizes batch jobs from the workers' beats: the smallest live worker's
// concurrency; unknown (a job per call) with no live worker or one that does not say it; lost
// workers (beats past their deadline) do not count. A batch is split evenly into jobs of at most that.
import { describe, expect, it } from 'vitest';
import { chunkPlaces, fleetJobSize } from '../src/executors/batchJobSize.js';
import { parseBeats, type WorkerBeat } from '../src/executors/workerBeats.js';

const policy = { workerLostMs: 500, overdueFloorMs: 2000, overdueFactor: 5 };
const fleet = (entries: Record<string, Partial<WorkerBeat>>) => new Map(Object.entries(entries).map(([name, b]) => [name, { ageMs: 50, gapMs: 100, ...b }]));

describe('fleetJobSize', () => {
  it('is the smallest live worker concurrency', () => {
    expect(fleetJobSize(fleet({ a: { concurrency: 32 }, b: { concurrency: 8 }, c: { concurrency: 16 } }), policy)).toBe(8);
    expect(fleetJobSize(fleet({ a: { concurrency: 1 } }), policy)).toBe(1);
  });
  it('leaves out lost workers, and is unknown with none live or one that does not say', () => {
    expect(fleetJobSize(fleet({ a: { concurrency: 32 }, b: { concurrency: 2, ageMs: 900 } }), policy)).toBe(32);
    expect(fleetJobSize(fleet({ b: { concurrency: 2, ageMs: 900 } }), policy)).toBeUndefined();
    expect(fleetJobSize(new Map(), policy)).toBeUndefined();
    expect(fleetJobSize(fleet({ a: { concurrency: 32 }, old: {} }), policy)).toBeUndefined();
  });
  it('reads the concurrency a beat carries (0 from a worker that does not say it)', () => {
    const reading = parseBeats(['1000', 'a', '990', '100', '32', 'old', '950', '120', '0']);
    expect(reading.workers.get('a')).toEqual({ ageMs: 10, gapMs: 100, concurrency: 32 });
    expect(reading.workers.get('old')).toEqual({ ageMs: 50, gapMs: 120 });
  });
});

describe('chunkPlaces', () => {
  it('splits a batch into consecutive, even chunks of at most the size', () => {
    expect(chunkPlaces(30, 16)).toEqual([Array.from({ length: 15 }, (_, i) => i), Array.from({ length: 15 }, (_, i) => 15 + i)]);
    expect(chunkPlaces(7, 3)).toEqual([[0, 1, 2], [3, 4], [5, 6]]);
    expect(chunkPlaces(3, 8)).toEqual([[0, 1, 2]]);
    expect(chunkPlaces(4, 1)).toEqual([[0], [1], [2], [3]]);
  });
});
