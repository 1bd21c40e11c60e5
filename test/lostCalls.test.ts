// Which calls the bullmq executor runs again, judged from heartbeats and running times alone
// (src/executors/lostCalls.ts): a worker silent past the deadline loses its calls; a worker whose
// beats come with long gaps gets three of them; a call on a worker that never beat is lost once it
// has run longer than a worker may stay silent; a call far past the p99 on a live worker is run
// again once; calls whose worker is unknown are looked up only when it can matter; a worker silent
// while its peers beat on time is lost sooner, never while they are late too.
import { describe, expect, it } from 'vitest';
import { judgeCalls, latencyQuantile, MIN_LATENCY_SAMPLES, nextDeadlineInMs, workerDeadlines, type CallInFlight, type FailoverPolicy } from '../src/executors/lostCalls.js';
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

describe('a sooner verdict while the peers beat on time', () => {
  const sooner: FailoverPolicy = { ...policy, workerLostMs: 500, peerLostMs: 250 };
  const healthy = (n: number, ageMs = 60) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { ageMs, gapMs: 100 }]));

  it('a worker silent past peerLostMs while its peers beat on time is lost', () => {
    const workers = beats({ w1: { ageMs: 260, gapMs: 100 }, ...healthy(6) });
    expect(judgeCalls([call('a', 400, 'w1')], workers, undefined, sooner).rerun).toEqual([{ jobId: 'a', reason: 'worker lost', worker: 'w1', waitedMs: 260 }]);
    expect(judgeCalls([call('a', 400, 'w1')], beats({ w1: { ageMs: 240, gapMs: 100 }, ...healthy(6) }), undefined, sooner).rerun).toEqual([]);
    // Without peerLostMs, workerLostMs alone.
    expect(judgeCalls([call('a', 400, 'w1')], workers, undefined, { ...sooner, peerLostMs: undefined }).rerun).toEqual([]);
  });

  it('not while the peers are late too (a stalled host, Redis or network): workerLostMs then', () => {
    const allLate = beats({ w1: { ageMs: 400, gapMs: 100 }, ...healthy(6, 300) });
    expect(judgeCalls([call('a', 600, 'w1')], allLate, undefined, sooner).rerun).toEqual([]);
    expect(judgeCalls([call('a', 600, 'w1')], beats({ w1: { ageMs: 510, gapMs: 100 }, ...healthy(6, 300) }), undefined, sooner).rerun.map((r) => r.jobId)).toEqual(['a']);
  });

  it('counts peers whose beats come late but come: they beat a beat and a half after the silent one', () => {
    // Peers 160-200 ms old (beats held up on a busy host), the silent worker 400 ms: they beat
    // 200 ms and more after it did.
    const busyHost = beats({ w1: { ageMs: 400, gapMs: 100 }, ...Object.fromEntries([160, 170, 180, 190, 200, 200].map((ageMs, i) => [`p${i}`, { ageMs, gapMs: 100 }])) });
    expect(judgeCalls([call('a', 600, 'w1')], busyHost, undefined, sooner).rerun.length).toBe(1);
    // A stall of the whole host: every age grew alike, no peer beat after the silent worker's
    // last beat by a beat and a half.
    const stalled = beats({ w1: { ageMs: 290, gapMs: 100 }, ...Object.fromEntries([200, 210, 230, 250, 270, 280].map((ageMs, i) => [`p${i}`, { ageMs, gapMs: 100 }])) });
    expect(judgeCalls([call('a', 600, 'w1')], stalled, undefined, sooner).rerun).toEqual([]);
  });

  it('needs two peers on time and half of the others', () => {
    // One peer: not enough.
    expect(judgeCalls([call('a', 400, 'w1')], beats({ w1: { ageMs: 300 }, ...healthy(1) }), undefined, sooner).rerun).toEqual([]);
    expect(judgeCalls([call('a', 400, 'w1')], beats({ w1: { ageMs: 300, gapMs: 100 }, ...healthy(2) }), undefined, sooner).rerun.length).toBe(1);
    // Two of five others on time: fewer than half.
    const few = beats({ w1: { ageMs: 300, gapMs: 100 }, ...healthy(2), ...Object.fromEntries(['q1', 'q2', 'q3'].map((n) => [n, { ageMs: 400, gapMs: 100 }])) });
    expect(judgeCalls([call('a', 400, 'w1')], few, undefined, sooner).rerun).toEqual([]);
    // Two workers silent together (killed at once) are each judged against the others.
    const two = beats({ w1: { ageMs: 280, gapMs: 100 }, w2: { ageMs: 300, gapMs: 100 }, ...healthy(6) });
    expect(judgeCalls([call('a', 400, 'w1'), call('b', 400, 'w2')], two, undefined, sooner).lostWorkers).toEqual(['w1', 'w2']);
  });

  it('a worker whose beats come with long gaps gets two of them', () => {
    const gappy = (ageMs: number) => beats({ w1: { ageMs, gapMs: 200 }, ...healthy(6) });
    expect(judgeCalls([call('a', 600, 'w1')], gappy(390), undefined, sooner).rerun).toEqual([]);
    expect(judgeCalls([call('a', 600, 'w1')], gappy(410), undefined, sooner).rerun.length).toBe(1);
    // Never later than workerLostMs's deadline.
    expect(workerDeadlines(beats({ w1: { gapMs: 400 }, ...healthy(6) }), sooner).get('w1')).toBe(800);
  });

  it('says when the next worker passes its deadline, for a look just then', () => {
    const workers = beats({ w1: { ageMs: 180, gapMs: 100 }, ...healthy(6) });
    expect(nextDeadlineInMs(workers, workerDeadlines(workers, sooner))).toBe(70);
    // Peers late: workerLostMs's deadline.
    const late = beats({ w1: { ageMs: 180, gapMs: 100 }, ...healthy(6, 300) });
    expect(nextDeadlineInMs(late, workerDeadlines(late, sooner))).toBe(200);
    // Not allowed (readings far apart): workerLostMs's.
    expect(nextDeadlineInMs(workers, workerDeadlines(workers, sooner, false))).toBe(320);
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
