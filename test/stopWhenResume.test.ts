// stopWhen in a run directory: config.json records the stoppers' names (functions cannot be
// recorded), a resume is given them again, and what they see counts the whole run: a run drained
// halfway and resumed stops where the uninterrupted run stopped, paying only for what is new.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { stoppers, type OptimizeResult, type StopView } from '../src/index.js';
import { test } from './support/toyRun.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-stopwhen-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Everything but the timing figures (a resumed run replays in no time). */
// stoppedBy names the stopper, which the resumed run wraps to watch its view.
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, stoppedBy: _s, ...rest }: OptimizeResult) => rest;

describe('stopWhen in a run directory', () => {
  test('a resumed run is given its stoppers again; their view counts the replayed work, so it stops where the uninterrupted run did', async ({ toyRun }) => {
    // 2 x 2 steps; the stopper ends the run at the first step that brings the calls to 100.
    const durable = (runDir: string) => ({ runDir, runIdentity: { reflectionLm: 'toy' }, schedule: { kind: 'batched', parents: 2, perParent: 2 } as const, maxMetricCalls: 400 });
    const atHundred = () => stoppers.maxMetricCalls(100);

    const reference = await toyRun({ ...durable(join(scratch, 'reference')), stopWhen: atHundred() });
    expect(reference.result.stopReason).toBe('maxMetricCalls');
    expect(reference.result.metricCalls).toBeGreaterThanOrEqual(100);

    // The same run drained after its first step (a resumable stop), then resumed with the stopper.
    const dir = join(scratch, 'drained');
    const drain = new AbortController();
    const first = await toyRun({ ...durable(dir), stopWhen: atHundred(), drainSignal: drain.signal, onEvent: (e) => e.type === 'step.started' && drain.abort() });
    expect(first.result.stopReason).toBe('stopped');
    expect(first.result.metricCalls).toBeLessThan(100);
    const record = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { operational: { stopWhen?: string[] }; settings: Record<string, unknown> };
    expect(record.operational.stopWhen).toEqual(['maxMetricCalls(100)']);
    expect(record.settings).not.toHaveProperty('stopWhen');

    const views: StopView[] = [];
    const seen = stoppers.maxMetricCalls(100);
    const resumed = await toyRun({ ...durable(dir), stopWhen: (view) => (views.push(view), seen(view)) });
    expect(essence(resumed.result)).toEqual(essence(reference.result));
    // Paid only for what the first process had not: the view's counts include the replayed calls.
    expect(resumed.task.evaluateCalls).toBe(reference.result.metricCalls - first.result.metricCalls);
    expect(views[0]?.metricCalls).toBe(resumed.valset.length);
    expect(views.at(-1)?.metricCalls).toBe(reference.result.metricCalls);

    // A run a stopper ended is finished: resuming it returns its result without a call, whatever stopWhen says now.
    const again = await toyRun({ ...durable(dir), stopWhen: () => false });
    expect(essence(again.result)).toEqual(essence(reference.result));
    expect(again.task.evaluateCalls).toBe(0);
  });

  test('stoppers are not compared on resume: another stopWhen continues a drained run', async ({ toyRun }) => {
    const dir = join(scratch, 'other-stopper');
    const drain = new AbortController();
    const config = { runDir: dir, runIdentity: { reflectionLm: 'toy' }, maxMetricCalls: 400 };
    const first = await toyRun({ ...config, stopWhen: stoppers.maxProposals(10), drainSignal: drain.signal, onEvent: (e) => e.type === 'step.started' && drain.abort() });
    expect(first.result.stopReason).toBe('stopped');
    const resumed = await toyRun({ ...config, stopWhen: stoppers.maxProposals(3) });
    expect(resumed.result.stopReason).toBe('maxProposals');
    expect(resumed.result.proposals).toHaveLength(3);
  });
});
