// A batched single-task optimizeAnything run in a run directory survives kill -9: killed at random
// points and resumed each time, it ends with the uninterrupted run's result, and pays again only
// for the evaluations in flight at the kills.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../src/gepa/core/rng.js';
import { readRunLog } from '../src/storage/runLog.js';
import { optimizeAnything, type OptimizeAnythingResult } from '../src/index.js';
import { ANYTHING_WORKERS, anythingDurableOptions } from './support/anythingDurableTask.js';
import { lines, runKillableChild, type Kill } from './support/killableChild.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-anything-kill-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Result = OptimizeAnythingResult<string>;
/** Everything but the timing figures. */
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: Result) => rest;
const evalRecords = (dir: string) => readRunLog(join(dir, 'log.jsonl')).records.filter((r) => r.t === 'eval').length;

describe('optimizeAnything, kill -9 and resume', () => {
  it('a batched single-task run killed at 6 random points and resumed equals the uninterrupted run', async () => {
    let referenceCalls = 0;
    const reference = await optimizeAnything(anythingDurableOptions(join(scratch, 'reference'), () => referenceCalls++));
    expect(reference.metricCalls).toBe(referenceCalls);
    expect(reference.candidates.length).toBeGreaterThan(5);

    const dir = join(scratch, 'killed');
    const rng = new Rng(37);
    const points = Array.from({ length: 6 }, () => (0.05 + 0.8 * rng.next()) * reference.metricCalls).sort((a, b) => a - b);
    const killAt = (attempt: number, recorded: number): Kill | undefined => {
      const point = points[attempt];
      if (point === undefined) return undefined;
      return { calls: Math.max(1, Math.round(point) - recorded), ms: 12 * rng.next() };
    };
    let kills = 0;
    let executed = 0;
    let inFlightAtKills = 0;
    let final: Result | undefined;
    for (let attempt = 0; final === undefined; attempt++) {
      const counter = join(scratch, `calls-${attempt}.txt`);
      const recordedBefore = evalRecords(dir);
      const outcome = await runKillableChild<Result>('test/support/anythingRunChild.ts', [dir, counter], counter, killAt(attempt, recordedBefore));
      const started = lines(counter);
      const recorded = evalRecords(dir) - recordedBefore;
      executed += started;
      if (outcome.killed) {
        kills++;
        expect(started - recorded).toBeGreaterThanOrEqual(0);
        expect(started - recorded).toBeLessThanOrEqual(ANYTHING_WORKERS);
        inFlightAtKills += started - recorded;
      } else {
        final = outcome.result;
      }
      expect(attempt).toBeLessThan(10);
    }
    expect(kills).toBeGreaterThanOrEqual(4);
    expect(typeof final?.bestCandidate).toBe('string');
    expect(essence(final as Result)).toEqual(essence(reference));
    expect(evalRecords(dir)).toBe(reference.metricCalls);
    expect(executed - reference.metricCalls).toBe(inFlightAtKills);
  }, 120_000);
});
