// optimizeAnything's refiner: after each evaluation the refiner model proposes a refined
// candidate from the side information, it is evaluated and the better score kept; its calls are
// metric and reflection calls of the run, inside its metric-call and dollar budgets.
import { describe, expect, it } from 'vitest';
import { optimizeAnything } from '../src/index.js';
import { appendingReflection, countedWordsEvaluator, wordsScore } from './support/anythingTask.js';

/** Reads the candidate and the last attempt's `Next` word from the refiner's prompt; answers the candidate with the word appended. */
function appendingRefiner(costUsd = 0) {
  const prompts: string[] = [];
  const lm = async (prompt: string) => {
    prompts.push(prompt);
    const blocks = [...prompt.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1] as string) as unknown);
    const candidate = blocks[0] as { candidate: string };
    const attempts = blocks[1] as Array<{ sideInfo?: { Next?: string } }>;
    const next = attempts[attempts.length - 1]?.sideInfo?.Next ?? 'omega';
    return { text: JSON.stringify({ candidate: `${candidate.candidate} ${next}` }), costUsd };
  };
  return Object.assign(lm, { prompts, estimateMaxCostUsd: () => costUsd });
}

describe('the refiner', () => {
  it('keeps the better of the original and its refinements; the reflection reads the attempts', async () => {
    const refiner = appendingRefiner();
    const reflection = appendingReflection();
    const evaluator = countedWordsEvaluator();
    const result = await optimizeAnything({
      seedCandidate: 'words:',
      evaluator,
      objective: 'Mention the four words.',
      reflectionLm: reflection,
      refiner: { refinerLm: refiner, maxRefinements: 2 },
      maxMetricCalls: 3,
    });
    // The seed 'words:' (0), refined to 'words: alpha' (0.25), refined again to 'words: alpha beta' (0.5).
    expect(result.valScores).toEqual([0.5]);
    expect(result.bestCandidate).toBe('words:');
    expect(evaluator.calls).toBe(3);
    expect(result.metricCalls).toBe(3);
    expect(result.reflectionCalls).toBe(2);
    expect(refiner.prompts[0]).toContain('## What it is for\nMention the four words.');
    expect(refiner.prompts[0]).toContain('"candidate": "words:"');
  });

  it('refines with the evaluation cache off too (cacheEvaluation: false): every evaluation is the same work', async () => {
    const refiner = appendingRefiner();
    const evaluator = countedWordsEvaluator();
    const result = await optimizeAnything({ seedCandidate: 'words:', evaluator, reflectionLm: appendingReflection(), refiner: { refinerLm: refiner, maxRefinements: 2 }, maxMetricCalls: 3, cacheEvaluation: false });
    // As with the cache: the seed refined twice, 'words: alpha beta' (0.5) kept.
    expect(result.valScores).toEqual([0.5]);
    expect(refiner.prompts.length).toBe(2);
    expect(evaluator.calls).toBe(result.metricCalls);
  });

  it('never passes the metric-call budget, whatever it is: every evaluation is reserved with its refinements', async () => {
    for (const budget of [3, 4, 5, 7, 10, 13, 20]) {
      const evaluator = countedWordsEvaluator();
      const result = await optimizeAnything({
        seedCandidate: 'words:',
        evaluator,
        reflectionLm: appendingReflection(),
        refiner: { refinerLm: appendingRefiner(), maxRefinements: 2 },
        maxMetricCalls: budget,
      });
      expect(evaluator.calls).toBe(result.metricCalls);
      expect(result.metricCalls).toBeLessThanOrEqual(budget);
    }
  });

  it('a batched run with the refiner is the same run with 1 worker or 8', async () => {
    const run = (workers: number) =>
      optimizeAnything({
        seedCandidate: 'words:',
        evaluator: (candidate) => wordsScore(candidate),
        reflectionLm: appendingReflection(),
        refiner: { refinerLm: appendingRefiner(), maxRefinements: 1 },
        schedule: { kind: 'batched', parents: 2, perParent: 2 },
        workers,
        maxMetricCalls: 30,
      });
    const [one, eight] = await Promise.all([run(1), run(8)]);
    const same = (r: typeof one) => ({ candidates: r.candidates, valScores: r.valScores, metricCalls: r.metricCalls, reflectionCalls: r.reflectionCalls, proposals: r.proposals });
    expect(same(eight)).toEqual(same(one));
    expect(eight.metricCalls).toBeLessThanOrEqual(30);
  });

  it('never passes the dollar budget: each refiner call is reserved before it is made', async () => {
    const reflection = Object.assign(async (prompt: string) => ({ text: (await appendingReflection()(prompt, { signal: new AbortController().signal })) as string, costUsd: 0.02 }), { estimateMaxCostUsd: () => 0.02 });
    for (const maxCostUsd of [0.05, 0.1, 0.17]) {
      const result = await optimizeAnything({
        seedCandidate: 'words:',
        evaluator: (candidate) => wordsScore(candidate),
        reflectionLm: reflection,
        refiner: { refinerLm: appendingRefiner(0.01), maxRefinements: 1 },
        maxCostUsd,
      });
      expect(result.costUsd).toBeLessThanOrEqual(maxCostUsd + 1e-12);
      expect(result.stopReason).toBe('maxCostUsd');
    }
  });

  it('a budget that cannot pay for the seed with its refinements is refused before any call', async () => {
    let calls = 0;
    const run = optimizeAnything({
      seedCandidate: 'x',
      evaluator: () => ++calls,
      dataset: [1, 2],
      reflectionLm: appendingReflection(),
      refiner: { maxRefinements: 2 },
      maxMetricCalls: 5,
    });
    await expect(run).rejects.toThrow('maxMetricCalls: 5 cannot pay for evaluating the seed on the valset with the refiner (6 calls at most)');
    expect(calls).toBe(0);
  });
});
