// optimizeAnything's three modes under the batched and the async schedule: each finds the task's
// best within the metric-call budget, and a batched run is the same run whatever the worker count.
import { describe, expect, it } from 'vitest';
import { optimizeAnything, type OptimizeAnythingResult, type Schedule } from '../src/index.js';
import { appendingReflection, wordScore, wordsScore, WORDS } from './support/anythingTask.js';

type ModeRun = (schedule: Schedule, workers: number) => Promise<OptimizeAnythingResult<string>>;

const budgetOf = (mode: string): number => (mode === 'single-task' ? 40 : 150);

const modes: Array<[string, ModeRun, number]> = [
  ['single-task', (schedule, workers) => optimizeAnything({ seedCandidate: 'w', evaluator: (c) => wordsScore(c), reflectionLm: appendingReflection(), schedule, workers, maxMetricCalls: 40, seed: 3 }), 1],
  [
    'multi-task',
    (schedule, workers) => optimizeAnything({ seedCandidate: 'w', evaluator: (c, word: string) => wordScore(c, word), dataset: [...WORDS], reflectionLm: appendingReflection(), schedule, workers, maxMetricCalls: 150, seed: 3 }),
    1,
  ],
  [
    'generalization',
    (schedule, workers) =>
      optimizeAnything({ seedCandidate: 'w', evaluator: (c, word: string) => wordScore(c, word), dataset: ['alpha', 'beta', 'gamma'], valset: [...WORDS], reflectionLm: appendingReflection(), schedule, workers, maxMetricCalls: 150, seed: 3 }),
    0.75,
  ],
];

describe.each(modes)('%s', (mode, run, best) => {
  it('batched 2 x 2: the best within budget, and the same run with 1 worker or 8', async () => {
    const schedule: Schedule = { kind: 'batched', parents: 2, perParent: 2 };
    const [one, eight] = await Promise.all([run(schedule, 1), run(schedule, 8)]);
    expect(eight.bestScore).toBe(best);
    expect(eight.metricCalls).toBeLessThanOrEqual(budgetOf(mode));
    const same = (r: typeof one) => ({ candidates: r.candidates, valScores: r.valScores, parents: r.parents, metricCalls: r.metricCalls, proposals: r.proposals, stopReason: r.stopReason });
    expect(same(one)).toEqual(same(eight));
  });

  it('async, 4 in flight: the best within budget', async () => {
    const result = await run({ kind: 'async', inFlight: 4 }, 4);
    expect(result.bestScore).toBe(best);
    expect(result.metricCalls).toBeLessThanOrEqual(budgetOf(mode));
    expect(typeof result.bestCandidate).toBe('string');
  });
});
