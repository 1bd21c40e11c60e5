// A run's failovers in one line (src/report/rerunSummary.ts): distinct workers, calls re-run,
// the ones failed instead, and the time lost with overlapping waits counted once.
import { describe, expect, it } from 'vitest';
import { describeRerun, formatReruns, summarizeReruns } from '../src/report/rerunSummary.js';
import type { RerunNotice } from '../src/gepa/core/runEvent.js';

const notice = (n: Partial<RerunNotice>): RerunNotice => ({ reason: 'worker lost', calls: 1, workers: ['h:1:0'], waitedMs: 1000, keys: [], atMs: 10_000, ...n });

describe('rerun summary', () => {
  it('two workers lost together: their waits overlap and count once', () => {
    const summary = summarizeReruns([
      notice({ calls: 32, workers: ['h:1:0'], waitedMs: 1100, atMs: 10_000 }),
      notice({ calls: 32, workers: ['h:2:0'], waitedMs: 1000, atMs: 10_250 }),
    ]);
    // [8900, 10000] and [9250, 10250]: 1350 ms in all.
    expect(summary).toEqual({ workersLost: 2, rerun: 64, overdue: 0, failed: 0, lostMs: 1350 });
    expect(formatReruns(summary!)).toBe('2 workers lost, 64 calls re-run, 1.4 s lost');
  });

  it('overdue calls and calls failed for losing their worker too often are said apart', () => {
    const summary = summarizeReruns([
      notice({ calls: 3, workers: ['h:1:0'], waitedMs: 1000, atMs: 5000 }),
      notice({ reason: 'call overdue', calls: 1, workers: ['h:2:0'], waitedMs: 2500, atMs: 20_000 }),
      notice({ reason: 'lost too often', calls: 1, workers: ['h:3:0'], waitedMs: 1000, atMs: 30_000 }),
    ]);
    expect(summary).toEqual({ workersLost: 2, rerun: 4, overdue: 1, failed: 1, lostMs: 4500 });
    expect(formatReruns(summary!)).toBe('2 workers lost, 4 calls re-run (1 of them hung on a live worker), 1 call failed, their worker lost too often, 4.5 s lost');
  });

  it('no failover, no line; one failover as the progress shows it', () => {
    expect(summarizeReruns([])).toBeUndefined();
    expect(describeRerun(notice({ calls: 17, workers: ['vm:306:0', 'vm:307:0'], waitedMs: 1039 }))).toBe('failover: 17 calls re-run on other workers (vm:306:0, vm:307:0 lost: no heartbeat for 1.0 s)');
  });
});
