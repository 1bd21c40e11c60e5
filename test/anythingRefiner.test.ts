// optimizeAnything's refiner: after each evaluation the refiner model proposes a refined
// candidate from the side information and it is evaluated; a refined candidate that does better
// is a candidate of its own (its own score, its parent), so the best score and the best
// candidate are always one candidate's; its calls are metric and reflection calls of the run,
// inside its metric-call and dollar budgets.
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
  it('a refinement that does better is a candidate of its own, with its own score and its parent; the reflection reads the attempts', async () => {
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
    expect(result.candidates).toEqual(['words:', 'words: alpha', 'words: alpha beta']);
    expect(result.valScores).toEqual([0, 0.25, 0.5]);
    expect(result.parents).toEqual([[], [0], [1]]);
    expect(result.bestCandidate).toBe('words: alpha beta');
    expect(result.bestScore).toBe(0.5);
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
    // As with the cache: the seed refined twice, each refinement a candidate of its own.
    expect(result.valScores).toEqual([0, 0.25, 0.5]);
    expect(refiner.prompts.length).toBe(2);
    expect(evaluator.calls).toBe(result.metricCalls);
  });

  it("the best score is always the best candidate's own (the issue's run: never 0.8 for a text that scores 0.2), in both schedules", async () => {
    // Single-task: the artifact's score is the share of 'abcd' it starts with; the refiner appends the next letter.
    const score = (artifact: string) => {
      let n = 0;
      while (n < 4 && artifact[n] === 'abcd'[n]) n++;
      return n / 4;
    };
    for (const schedule of [{ kind: 'batched' as const }, { kind: 'async' as const, inFlight: 2 }]) {
      const scored = new Map<string, number>();
      const result = await optimizeAnything({
        seedCandidate: 'ab',
        evaluator: (artifact: string) => {
          scored.set(artifact, score(artifact));
          return { score: score(artifact), sideInfo: { Next: 'abcd'[artifact.length] ?? 'done' } };
        },
        reflectionLm: appendingReflection(),
        refiner: {
          refinerLm: async (prompt: string) => {
            const current = (JSON.parse(/```json\n([\s\S]*?)\n```/.exec(prompt)?.[1] ?? '{}') as { candidate: string }).candidate;
            return JSON.stringify({ candidate: current + ('abcd'[current.length] ?? '') });
          },
          maxRefinements: 2,
        },
        maxMetricCalls: 12,
        schedule,
      });
      expect(result.bestCandidate).toBe(result.candidates[result.bestIndex]);
      // Every candidate's score is its own text's, the best's included.
      result.candidates.forEach((c, i) => expect(result.valScores[i]).toBe(scored.get(c)));
      expect(result.bestScore).toBe(scored.get(result.bestCandidate));
      expect(result.candidates.slice(0, 3)).toEqual(['ab', 'abc', 'abcd']);
      expect(result.parents.slice(0, 3)).toEqual([[], [0], [1]]);
    }
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
