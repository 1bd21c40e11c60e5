// A run directory's STOP file: empty, it drains (nothing new starts, the work in flight finishes,
// stopReason 'stopped'); reading `now`, the calls still in flight after the grace are aborted, so a
// hung call cannot hold the stop (stopReason 'aborted', resumable); either way the result is logged
// and the file removed, so that resuming continues. watchStopRequests reports a drain, then `now`.
// (optimize() polls every second with a 5 s grace; runInDirectory is given short ones here.)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchOptimizer } from '../machines/optimize.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import type { Adapter } from '../src/gepa/core/adapter.js';
import { runInDirectory } from '../src/run/durableRun.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { isResumableStop } from '../src/storage/runDirectory.js';
import { readRunLog } from '../src/storage/runLog.js';
import { watchStopRequests } from '../src/storage/stopRequests.js';

const root = mkdtempSync(join(tmpdir(), 'gepa-stop-now-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The demo, whose metric calls from the `from`-th on write STOP (`content`) and then hang until aborted, or finish after 30 ms. */
function run(name: string, content: string, hang: boolean) {
  const dir = join(root, name);
  const task = createDemoTask({ seed: 0 });
  let calls = 0;
  const adapter: Adapter<unknown> = {
    evaluate: (candidate, example, ctx) => {
      calls++;
      if (calls === 40) writeFileSync(join(dir, 'STOP'), content);
      if (calls < 40) return task.adapter.evaluate(candidate, example as never, ctx);
      return new Promise((resolve, reject) => {
        if (!hang) setTimeout(() => resolve(task.adapter.evaluate(candidate, example as never, ctx)), 30);
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
      });
    },
  };
  const prepared = prepareRun({ seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter, reflectionLm: task.reflectionLm, maxMetricCalls: 600, workers: 4, runDir: dir, runIdentity: { reflectionLm: 'demo', adapter: 'demo' } });
  return { dir, result: runInDirectory(prepared, launchOptimizer, { stopPollMs: 20, stopNowGraceMs: 150 }) };
}

describe('the STOP file', () => {
  it('drains when empty: the work in flight finishes, stopReason stopped', async () => {
    const { dir, result } = run('drain', '', false);
    const r = await result;
    expect(r.stopReason).toBe('stopped');
    expect(r.metricCalls).toBeLessThan(600);
    expect(existsSync(join(dir, 'STOP'))).toBe(false);
    expect(readRunLog(join(dir, 'log.jsonl')).records.at(-1)).toMatchObject({ t: 'result', result: { stopReason: 'stopped' } });
  });

  it('reading `now`, aborts the calls still in flight after the grace: a hung call cannot hold the stop', async () => {
    const { dir, result } = run('now', 'now\n', true);
    const r = await result;
    expect(r.stopReason).toBe('aborted');
    expect(isResumableStop(r.stopReason)).toBe(true);
    expect(existsSync(join(dir, 'STOP'))).toBe(false);
    expect(readRunLog(join(dir, 'log.jsonl')).records.at(-1)).toMatchObject({ t: 'result', result: { stopReason: 'aborted' } });
  });

  it('is watched for a drain, then for `now`', async () => {
    const dir = join(root, 'watched');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const seen: string[] = [];
    const unwatch = watchStopRequests(dir, { onDrain: () => seen.push('drain'), onNow: () => seen.push('now') }, 10);
    writeFileSync(join(dir, 'STOP'), '');
    await new Promise((r) => setTimeout(r, 60));
    writeFileSync(join(dir, 'STOP'), 'now');
    await new Promise((r) => setTimeout(r, 60));
    unwatch();
    expect(seen).toEqual(['drain', 'now']);
  });
});
