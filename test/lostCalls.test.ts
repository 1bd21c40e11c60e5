// Which calls the bullmq executor runs again, judged from heartbeats and running times alone
// (src/executors/lostCalls.ts): a worker silent past the deadline loses its calls; a worker whose
// beats come with long gaps gets three of them; a call on a worker that never beat is lost once it
// has run longer than a worker may stay silent; a call far past the p99 on a live worker is run
// again once; calls whose worker is unknown are looked up only when it can matter.
import { describe, expect, it } from 'vitest';
import { judgeCalls, latencyQuantile, MIN_LATENCY_SAMPLES, type CallInFlight, type FailoverPolicy } from '../src/executors/lostCalls.js';
import type { WorkerBeat } from '../src/executors/workerBeats.js';

const policy: FailoverPolicy = { workerLostMs: 1000, overdueFloorMs: 2000, overdueFactor: 5 };
const call = (jobId: string, runningMs: number, owner?: string, rerunForOverdue = false): CallInFlight => ({ jobId, runningMs, owner, rerunForOverdue });
const beats = (entries: Record<string, Partial<WorkerBeat>>) => new Map(Object.entries(entries).map(([name, b]) => [name, { ageMs: 0, gapMs: 250, ...b }]));

describe('judgeCalls', () => {
  it('a worker silent past workerLostMs loses its calls, with how long the run waited on them', () => {
    const verdict = judgeCalls([call('a', 3000, 'w1'), call('b', 400, 'w1'), call('c', 3000, 'w2')], beats({ w1: { ageMs: 1200 }, w2: { ageMs: 100 } }), undefined, policy);
    expect(verdict.lostWorkers).toEqual(['w1']);
    expect(verdict.rerun).toEqual([
      { jobId: 'a', reason: 'worker lost', worker: 'w1', waitedMs: 1200 },
      // Taken 400 ms ago: the run waited on it that long, not since the worker's last beat.
      { jobId: 'b', reason: 'worker lost', worker: 'w1', waitedMs: 400 },
    ]);
    expect(verdict.needOwner).toEqual([]);
  });

  it('a worker whose beats come with long gaps is given three of them', () => {
    const busy = beats({ w1: { ageMs: 2500, gapMs: 900 } });
    expect(judgeCalls([call('a', 5000, 'w1')], busy, undefined, policy).rerun).toEqual([]);
    expect(judgeCalls([call('a', 5000, 'w1')], beats({ w1: { ageMs: 2800, gapMs: 900 } }), undefined, policy).rerun.map((r) => r.jobId)).toEqual(['a']);
  });

  it('a call on a worker with no beat is lost only once it has run longer than workerLostMs', () => {
    expect(judgeCalls([call('a', 900, 'ghost')], beats({}), undefined, policy).rerun).toEqual([]);
    expect(judgeCalls([call('a', 1100, 'ghost')], beats({}), undefined, policy).rerun).toEqual([{ jobId: 'a', reason: 'worker lost', worker: 'ghost', waitedMs: 1100 }]);
  });

  it('owners are looked up when a worker is lost, or for calls running longer than a worker may stay silent', () => {
    expect(judgeCalls([call('a', 200), call('b', 1500)], beats({ w1: {} }), undefined, policy).needOwner).toEqual(['b']);
    expect(judgeCalls([call('a', 200), call('b', 1500)], beats({ w1: { ageMs: 5000 } }), undefined, policy).needOwner).toEqual(['a', 'b']);
  });

  it('a call far past the p99 on a live worker is run again once', () => {
    // p99 100 ms: overdue past max(2000, 5 x 100) = 2000 ms.
    const live = beats({ w1: {} });
    expect(judgeCalls([call('a', 1900, 'w1')], live, 100, policy).rerun).toEqual([]);
    expect(judgeCalls([call('a', 2100, 'w1')], live, 100, policy).rerun).toEqual([{ jobId: 'a', reason: 'call overdue', worker: 'w1', waitedMs: 2000 }]);
    expect(judgeCalls([call('a', 9000, 'w1', true)], live, 100, policy).rerun).toEqual([]);
    // p99 1 s: the deadline scales with it.
    expect(judgeCalls([call('a', 4900, 'w1')], live, 1000, policy).rerun).toEqual([]);
    expect(judgeCalls([call('a', 5100, 'w1')], live, 1000, policy).rerun.map((r) => r.reason)).toEqual(['call overdue']);
    // Without enough latencies observed there is no overdue deadline.
    expect(judgeCalls([call('a', 60_000, 'w1')], live, undefined, policy).rerun).toEqual([]);
  });
});

describe('latencyQuantile', () => {
  it('is the nearest-rank quantile, once there are enough samples', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(latencyQuantile(samples, 0.99)).toBe(99);
    expect(latencyQuantile(samples, 0.5)).toBe(50);
    expect(latencyQuantile(samples.slice(0, MIN_LATENCY_SAMPLES - 1), 0.99)).toBeUndefined();
  });
});
