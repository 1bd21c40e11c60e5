// A run's failovers in one line (src/report/rerunSummary.ts): distinct workers, calls re-run,
// the ones failed instead, and the time lost with overlapping waits counted once; the CLI reads
// them from the run log (src/cli/runReport.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rerunLine, runReruns } from '../src/cli/runReport.js';
import type { SessionOutput } from '../src/cli/runSession.js';
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

describe("a CLI run's failover line", () => {
  it('comes from the run log when there is one (every process of the run), else from this process', () => {
    const runDir = mkdtempSync(join(tmpdir(), 'gepa-reruns-'));
    try {
      const session = { reruns: [notice({ calls: 5 })] } as unknown as SessionOutput;
      expect(rerunLine(undefined, session)).toBe('1 worker lost, 5 calls re-run, 1.0 s lost');
      // An earlier process's failover, logged, and this one's.
      const records = [notice({ calls: 3, workers: ['a:1:0'], atMs: 1000 }), notice({ calls: 4, workers: ['b:2:0'], atMs: 50_000 })];
      writeFileSync(join(runDir, 'log.jsonl'), records.map((r) => `${JSON.stringify({ t: 'rerun', ...r })}\n`).join(''));
      expect(runReruns(runDir, session)).toEqual(records);
      expect(rerunLine(runDir, session)).toBe('2 workers lost, 7 calls re-run, 2.0 s lost');
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});
