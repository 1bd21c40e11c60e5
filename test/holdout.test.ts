// The held-out selection set (holdout): at the end the top candidates of the front are scored on
// examples the search never saw, and the best there is bestCandidate; the result, the summary and
// the report show both scores; the calls are held from the budget from the start (never exceeded);
// a run stopped by a request or a failure keeps the valset's choice and says why. Both schedules.
import { describe, expect, it } from 'vitest';
import { ConfigError, optimizeAnything, stoppers, type LanguageModel } from '../src/index.js';
import { renderReport } from '../src/report/renderReport.js';
import { formatSummary } from '../src/cli/runSummary.js';
import { currentArtifact, wordScore } from './support/anythingTask.js';
import { argmaxMean } from '../src/gepa/core/scores.js';

const words = (...list: string[]) => list.map((word) => ({ word }));
/** The valset: two words; the holdout: a third the search never sees. */
const DATASET = words('alpha', 'beta');
const HOLDOUT = words('gamma');

/** Appends the word the prompt says is missing; a proposal that learns 'alpha' writes 'alpha gamma' (it happens to generalize). */
const reflection: LanguageModel = async (prompt) => {
  const next = /## Next\n(\w+)/.exec(prompt)?.[1] ?? '';
  return '```\n' + `${currentArtifact(prompt)} ${next === 'alpha' ? 'alpha gamma' : next}`.trim() + '\n```';
};

const SCHEDULES = [
  { kind: 'batched', parents: 1, perParent: 2 },
  { kind: 'async', inFlight: 2 },
] as const;

/** Two proposals from the seed, one per word: 'say: beta' (valset 0, 1) and 'say: alpha gamma' (1, 0), tied on the valset; only the second knows gamma. */
const run = (schedule: (typeof SCHEDULES)[number], extra: Record<string, unknown> = {}) =>
  optimizeAnything({
    seedCandidate: 'say:',
    evaluator: (candidate: string, example: { word: string }) => wordScore(candidate, example.word),
    dataset: DATASET,
    holdout: HOLDOUT,
    reflectionLm: reflection,
    reflectionMinibatchSize: 1,
    maxMetricCalls: 60,
    stopWhen: stoppers.maxProposals(2),
    schedule,
    ...extra,
  });

describe('holdout', () => {
  it.each(SCHEDULES)('the best on the holdout set among the front is bestCandidate; the result shows both scores ($kind)', async (schedule) => {
    const result = await run(schedule);
    const beta = result.candidates.indexOf('say: beta');
    const alphaGamma = result.candidates.indexOf('say: alpha gamma');
    expect([beta, alphaGamma].every((i) => i > 0)).toBe(true);
    // Tied on the valset, where the earlier is the best (argmaxMean); the holdout set chooses the other.
    expect(argmaxMean(result.valScores)).toBe(beta);
    expect(result.valScores[beta]).toBe(0.5);
    expect(result.valScores[alphaGamma]).toBe(0.5);
    expect(result.bestIndex).toBe(alphaGamma);
    expect(result.bestCandidate).toBe('say: alpha gamma');
    expect(result.bestScore).toBe(0.5);
    expect(result.holdoutScore).toBe(1);
    expect(result.holdout).toEqual({ candidates: [beta, alphaGamma], scores: [0, 1], subscores: [[0], [1]] });
    // Both scores, in the summary and in the report.
    const summary = formatSummary({ heading: 'h', result: { ...result, candidates: [], bestCandidate: {} } as never });
    expect(summary).toContain(`best valset score 0.500 (candidate #${alphaGamma}), seed 0.000\nholdout score 1.000 (candidate #${alphaGamma}, chosen on the holdout set among the front's best: #${beta} 0.000, #${alphaGamma} 1.000)\n`);
    const page = renderReport({ title: 't', result, workers: 8, schedule: schedule.kind === 'async' ? schedule : { kind: 'batched', parents: 1, perParent: 2 }, minibatchSize: 1, slotIntervals: [], runStartedAt: 0 });
    expect(page).toContain('<div class="label">holdout score</div><div class="value">1.000</div>');
  });

  it.each(SCHEDULES)('never passes the budget: the holdout calls are held from the start ($kind)', async (schedule) => {
    for (const budget of [8, 9, 10, 12, 16, 24]) {
      let calls = 0;
      const result = await optimizeAnything({
        seedCandidate: 'say:',
        evaluator: (candidate: string, example: { word: string }) => (calls++, wordScore(candidate, example.word)),
        dataset: words('alpha', 'beta'),
        holdout: words('gamma', 'delta'),
        reflectionLm: reflection,
        maxMetricCalls: budget,
        schedule,
      });
      expect(calls).toBe(result.metricCalls);
      expect(result.metricCalls).toBeLessThanOrEqual(budget);
      expect(result.holdout?.candidates.length).toBeGreaterThan(0);
    }
  });

  it('a run stopped on request keeps the valset\'s choice and says why; a budget that cannot pay for it is refused', async () => {
    const abort = new AbortController();
    const result = await run({ kind: 'batched', parents: 1, perParent: 2 }, { stopWhen: undefined, signal: abort.signal, onEvent: (e: { type: string }) => e.type === 'candidate.accepted' && abort.abort() });
    expect(result.stopReason).toBe('aborted');
    expect(result.holdout).toEqual({ candidates: [], scores: [], subscores: [], skipped: 'the run was aborted' });
    expect(result.holdoutScore).toBeUndefined();
    expect(result.bestScore).toBe(Math.max(...result.valScores));
    await expect(run({ kind: 'async', inFlight: 2 }, { maxMetricCalls: 4 })).rejects.toThrow(
      new ConfigError('invalid optimize config: holdout: maxMetricCalls 4 cannot pay for the seed\'s valset evaluation (2 calls) and scoring 3 candidates on the holdout set (3 calls)'),
    );
    await expect(optimizeAnything({ seedCandidate: 'x', evaluator: () => 1, holdout: HOLDOUT, reflectionLm: reflection, maxMetricCalls: 10 })).rejects.toThrow(
      'invalid optimizeAnything options: holdout: needs a dataset: single-task search calls the evaluator without an example, so no example can be held out',
    );
  });
});
