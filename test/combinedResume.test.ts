// The 'combined' reflection strategy across a resume: the history of other proposals' results it
// reads is run state, rebuilt from the log when a run directory is resumed. A batched run cut in
// the middle and resumed ends with the uninterrupted run's result, asking the reflection model
// exactly the prompts the uninterrupted run asked after the cut; an async run's first reflections
// after a resume still read other proposals' records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OTHER_VERSION_NOTE } from '../src/gepa/reflection/combinedFailures.js';
import { optimize, type OptimizeResult, type Schedule } from '../src/index.js';
import { killableSimulatedDemo } from './support/killableSimulatedDemo.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-combined-resume-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One process's part of a 'combined' run on `runDir`, aborted at `abortAtMs` of simulated time; `prompts` gets every prompt the model is really asked. */
async function runOnce(runDir: string, schedule: Schedule, abortAtMs: number | undefined, prompts: string[]): Promise<OptimizeResult> {
  const { clock, task, signal, run } = killableSimulatedDemo(3, abortAtMs);
  return run(
    optimize({
      seedCandidate: task.seedCandidate,
      trainset: task.trainset,
      valset: task.valset,
      adapter: task.adapter,
      reflectionLm: (prompt, ctx) => {
        prompts.push(prompt);
        return task.reflectionLm(prompt, ctx);
      },
      runIdentity: { reflectionLm: 'demo' },
      reflectionStrategy: 'combined',
      schedule,
      workers: 8,
      maxMetricCalls: 400,
      seed: 11,
      runDir,
      clock,
      signal,
    }),
  );
}

/** Everything but the timing figures. */
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;
const readsOthers = (prompt: string) => prompt.includes(OTHER_VERSION_NOTE);

describe("the 'combined' strategy across a resume", () => {
  it('a batched run cut in the middle and resumed ends with the uninterrupted result, asking the prompts it asked after the cut', async () => {
    const schedule: Schedule = { kind: 'batched', parents: 2, perParent: 2 };
    const referencePrompts: string[] = [];
    const reference = await runOnce(join(scratch, 'batched-reference'), schedule, undefined, referencePrompts);
    expect(referencePrompts.filter(readsOthers).length).toBeGreaterThan(5);

    const dir = join(scratch, 'batched-cut');
    const before: string[] = [];
    const cut = await runOnce(dir, schedule, Math.floor(reference.elapsedMs * 0.5), before);
    expect(cut.stopReason).toBe('aborted');
    const after: string[] = [];
    const resumed = await runOnce(dir, schedule, undefined, after);
    expect(essence(resumed)).toEqual(essence(reference));
    // Replayed reflections ask nothing; every new prompt is one the uninterrupted run asked, with the same evidence.
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter(readsOthers).length).toBeGreaterThan(0);
    const asked = new Set(referencePrompts);
    expect(after.filter((p) => !asked.has(p))).toEqual([]);
  });

  it("an async run's first reflections after a resume read other proposals' records", async () => {
    const schedule: Schedule = { kind: 'async', inFlight: 4 };
    const reference = await runOnce(join(scratch, 'async-reference'), schedule, undefined, []);
    const dir = join(scratch, 'async-cut');
    const first = await runOnce(dir, schedule, Math.floor(reference.elapsedMs * 0.6), []);
    expect(first.stopReason).toBe('aborted');
    expect(first.candidates.length).toBeGreaterThan(2);
    const after: string[] = [];
    const resumed = await runOnce(dir, schedule, undefined, after);
    expect(resumed.candidates.slice(0, first.candidates.length)).toEqual(first.candidates);
    // A history lost on resume would start the new prompts with the parent's records alone.
    expect(after.length).toBeGreaterThan(3);
    expect(after.slice(0, 4).every(readsOthers)).toBe(true);
    expect(resumed.metricCalls).toBeLessThanOrEqual(400);
  });
});
