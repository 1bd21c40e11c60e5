// optimizeAnything: the three modes chosen as gepa chooses them, a string seed giving strings
// back, the evaluator called without an example in single-task search, side information and
// log() reaching the reflection, the objective and background in the prompt.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { log, optimizeAnything, type OptimizeAnythingOptions } from '../src/index.js';
import { foldRunEvent, initialSnapshot } from '../src/storage/runSnapshot.js';
import { failedRun } from './support/failedRun.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { appendingReflection, countedWordsEvaluator, wordScore, wordsScore, WORDS } from './support/anythingTask.js';

const scratch = mkdtempSync(join(tmpdir(), 'gepa-anything-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('optimizeAnything modes', () => {
  it('single-task search: string in, string out; the evaluator is called with no example', async () => {
    const examples: unknown[] = [];
    const argCounts: number[] = [];
    const result = await optimizeAnything({
      seedCandidate: 'words:',
      evaluator: (candidate, example, ctx) => {
        examples.push(example);
        argCounts.push(ctx === undefined ? 0 : 3);
        return wordsScore(candidate);
      },
      reflectionLm: appendingReflection(),
      maxMetricCalls: 20,
    });
    const best: string = result.bestCandidate;
    expect(best).toBe('words: alpha beta gamma delta');
    expect(result.bestScore).toBe(1);
    expect(result.candidates).toEqual(['words:', 'words: alpha', 'words: alpha beta', 'words: alpha beta gamma', 'words: alpha beta gamma delta']);
    expect(examples.every((e) => e === undefined)).toBe(true);
    // gepa's defaults: a perfect best does not end the run (optimize() would stop with 'perfectScore').
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.valSubscores.every((row) => row.length === 1)).toBe(true);
  });

  it('single-task search pays a proposal 2 calls, not 3: the child\'s evaluation is its valset evaluation, and the planner reserves no more', async () => {
    const evaluator = countedWordsEvaluator();
    const result = await optimizeAnything({ seedCandidate: 'words:', evaluator, reflectionLm: appendingReflection(), maxMetricCalls: 7 });
    // The seed (1), then three proposals of a parent evaluation and a child evaluation each.
    expect(evaluator.calls).toBe(7);
    expect(result.metricCalls).toBe(7);
    expect(result.proposals.length).toBe(3);
    expect(result.candidates).toEqual(['words:', 'words: alpha', 'words: alpha beta', 'words: alpha beta gamma']);
  });

  it('without the evaluation cache (cacheEvaluation: false) a single-task proposal reserves 3 calls again', async () => {
    const evaluator = countedWordsEvaluator();
    // cacheEvaluation is optimize()'s option on its way (the stop/callbacks work): given here untyped.
    const options = { seedCandidate: 'words:', evaluator, reflectionLm: appendingReflection(), maxMetricCalls: 7, cacheEvaluation: false };
    const result = await optimizeAnything(options as OptimizeAnythingOptions<string, undefined>);
    // Reserving 3 a proposal, 2 proposals fit in 7 calls (the third would need 3 of the 2 left).
    expect(result.proposals.length).toBe(2);
  });

  it('multi-task search: the dataset is also the valset', async () => {
    const result = await optimizeAnything({
      seedCandidate: { prompt: 'say' },
      evaluator: (candidate, word: string) => wordScore(candidate.prompt ?? '', word),
      dataset: [...WORDS],
      reflectionLm: appendingReflection(),
      maxMetricCalls: 200,
      seed: 1,
    });
    expect(result.valSubscores[0]).toEqual([0, 0, 0, 0]);
    expect(result.bestScore).toBe(1);
    expect(Object.keys(result.bestCandidate)).toEqual(['prompt']);
  });

  it('generalization: scored on the valset, reflecting on the dataset', async () => {
    const seen = new Set<string>();
    const result = await optimizeAnything({
      seedCandidate: 'say',
      evaluator: (candidate, word: string) => {
        seen.add(word);
        return wordScore(candidate, word);
      },
      dataset: ['alpha', 'beta'],
      valset: ['alpha', 'beta', 'gamma'],
      reflectionLm: appendingReflection(),
      maxMetricCalls: 60,
    });
    expect(result.valSubscores.every((row) => row.length === 3)).toBe(true);
    // gamma is only in the valset: nothing teaches it, so 2 of 3 is the best there is.
    expect(result.bestScore).toBeCloseTo(2 / 3, 12);
    expect(result.bestCandidate.split(' ').sort()).toEqual(['alpha', 'beta', 'say']);
    expect([...seen].sort()).toEqual(['alpha', 'beta', 'gamma']);
  });
});

describe('side information and the reflection prompt', () => {
  it('states the objective and background, the side information and the log lines', async () => {
    const reflection = appendingReflection();
    await optimizeAnything({
      seedCandidate: 'words:',
      evaluator: (candidate) => {
        log('length is', candidate.length);
        return wordsScore(candidate);
      },
      objective: 'Mention every Greek letter the checker wants.',
      background: 'Words are separated by spaces.',
      reflectionLm: reflection,
      maxMetricCalls: 5,
    });
    const prompt = reflection.prompts[0] as string;
    expect(prompt).toContain('## What it is for\nMention every Greek letter the checker wants.');
    expect(prompt).toContain('## What to know about the domain\nWords are separated by spaces.');
    expect(prompt).toContain('## Next\nalpha');
    expect(prompt).toContain('## log\nlength is 6');
  });

  it('an evaluator may return a bare number; the reflection then reads the score and the log lines', async () => {
    const reflection = appendingReflection();
    const result = await optimizeAnything({
      seedCandidate: 'words:',
      evaluator: (candidate) => {
        const { score, sideInfo } = wordsScore(candidate);
        log('Next:', sideInfo['Next']);
        return score;
      },
      reflectionLm: reflection,
      maxMetricCalls: 5,
    });
    expect(reflection.prompts[0]).toContain('## Score\n0\n\n## log\nNext: alpha');
    expect(result.valScores).toEqual([0]);
  });
});

describe('seedless', () => {
  it('the reflection model writes the first candidate from the objective, the background and a few examples: a reflection call', async () => {
    const prompts: string[] = [];
    const reflectionLm = async (prompt: string) => {
      prompts.push(prompt);
      if (prompt.startsWith('Write the first version')) return { text: '```\nsay\n```', costUsd: 0.5 };
      return appendingReflection()(prompt, { signal: new AbortController().signal });
    };
    const events: string[] = [];
    const result = await optimizeAnything({
      evaluator: (candidate, word: string) => wordScore(candidate, word),
      dataset: ['alpha', 'beta', 'gamma', 'delta'],
      objective: 'Mention the word of each example.',
      background: 'One word per example.',
      reflectionLm,
      maxMetricCalls: 4,
      onEvent: (e) => events.push(e.type),
    });
    expect(prompts[0]).toContain('## What it is for\nMention the word of each example.');
    expect(prompts[0]).toContain('## What to know about the domain\nOne word per example.');
    expect(prompts[0]).toContain('1. alpha\n2. beta\n3. gamma\n\n');
    expect(prompts[0]).not.toContain('delta');
    expect(result.candidates[0]).toBe('say');
    // Announced before the run starts evaluating it; a run directory's state.json shows it from then on.
    expect(events.slice(0, 2)).toEqual(['seed.written', 'run.started']);
    expect(foldRunEvent(initialSnapshot({ candidate: '' }), { type: 'seed.written', candidate: { candidate: 'say' } }).candidates[0]?.candidate).toEqual({ candidate: 'say' });
    expect(result.reflectionCalls).toBe(1);
    expect(result.costUsd).toBe(0.5);
    expect(result.metricCalls).toBe(4);
  });

  it('a seed reply with no text fails the run (RunFailedError), not a crash', async () => {
    const { result } = await failedRun<{ candidates: string[] } & OptimizeResult>(optimizeAnything({ evaluator: () => 0.5, objective: 'anything', reflectionLm: async () => '```\n\n```', maxMetricCalls: 5 }));
    expect(result.error).toBe('the reflection model wrote no seed candidate (its reply held no text)');
    expect(result.candidates).toEqual(['']);
  });

  it('a resumed seedless run does not ask for the seed again: it is in the run directory', async () => {
    const runDir = join(scratch, 'seedless');
    const seedPrompts: number[] = [];
    const run = (process: number, abortAtCall?: number) => {
      const abort = new AbortController();
      let calls = 0;
      return optimizeAnything({
        evaluator: (candidate, word: string) => {
          if (++calls === abortAtCall) abort.abort(new Error('killed'));
          return wordScore(candidate, word);
        },
        dataset: ['alpha', 'beta'],
        objective: 'Mention the word of each example.',
        reflectionLm: async (prompt: string, ctx: { signal: AbortSignal }) => {
          if (!prompt.startsWith('Write the first version')) return appendingReflection()(prompt, ctx);
          seedPrompts.push(process);
          return `\`\`\`\nseed written in process ${process}\n\`\`\``;
        },
        runIdentity: { reflectionLm: 'appending' },
        runDir,
        signal: abort.signal,
        maxMetricCalls: 12,
      });
    };
    const first = await run(1, 3);
    expect(first.stopReason).toBe('aborted');
    const resumed = await run(2);
    expect(seedPrompts).toEqual([1]);
    expect(resumed.candidates[0]).toBe('seed written in process 1');
    expect(resumed.stopReason).not.toBe('aborted');
    expect(resumed.reflectionCalls).toBeGreaterThan(1);
  });

  it('resuming with another objective is refused, naming it', async () => {
    const runDir = join(scratch, 'objective');
    const options = { seedCandidate: 'w', evaluator: () => 0.5, reflectionLm: appendingReflection(), runIdentity: { reflectionLm: 'appending' }, runDir, maxMetricCalls: 3 };
    await optimizeAnything({ ...options, objective: 'first goal' });
    await expect(optimizeAnything({ ...options, objective: 'another goal' })).rejects.toThrow('objective: "first goal" in the run directory, "another goal" now');
  });

  it('ctx.state lists the best evaluations finished before the call, best first (gepa\'s opt_state)', async () => {
    const seen: Array<Array<{ score: number; next: unknown }>> = [];
    await optimizeAnything({
      seedCandidate: 'words:',
      evaluator: (candidate, _example, ctx) => {
        seen.push(ctx.state.bestEvaluations.map((e) => ({ score: e.score, next: e.sideInfo['Next'] })));
        return wordsScore(candidate);
      },
      reflectionLm: appendingReflection(),
      workers: 1,
      maxMetricCalls: 5,
    });
    const seed = { score: 0, next: 'alpha' };
    const child = { score: 0.25, next: 'beta' };
    // The seed; the seed as parent, its child; the child as parent, its child.
    expect(seen).toEqual([[], [seed], [seed, seed], [child, seed, seed], [child, child, seed, seed]]);
  });
});
