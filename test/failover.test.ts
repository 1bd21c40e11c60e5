// The bullmq executor's failover loop (src/executors/failover.ts) against a Redis stand-in: it
// looks up the worker of a call only when that can matter, moves a lost worker's calls back and
// says so in one notice (with the calls' run-log keys; a batch job moved as one, counted as all its calls), fails a call lost too often instead of
// running it again, does not judge right after a gap in its own readings of the beats (Redis was
// paused, every beat looks old), and runs an overdue call again once; with peerLostMs, a worker
// silent while its peers beat is lost sooner, only between readings close together, and a tick says
// when the next deadline comes. Simulated time throughout.
import { describe, expect, it } from 'vitest';
import { Failover, type FailoverRedis, type FollowedCall } from '../src/executors/failover.js';
import type { BeatReading, WorkerBeat } from '../src/executors/workerBeats.js';
import type { RerunNotice } from '../src/gepa/core/runEvent.js';
import type { FailoverPolicy } from '../src/executors/lostCalls.js';

function setup(maxWorkerLosses = 2, policy: FailoverPolicy = { workerLostMs: 1000, overdueFloorMs: 2000, overdueFactor: 5 }) {
  let now = 0;
  const clock = { now: () => now, setTimeout: () => 0, clearTimeout: () => {} };
  const calls = new Map<string, FollowedCall>();
  const notices: RerunNotice[] = [];
  const failover = new Failover({ calls, policy, maxWorkerLosses, clock, notify: (n) => notices.push(n) });
  // The stand-in Redis: beats on Redis's own clock (redisNow), owners, what was moved or failed.
  let redisNow = 1_000_000;
  const lastBeat = new Map<string, number>();
  const owners = new Map<string, string>();
  const moved: string[] = [];
  const failed: Array<[string, string]> = [];
  const lookedUp: string[][] = [];
  const redis: FailoverRedis = {
    readBeats: async (): Promise<BeatReading> => ({ nowMs: redisNow, workers: new Map<string, WorkerBeat>([...lastBeat].map(([w, at]) => [w, { ageMs: redisNow - at, gapMs: policy.peerLostMs === undefined ? 250 : 100 }])) }),
    owners: async (ids) => (lookedUp.push([...ids]), ids.map((id) => owners.get(id))),
    moveBack: async (id) => (moved.push(id), true),
    fail: async (id, message) => (failed.push([id, message]), true),
    forget: async (workers) => workers.forEach((w) => lastBeat.delete(w)),
  };
  /** A worker takes the job; `examples` > 1: a batch job, one metric call per example. */
  const take = (jobId: string, worker: string, examples = 1) => {
    const call = calls.get(jobId) ?? { logKeys: Array.from({ length: examples }, (_, i) => `hash:${jobId}${examples > 1 ? i : ''}:0`), losses: 0, rerunForOverdue: false };
    calls.set(jobId, call);
    owners.set(jobId, worker);
    failover.started(call);
  };
  /** Moves both clocks on; the workers in `beating` beat at the new time. */
  const advance = (ms: number, beating: string[]) => {
    now += ms;
    redisNow += ms;
    for (const w of beating) lastBeat.set(w, redisNow);
  };
  /** `ms` of ticks every 250 ms, as the executor ticks, with `beating` beating. */
  const run = async (ms: number, beating: string[]) => {
    for (let t = 0; t < ms; t += 250) {
      advance(250, beating);
      await failover.tick(redis);
    }
  };
  return { failover, redis, calls, notices, moved, failed, lookedUp, take, advance, run, answer: (jobId: string) => (failover.answered(calls.get(jobId)!), calls.delete(jobId)) };
}

describe('failover', () => {
  it('loses a worker silent while its peers beat after peerLostMs, only between readings close together, and says when to look next', async () => {
    const peers = ['p1', 'p2', 'p3'];
    const t = setup(2, { workerLostMs: 500, peerLostMs: 250, overdueFloorMs: 2000, overdueFactor: 5 });
    t.advance(0, ['w1', ...peers]);
    t.take('a', 'w1');
    await t.failover.tick(t.redis);
    t.advance(100, ['w1', ...peers]);
    await t.failover.tick(t.redis);
    // w1 stops beating; ticks every 100 ms.
    t.advance(100, peers);
    // Silent 100 ms: its deadline (250) in 150, past the next regular tick.
    expect(await t.failover.tick(t.redis)).toBe(150);
    t.advance(100, peers);
    expect(await t.failover.tick(t.redis)).toBe(50);
    // A reading 200 ms after the last (the run or Redis held up): no sooner verdict from it.
    t.advance(200, peers);
    expect(await t.failover.tick(t.redis)).toBe(100);
    expect(t.moved).toEqual([]);
    t.advance(60, peers);
    await t.failover.tick(t.redis);
    expect(t.moved).toEqual(['a']);
    expect(t.notices[0]).toMatchObject({ reason: 'worker lost', workers: ['w1'], waitedMs: 460 });
  });

  it("moves a lost worker's batch job as one, and its notice counts every metric call of it", async () => {
    const t = setup();
    t.advance(0, ['w1', 'w2']);
    t.take('batch', 'w1', 3);
    t.take('c', 'w1');
    t.take('d', 'w2');
    await t.failover.tick(t.redis);
    await t.run(1500, ['w2']);
    expect(t.moved).toEqual(['batch', 'c']);
    expect(t.notices).toHaveLength(1);
    expect(t.notices[0]).toMatchObject({ reason: 'worker lost', calls: 4, workers: ['w1'], keys: ['hash:batch0:0', 'hash:batch1:0', 'hash:batch2:0', 'hash:c:0'] });
  });

  it("moves a silent worker's calls back within about a second, in one notice, and drops its beat", async () => {
    const t = setup();
    t.advance(0, ['w1', 'w2']);
    t.take('a', 'w1');
    t.take('b', 'w1');
    t.take('c', 'w2');
    await t.failover.tick(t.redis); // the first reading: nothing is judged yet
    t.advance(250, ['w1', 'w2']);
    await t.failover.tick(t.redis);
    expect(t.lookedUp).toEqual([]);
    // w1 stops beating.
    for (let i = 0; i < 4; i++) {
      t.advance(250, ['w2']);
      await t.failover.tick(t.redis);
    }
    expect(t.moved).toEqual([]);
    t.advance(250, ['w2']);
    await t.failover.tick(t.redis);
    expect(t.lookedUp).toEqual([['a', 'b', 'c']]);
    expect(t.moved).toEqual(['a', 'b']);
    expect(t.notices).toEqual([{ reason: 'worker lost', calls: 2, workers: ['w1'], waitedMs: 1250, keys: ['hash:a:0', 'hash:b:0'], atMs: 1_001_500 }]);
    // Back in the queue: no longer running, not judged again until a worker takes them.
    expect(t.calls.get('a')).toMatchObject({ activeAt: undefined, owner: undefined, losses: 1 });
    t.advance(250, ['w2']);
    await t.failover.tick(t.redis);
    expect(t.moved).toEqual(['a', 'b']);
  });

  it('a call lost with its worker more than maxWorkerLosses times fails instead', async () => {
    const t = setup(1);
    t.advance(0, ['w1', 'w2', 'w3']);
    await t.failover.tick(t.redis);
    t.take('a', 'w1');
    await t.run(1500, ['w2', 'w3']);
    expect(t.moved).toEqual(['a']);
    t.take('a', 'w2');
    await t.run(1500, ['w3']);
    expect(t.moved).toEqual(['a']);
    expect(t.failed).toEqual([['a', 'the metric call was lost with its worker 2 times (the last: w2); it may be what kills them, so it is not run again']]);
    expect(t.notices.map((n) => [n.reason, n.calls, n.workers])).toEqual([
      ['worker lost', 1, ['w1']],
      ['lost too often', 1, ['w2']],
    ]);
  });

  it('after a gap in its own readings (Redis paused) it lets the workers beat before judging', async () => {
    const t = setup();
    t.advance(0, ['w1']);
    await t.failover.tick(t.redis);
    t.take('a', 'w1');
    // Nobody reaches Redis for 5 s; the first reading after finds every beat 5 s old.
    t.advance(5000, []);
    await t.failover.tick(t.redis);
    expect(t.moved).toEqual([]);
    t.advance(250, ['w1']);
    await t.failover.tick(t.redis);
    t.advance(250, ['w1']);
    await t.failover.tick(t.redis);
    expect(t.moved).toEqual([]);
    expect(t.notices).toEqual([]);
  });

  it('runs a call again once when it is far past the observed p99 on a live worker', async () => {
    const t = setup();
    t.advance(0, ['w1', 'w2']);
    await t.failover.tick(t.redis);
    // 20 calls of 100 ms: p99 100 ms, overdue past 2 s.
    for (let i = 0; i < 20; i++) {
      t.take(`x${i}`, 'w1');
      t.advance(100, ['w1', 'w2']);
      t.answer(`x${i}`);
    }
    t.take('slow', 'w1');
    for (let i = 0; i < 9; i++) {
      t.advance(250, ['w1', 'w2']);
      await t.failover.tick(t.redis);
    }
    expect(t.moved).toEqual(['slow']);
    expect(t.notices.map((n) => [n.reason, n.calls, n.waitedMs])).toEqual([['call overdue', 1, 2150]]);
    // Taken again, and slow there too: it runs out.
    t.take('slow', 'w2');
    for (let i = 0; i < 20; i++) {
      t.advance(250, ['w1', 'w2']);
      await t.failover.tick(t.redis);
    }
    expect(t.moved).toEqual(['slow']);
  });
});
