// maxCandidateLength (gepa issue #272), a rule on every reflection strategy's texts: a text over the
// limit goes back to the reflection model once with the limit stated; still over it, the proposal
// is refused with the reason and its child is never evaluated. Counted per proposal and in the
// result; both schedules; optimizeAnything's string seed (one component) too; a run cut short
// resumes to the same result without asking a logged retry again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import { ConfigError } from '../src/errors/configError.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import { afterRetry, overLimit, REFUSED_TOO_LONG, shortenPrompt, textLength } from '../src/gepa/reflection/lengthLimit.js';
import { lengthLine } from '../src/gepa/reflection/builtInPrompt.js';
import { proposeNewTexts } from '../src/gepa/reflection/proposeNewTexts.js';
import { afterRound, startReflection, withReply, type ReflectionRun, type ReflectionView } from '../src/gepa/reflection/reflectionRun.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { runConfigSchema } from '../src/cli/runConfig.js';
import { resolveSettings } from '../src/config/runSettings.js';
import { runConfigRecord } from '../src/storage/runConfigRecord.js';
import { seedWritten } from '../src/gepa/search/searchRun.js';
import { formatSummary } from '../src/cli/runSummary.js';
import { renderReport } from '../src/report/renderReport.js';
import { tooLongText } from '../src/report/runWording.js';
import { hashUnit } from './support/toyTask.js';
import { test, toyRunConfig } from './support/toyRun.js';
import { optimize, optimizeAnything, type OptimizeResult } from '../src/index.js';
import { readRunLog } from '../src/storage/runLog.js';

const fenced = (text: string) => `\`\`\`\n${text}\n\`\`\``;

describe('the rule', () => {
  test('characters are code points; only a new text over the limit is sent back', () => {
    expect(textLength('ab🙂')).toBe(3);
    const parent = { a: 'x'.repeat(50), b: 'short' };
    const texts = [{ text: 'x'.repeat(50), note: '' }, { text: 'y'.repeat(11), note: '' }];
    // a is the parent's own text (the seed may be long): not sent back; b is new and over 10.
    expect(overLimit(parent, ['a', 'b'], texts, 10)).toEqual(['b']);
    expect(overLimit(parent, ['a', 'b'], texts, undefined)).toEqual([]);
    expect(overLimit(parent, ['a', 'b'], [{ text: null, note: '' }, { text: 'y'.repeat(10), note: '' }], 10)).toEqual([]);
  });

  test('the retry prompt states the length and the limit; its reply replaces the text when it fits, else the proposal is refused naming each text', () => {
    expect(shortenPrompt('instructions', 'x'.repeat(12), 10)).toContain('is 12 characters long, but it must be at most 10 characters');
    const retry = { texts: [{ text: 'x'.repeat(12), note: 'unchanged text' }, { text: 'z'.repeat(14), note: 'unchanged text' }], sentBack: ['a', 'b'] };
    expect(afterRetry(retry, ['a', 'b'], [{ ok: true, text: fenced('short a') }, { ok: true, text: fenced('short b') }], 10)).toEqual({
      texts: [{ text: 'short a', note: 'unchanged text' }, { text: 'short b', note: 'unchanged text' }],
    });
    expect(afterRetry(retry, ['a', 'b'], [{ ok: true, text: fenced('y'.repeat(11)) }, { ok: false, error: 'HTTP 500' }], 10)).toEqual({
      refused: `${REFUSED_TOO_LONG} (10 characters): a: 12 characters, 11 after one retry; b: 14 characters, and the retry failed: HTTP 500`,
    });
  });

  test('in the reflection run, for any strategy: the retry round comes before any child, and what it did is kept for the record', () => {
    // The user's proposeNewTexts strategy: its texts are checked as the built-in prompt's are.
    const parent: Candidate = { instructions: 'Answer.' };
    const view: ReflectionView = { parent, components: ['instructions'], dataset: {}, parentEvaluations: [{ score: 0 }], reflection: { strategy: proposeNewTexts, maxCandidateLength: 10 } };
    const first = startReflection({ dataset: {} }, view);
    const run = (first.kind === 'go-on' ? first.reflecting : undefined) as ReflectionRun;
    const retried = afterRound(view, withReply(run, 0, { ok: true, texts: { instructions: 'Answer in metres.' } }));
    expect(retried).toMatchObject({ kind: 'ask', reflecting: { asks: [{ kind: 'prompt', prompt: shortenPrompt('instructions', 'Answer in metres.', 10) }], tooLong: { sentBack: 1, refused: false } } });
    const retry = (retried as { reflecting: ReflectionRun }).reflecting;
    expect(afterRound(view, withReply(retry, 0, { ok: true, text: fenced('In metres.') }))).toEqual({ kind: 'go-on', child: { instructions: 'In metres.' }, childHash: candidateHash({ instructions: 'In metres.' }) });
    expect(afterRound(view, withReply(retry, 0, { ok: true, text: fenced('Answer, in metres.') }))).toEqual({
      kind: 'skip',
      reason: `${REFUSED_TOO_LONG} (10 characters): instructions: 17 characters, 18 after one retry`,
      reflecting: expect.objectContaining({ tooLong: { sentBack: 1, refused: true } }),
    });
  });

  test('a positive integer; a run directory records it (a resume must match it)', () => {
    const minimal = { seedCandidate: { a: 'x' }, trainset: [1], adapter: { evaluate: async () => ({ score: 0 }) }, reflectionLm: async () => '', maxMetricCalls: 5 };
    expect(() => resolveSettings({ ...minimal, maxCandidateLength: 0 })).toThrow(ConfigError);
    expect(() => resolveSettings({ ...minimal, maxCandidateLength: 2.5 })).toThrow(/maxCandidateLength/);
    expect(runConfigRecord(minimal, resolveSettings({ ...minimal, maxCandidateLength: 500 })).settings.maxCandidateLength).toBe(500);
    expect('maxCandidateLength' in runConfigRecord(minimal, resolveSettings(minimal)).settings).toBe(false);
    // The command line's run config takes it as optimize() does.
    expect(runConfigSchema.safeParse({ reflectionModel: 'm', maxCandidateLength: 500 }).success).toBe(true);
  });
});

const LIMIT = 40;
const isRetry = (prompt: string) => prompt.includes('characters long, but it must be at most');

/**
 * The toy task's reflection (append a keyword the feedback asks for); a retry prompt is obeyed for
 * about half the texts (cut to the limit at a word) and ignored for the others.
 */
const reflection = (prompts: string[]): LanguageModel => async (prompt) => {
  prompts.push(prompt);
  const current = prompt.split('```')[1]?.trim() ?? '';
  if (isRetry(prompt)) {
    if (hashUnit(current) < 0.5) return fenced(current);
    const limit = Number(/at most (\d+) characters/.exec(prompt)?.[1]);
    const words = current.split(' ');
    while (words.join(' ').length > limit) words.pop();
    return fenced(words.join(' '));
  }
  const wanted = [...prompt.matchAll(/needs the word (\w+)/g)].map((m) => m[1]).find((w) => !current.includes(w as string));
  return fenced(`${current}${wanted ? ` ${wanted}` : ''}`);
};

describe('maxCandidateLength in a run', () => {
  for (const schedule of [{ kind: 'batched' as const }, { kind: 'async' as const, inFlight: 4 }]) {
    test(`${schedule.kind}: no candidate over the limit is ever evaluated; texts over it are sent back once, counted, and refused when still over`, async ({ toyRun }) => {
      const prompts: string[] = [];
      const evaluated = new Set<string>();
      const { result, task } = await toyRun({ maxCandidateLength: LIMIT, reflectionLm: reflection(prompts), schedule, maxMetricCalls: 400, valsetSize: 12 });
      // Every candidate the adapter was asked to run (the toy task labels each call with it).
      for (const call of task.calls.filter((c) => c.kind === 'eval')) evaluated.add(call.label.split('|')[0] as string);
      expect(evaluated.size).toBeGreaterThan(3);
      for (const text of evaluated) expect(textLength(text), text).toBeLessThanOrEqual(LIMIT);

      const retries = prompts.filter(isRetry);
      const refused = result.proposals.filter((p) => p.tooLong?.refused);
      // Texts went over the limit, some retries fitted (their proposals went on), some did not.
      expect(retries.length).toBeGreaterThan(2);
      expect(refused.length).toBeGreaterThan(0);
      expect(result.proposals.filter((p) => p.tooLong && !p.tooLong.refused).length).toBeGreaterThan(0);
      expect(result.tooLong).toEqual({ textsSentBack: retries.length, proposalsRefused: refused.length });
      for (const p of refused) expect(p).toMatchObject({ outcome: 'skipped', reason: expect.stringMatching(new RegExp(`^${REFUSED_TOO_LONG} \\(40 characters\\): instructions: \\d+ characters, \\d+ after one retry$`)) });
      // Each retry is a reflection call; the built-in prompt states the limit up front.
      expect(result.reflectionCalls).toBe(prompts.length);
      for (const prompt of prompts.filter((p) => !isRetry(p))) expect(prompt.endsWith(`\n${lengthLine(LIMIT)}`)).toBe(true);
      // The CLI's summary and report.html say it in one line.
      const line = `${retries.length} texts over maxCandidateLength sent back, ${refused.length} proposal${refused.length === 1 ? '' : 's'} refused (never evaluated)`;
      expect(tooLongText(result.tooLong ?? { textsSentBack: 0, proposalsRefused: 0 })).toBe(line);
      expect(formatSummary({ heading: 'run', result }).split('\n')).toContain(line);
      const html = renderReport({ title: 'run', result, workers: 8, schedule: { kind: 'batched', parents: 1, perParent: 1 }, minibatchSize: 3, slotIntervals: [], runStartedAt: 0 });
      expect(html).toContain(line);
    });
  }

  test('optimizeAnything with a string seed: the one text is the candidate, and none over the limit is evaluated', async () => {
    const clock = steppingClock(new SimulatedClock());
    const seen: string[] = [];
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
    const result = await runOnSimulatedClock(
      clock,
      optimizeAnything({
        seedCandidate: 'Say:',
        dataset: words,
        evaluator: (candidate: string, word: string) => {
          seen.push(candidate);
          return candidate.includes(word) ? 1 : { score: 0, sideInfo: { feedback: `the answer needs the word ${word}` } };
        },
        reflectionLm: reflection([]),
        maxCandidateLength: 24,
        maxMetricCalls: 150,
        clock,
      }),
    );
    expect(new Set(seen).size).toBeGreaterThan(2);
    for (const text of seen) expect(textLength(text), text).toBeLessThanOrEqual(24);
    expect(result.tooLong?.textsSentBack).toBeGreaterThan(0);
    expect(typeof result.bestCandidate).toBe('string');
  });

  test("optimizeAnything, seedless: the seed prompt states the limit, a seed over it is sent back once; the refiner's candidates over it are never evaluated", async () => {
    const clock = steppingClock(new SimulatedClock());
    const seen: string[] = [];
    const prompts: string[] = [];
    const toy = reflection(prompts);
    const asked: string[] = [];
    const result = await runOnSimulatedClock(
      clock,
      optimizeAnything({
        objective: 'Name every word of the dataset.',
        dataset: ['alpha', 'beta', 'gamma'],
        evaluator: (candidate: string, word: string) => {
          seen.push(candidate);
          return candidate.includes(word) ? 1 : { score: 0, sideInfo: { feedback: `the answer needs the word ${word}` } };
        },
        // The seed comes too long first, and fits when sent back; the refiner always answers too long.
        reflectionLm: async (prompt, ctx) => {
          asked.push(prompt);
          if (prompt.startsWith('Write the first version')) return fenced('Say the word, every word, all the words.');
          if (prompt.includes('Say the word, every word, all the words.')) return fenced('Say the word, every word');
          return toy(prompt, ctx);
        },
        refiner: { refinerLm: async () => JSON.stringify({ candidate: 'Say: alpha beta gamma, and nothing else at all.' }), maxRefinements: 1 },
        maxCandidateLength: 24,
        maxMetricCalls: 60,
        clock,
      }),
    );
    expect(asked[0]).toMatch(/^Write the first version[^]*\nThe artifact must be at most 24 characters long\.$/);
    expect(asked[1]).toContain('is 40 characters long, but it must be at most 24 characters');
    expect(result.candidates[0]).toBe('Say the word, every word');
    expect(seen.length).toBeGreaterThan(3);
    for (const text of seen) expect(textLength(text), text).toBeLessThanOrEqual(24);
  });
});

describe('resuming a run directory', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'gepa-length-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** One process's part of a batched toy run with the limit, aborted at `abortAtMs` of simulated time; its reflection prompts. */
  async function runIn(runDir: string | undefined, abortAtMs?: number): Promise<{ result: OptimizeResult; prompts: string[] }> {
    const prompts: string[] = [];
    const { config, clock } = toyRunConfig({ maxCandidateLength: LIMIT, reflectionLm: reflection(prompts), maxMetricCalls: 200, valsetSize: 12 });
    const abort = new AbortController();
    if (abortAtMs !== undefined) clock.setTimeout(() => abort.abort(new Error('killed')), abortAtMs);
    const result = await runOnSimulatedClock(clock, optimize({ ...config, ...(runDir ? { runDir, runIdentity: { reflectionLm: 'toy' } } : {}), signal: abort.signal }));
    return { result, prompts };
  }
  const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;

  test('a run cut short resumes to the uninterrupted result, its retries and refusals counted once and never asked again', async () => {
    const reference = await runIn(undefined);
    expect(reference.result.tooLong?.proposalsRefused).toBeGreaterThan(0);
    const dir = join(scratch, 'cut');
    const cut = await runIn(dir, Math.floor(reference.result.elapsedMs * 0.5));
    expect(cut.result.stopReason).toBe('aborted');
    expect(cut.prompts.filter(isRetry).length).toBeGreaterThan(0);
    const logged = (t: string) => readRunLog(join(dir, 'log.jsonl')).records.filter((r) => r.t === t).length;
    const loggedReplies = logged('reflect');
    expect(loggedReplies).toBeGreaterThan(0);
    const resumed = await runIn(dir);
    expect(essence(resumed.result)).toEqual(essence(reference.result));
    // Every logged reply (retries among them) is read back, never asked again.
    expect(resumed.prompts.length).toBe(reference.prompts.length - loggedReplies);
    expect(resumed.result.metricCalls).toBe(logged('eval'));
  });
});

describe('a seed the reflection model writes (seedless)', () => {
  test('over the limit after its retry: the run stops with the reason before the seed is evaluated', () => {
    const run = { spentUsd: 0, seedRetry: undefined as string | undefined } as Parameters<typeof seedWritten>[0];
    const long = { ok: true as const, reply: { text: fenced('x'.repeat(30)) }, costUsd: 0 };
    const first = seedWritten(run, 'candidate', long, 24);
    expect(first).toEqual({ update: { spentUsd: 0, seedRetry: shortenPrompt('candidate', 'x'.repeat(30), 24) }, events: [] });
    const second = seedWritten({ ...run, ...first.update }, 'candidate', { ...long, reply: { text: fenced('x'.repeat(25)) } }, 24);
    expect(second.update).toMatchObject({ stopReason: 'error', error: 'the seed candidate the reflection model wrote is over maxCandidateLength (24 characters): 25 characters after one retry' });
    expect(second.update.writtenSeed).toBeUndefined();
  });
});
