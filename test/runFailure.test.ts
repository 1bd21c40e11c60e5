// The one failure rule: a run whose work failed rejects with RunFailedError, carrying its partial
// result and the first underlying error, in optimize() and optimizeAnything(), batched and async,
// with and without failFast, at budgets 10 and 300: an evaluator that always throws, one that
// works for the seed only, a reflection model that always throws, an evaluator that returns NaN.
// A run too small to propose anything, or whose failures stay occasional, resolves.
import { describe, expect, it } from 'vitest';
import { optimize, optimizeAnything, RunFailedError, type Adapter, type LanguageModel } from '../src/index.js';
import { runFailure, type CallOutcomes, type FailureFacts } from '../src/gepa/search/failureRule.js';
import { appendingReflection, wordScore, WORDS } from './support/anythingTask.js';
import { failedRun } from './support/failedRun.js';

const dataset = WORDS.map((word) => ({ word }));
type Example = (typeof dataset)[number];

/** A situation of the list: the evaluator, the reflection model, the cause they throw (absent: nothing thrown). */
interface Situation {
  evaluator: (candidate: string, example: Example) => number | { score: number; sideInfo: Record<string, unknown> };
  reflectionLm: () => LanguageModel;
  thrown?: Error;
  /** The failure's reason, by failFast and budget. */
  reason: (failFast: boolean, budget: number) => RegExp;
}

const evaluatorError = new TypeError('the harness crashed');
const reflectionError = new Error('HTTP 503 from the reflection model');
const seedOnlyError = new Error('the sandbox refused the candidate');

const SITUATIONS: Record<string, Situation> = {
  'an evaluator that always throws': {
    evaluator: () => {
      throw evaluatorError;
    },
    reflectionLm: () => appendingReflection(),
    thrown: evaluatorError,
    reason: (failFast) => (failFast ? /^failFast: .*the harness crashed/ : /^every call of the seed candidate's valset evaluation failed \(4 of 4\); the first: .*the harness crashed/),
  },
  'an evaluator that works for the seed and throws for every other candidate': {
    evaluator: (candidate, example) => {
      if (candidate !== 'say:') throw seedOnlyError;
      return wordScore(candidate, example.word);
    },
    reflectionLm: () => appendingReflection(),
    thrown: seedOnlyError,
    reason: (failFast) =>
      failFast ? /^failFast: .*the sandbox refused the candidate/ : /^no proposed candidate could be evaluated: every metric call of (the one proposed candidate|both proposed candidates|all \d+ proposed candidates) failed; the first failed call: .*the sandbox refused/,
  },
  'a reflection model that throws on every call': {
    evaluator: (candidate, example) => wordScore(candidate, example.word),
    reflectionLm: () => async () => {
      throw reflectionError;
    },
    thrown: reflectionError,
    reason: (failFast, budget) =>
      failFast
        ? /^failFast: HTTP 503 from the reflection model$/
        : budget === 10
          ? /^no reflection call succeeded: all 4 reflection calls failed; the first failed call: HTTP 503 from the reflection model$/
          : /^10 reflection calls in a row failed with the same cause: HTTP 503 from the reflection model$/,
  },
  'an evaluator that returns NaN on every call': {
    evaluator: () => NaN,
    reflectionLm: () => appendingReflection(),
    reason: (failFast) => (failFast ? /^failFast: .*returned/ : /^every call of the seed candidate's valset evaluation failed \(4 of 4\)/),
  },
};

const CASES = Object.keys(SITUATIONS).flatMap((situation) =>
  (['batched', 'async'] as const).flatMap((schedule) => [false, true].flatMap((failFast) => [10, 300].map((budget) => ({ situation, schedule, failFast, budget })))),
);

const scheduleOf = (kind: 'batched' | 'async') => (kind === 'async' ? { kind: 'async' as const, inFlight: 2 } : { kind: 'batched' as const });

/** The same situation as an optimize() adapter over named texts ({ text }). */
function adapterOf(situation: Situation): Adapter<Example> {
  return {
    evaluate: async (candidate, example) => {
      const answer = situation.evaluator(candidate['text'] ?? '', example);
      return typeof answer === 'number' ? { score: answer } : { score: answer.score, feedback: JSON.stringify(answer.sideInfo) };
    },
  };
}

/** The reflection for optimize(): the appending reflection reads optimizeAnything's prompt; this one appends the next missing word. */
function optimizeReflection(situation: Situation): LanguageModel {
  const inner = situation.reflectionLm();
  let n = 0;
  return async (prompt, ctx) => {
    await inner('## The current artifact\n```\nsay:\n```', ctx);
    return '```\nsay: ' + WORDS.slice(0, (++n % WORDS.length) + 1).join(' ') + '\n```';
  };
}

describe('a run whose work failed rejects with RunFailedError and its partial result', () => {
  it.each(CASES)('optimizeAnything: $situation ($schedule, failFast $failFast, budget $budget)', async ({ situation, schedule, failFast, budget }) => {
    const s = SITUATIONS[situation] as Situation;
    const failed = await failedRun(
      optimizeAnything({ seedCandidate: 'say:', evaluator: s.evaluator, dataset, reflectionLm: s.reflectionLm(), maxMetricCalls: budget, failFast, schedule: scheduleOf(schedule) }),
    );
    const { result } = failed;
    expect(result.error).toMatch(s.reason(failFast, budget));
    // The partial result: the seed (in the seed's form), the calls paid, the failures tally; never past the budget.
    expect(result.candidates[0]).toBe('say:');
    expect(result.bestCandidate).toBe(result.candidates[result.bestIndex]);
    expect(result.failures?.total).toBeGreaterThan(0);
    expect(result.metricCalls).toBeLessThanOrEqual(budget);
    if (s.thrown) expect(failed.cause).toBe(s.thrown);
    else expect(failed.cause).toBeInstanceOf(Error);
    // One message: what failed, how many calls of each kind failed of how many made, the best so far.
    const reflectionsFailed = result.failures?.reflections ?? 0;
    const metricFailed = (result.failures?.total ?? 0) - reflectionsFailed;
    expect(reflectionsFailed).toBeLessThanOrEqual(result.reflectionCalls);
    const counted = [
      ...(metricFailed > 0 ? [`${metricFailed} of ${result.metricCalls} metric calls?`] : []),
      ...(reflectionsFailed > 0 ? [`${reflectionsFailed} of ${result.reflectionCalls} reflection calls?`] : []),
    ].join(' and ');
    expect(failed.message).toMatch(new RegExp(`^the run failed: .+\\. ${counted} failed \\(.+\\); best so far: candidate #\\d+ \\(valset score \\d\\.\\d{3}\\)$`));
  });

  it.each(CASES)('optimize: $situation ($schedule, failFast $failFast, budget $budget)', async ({ situation, schedule, failFast, budget }) => {
    const s = SITUATIONS[situation] as Situation;
    const failed = await failedRun(
      optimize({ seedCandidate: { text: 'say:' }, trainset: dataset, adapter: adapterOf(s), reflectionLm: optimizeReflection(s), maxMetricCalls: budget, failFast, schedule: scheduleOf(schedule) }),
    );
    expect(failed.result.candidates[0]).toEqual({ text: 'say:' });
    expect(failed.result.failures?.total).toBeGreaterThan(0);
    expect(failed.result.metricCalls).toBeLessThanOrEqual(budget);
    if (s.thrown) expect(failed.cause).toBe(s.thrown);
  });

  it('is an Error named RunFailedError, so a caller catches it by class or by name', async () => {
    const error = await optimizeAnything({ seedCandidate: 'x', evaluator: () => NaN, reflectionLm: appendingReflection(), maxMetricCalls: 5 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('RunFailedError');
  });
});

describe('a run that resolves', () => {
  it('one too small to try any proposal: its failures are no failure of the run (nothing was proposed)', async () => {
    let calls = 0;
    const result = await optimizeAnything({
      seedCandidate: 'say:',
      dataset,
      // One seed call fails; the budget pays for the seed only.
      evaluator: (candidate, example) => {
        if (calls++ === 0) throw new Error('flaky');
        return wordScore(candidate, example.word);
      },
      reflectionLm: appendingReflection(),
      maxMetricCalls: 4,
    });
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.proposals).toEqual([]);
    expect(result.failures).toEqual({ total: 1, byKind: { adapter: 1 } });
  });

  it('one whose failures stay occasional, in both schedules', async () => {
    for (const schedule of ['batched', 'async'] as const) {
      let calls = 0;
      const result = await optimizeAnything({
        seedCandidate: 'say:',
        dataset,
        evaluator: (candidate, example) => {
          if (++calls % 5 === 0) throw new Error('flaky');
          return wordScore(candidate, example.word);
        },
        reflectionLm: appendingReflection(),
        maxMetricCalls: 60,
        schedule: scheduleOf(schedule),
      });
      expect(result.stopReason).not.toBe('error');
      expect(result.failures?.total).toBeGreaterThan(0);
    }
  });
});

describe('the rule (failureRule.ts)', () => {
  const ok: CallOutcomes = { proposedCandidates: 3, proposedEvaluated: 1, reflections: 3, reflectionsAnswered: 3 };
  const facts = (outcomes: Partial<CallOutcomes> = {}, failFast = false, total = 0): FailureFacts => ({ outcomes: { ...ok, ...outcomes }, failFast, failures: { total, byKind: { adapter: total } } });
  it.each([
    ['a budget stop with some proposed candidates evaluated and reflections answered', { stopReason: 'maxMetricCalls' }, facts({}, false, 2), undefined],
    ['a stopper\'s stop', { stopReason: 'scoreThreshold' }, facts(), undefined],
    ['nothing proposed (a run too small)', { stopReason: 'maxMetricCalls' }, facts({ proposedCandidates: 0, proposedEvaluated: 0, reflections: 0, reflectionsAnswered: 0 }), undefined],
    ['a stop with an error keeps its own cause', { stopReason: 'error', error: 'every call of the seed failed' }, facts(), 'every call of the seed failed'],
    ['failFast with a failed call', { stopReason: 'maxMetricCalls' }, facts({ firstFailure: 'boom' }, true, 1), 'failFast: 1 call failed; the first failed call: boom'],
    ['failFast without one', { stopReason: 'maxMetricCalls' }, facts({}, true, 0), undefined],
    ['no proposed candidate evaluated', { stopReason: 'maxMetricCalls' }, facts({ proposedEvaluated: 0, firstFailure: 'boom' }), 'no proposed candidate could be evaluated: every metric call of all 3 proposed candidates failed; the first failed call: boom'],
    ['two proposed candidates, neither evaluated', { stopReason: 'maxMetricCalls' }, facts({ proposedCandidates: 2, proposedEvaluated: 0, firstFailure: 'boom' }), 'no proposed candidate could be evaluated: every metric call of both proposed candidates failed; the first failed call: boom'],
    ['no reflection answered', { stopReason: 'timeout' }, facts({ proposedCandidates: 0, proposedEvaluated: 0, reflectionsAnswered: 0, firstFailure: '503' }), 'no reflection call succeeded: all 3 reflection calls failed; the first failed call: 503'],
    ['an evaluator replaced without outcomes: only the stop reason and failFast count', { stopReason: 'maxMetricCalls' }, { failFast: false }, undefined],
  ] as const)('%s', (_name, run, given, expected) => {
    expect(runFailure(run, given)).toBe(expected);
  });
});
