// The bookkeeping bench task (issue 47's failure-scaling task): reproducible invoices that each
// need four different house rules, some rules far more common than others; a score that climbs
// with every rule the prompt states and falls for a misread one; feedback that names every broken
// rule; and a reflection LM that fixes about sqrt(k) of the k broken rules it is shown (at most
// four), whose fixes come out generic in an overloaded prompt, and whose latency grows with the
// prompt's tokens.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { parseRulePrompt } from '../src/demo/bookkeeping/rulePrompt.js';
import { GENERIC_SENTENCES, HOUSE_RULES, type HouseRule, type RuleId } from '../src/demo/bookkeeping/houseRules.js';
import { createBookkeepingTask, BOOKKEEPING_SEED_CANDIDATE, type BookkeepingTask, type InvoiceExample } from '../src/demo/bookkeeping/bookkeepingTask.js';
import { expectedFixes, MAX_FIXES, promptLatencyFactor, promptTokens } from '../src/demo/bookkeeping/bookkeepingReflection.js';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LmReply } from '../src/gepa/core/languageModel.js';
import { batchedTaskRun } from './support/taskUnderOptimizer.js';

const ctx = { captureTraces: false, signal: new AbortController().signal };
const TASKS = [0, 1, 2].map((seed) => createBookkeepingTask({ seed }));
const examplesOf = (task: BookkeepingTask) => [...task.trainset, ...task.valset, ...task.testset];
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const replyText = (reply: string | LmReply) => (typeof reply === 'string' ? reply : reply.text);
const INTRO = BOOKKEEPING_SEED_CANDIDATE.system_prompt as string;
/** The intro and the k rules invoices need most, one sentence each. */
const listing = (k: number, ...extra: string[]): Candidate => ({ system_prompt: [INTRO, ...HOUSE_RULES.slice(0, k).map((r) => r.phrasings[0] as string), ...extra].join('\n') });

async function meanScore(candidate: Candidate): Promise<number> {
  const scores: number[] = [];
  for (const task of TASKS) for (const ex of examplesOf(task)) scores.push((await task.adapter.evaluate(candidate, ex, ctx)).score);
  return mean(scores);
}

describe('bookkeeping dataset', () => {
  it('is a function of the seed, with the requested sizes, four different rules an invoice, some rules far more common', () => {
    const again = createBookkeepingTask({ seed: 1 });
    expect(examplesOf(again)).toEqual(examplesOf(TASKS[1] as BookkeepingTask));
    expect(again.valset.map((e) => e.input)).not.toEqual(TASKS[0]?.valset.map((e) => e.input));
    expect([again.trainset.length, again.valset.length, again.testset.length]).toEqual([60, 30, 60]);
    const counts = new Map<RuleId, number>();
    for (const task of TASKS) {
      for (const ex of examplesOf(task)) {
        expect(new Set(ex.rules).size).toBe(4);
        for (const r of ex.rules) counts.set(r, (counts.get(r) ?? 0) + 1);
      }
    }
    expect(counts.size).toBe(24);
    expect(counts.get('isoDate')).toBeGreaterThan(8 * (counts.get('description') as number));
  });

  it('reads each wording of a rule as that rule alone, a misreading as wrong, and generic sentences as no rule', () => {
    for (const rule of HOUSE_RULES) {
      for (const sentence of rule.phrasings) expect([...parseRulePrompt(sentence).stated]).toEqual([[rule.id, { sentence, wrong: false }]]);
      for (const sentence of rule.wrongPhrasings) expect([...parseRulePrompt(sentence).stated]).toEqual([[rule.id, { sentence, wrong: true }]]);
    }
    for (const sentence of [...GENERIC_SENTENCES, INTRO]) expect(parseRulePrompt(sentence).stated.size).toBe(0);
  });
});

describe('bookkeeping scores', () => {
  it('gives the seed 0.2 to 0.35, climbs with the rules stated, near 0.96 with all 24, and falls for a misread rule', async () => {
    const seed = await meanScore(BOOKKEEPING_SEED_CANDIDATE);
    expect(seed).toBeGreaterThan(0.2);
    expect(seed).toBeLessThan(0.35);
    const scores = await Promise.all([4, 8, 12, 16, 20, 24].map((k) => meanScore(listing(k))));
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeGreaterThan((scores[i - 1] as number) + 0.02);
    expect(scores[5]).toBeGreaterThan(0.93);
    expect(scores[5]).toBeLessThan(0.99);
    const isoDate = HOUSE_RULES[0] as HouseRule;
    const misread = await meanScore({ system_prompt: (listing(12).system_prompt as string).replace(isoDate.phrasings[0] as string, isoDate.wrongPhrasings[0] as string) });
    expect(misread).toBeLessThan((scores[2] as number) - 0.05);
  });

  it('names every broken rule in its feedback and keeps the hidden rules out of the records', async () => {
    const task = TASKS[0] as BookkeepingTask;
    const results = await Promise.all(task.trainset.map(async (example) => ({ example, evaluation: await task.adapter.evaluate(listing(6), example, { ...ctx, captureTraces: true }) })));
    for (const { example, evaluation } of results) {
      const named = HOUSE_RULES.filter((r) => evaluation.feedback?.includes(r.requirement)).length;
      expect(named).toBe(Math.round((1 - evaluation.score) * example.rules.length));
    }
    expect(results.some((r) => r.evaluation.feedback?.startsWith('Correct'))).toBe(true);
    const dataset = await task.adapter.makeReflectiveDataset?.(listing(6), results, ['system_prompt']);
    expect(Object.keys(dataset?.system_prompt?.[0] as object)).toEqual(['Inputs', 'Generated Outputs', 'Feedback']);
    expect(JSON.stringify(dataset)).not.toContain('"rules"');
  });

  it('rejects a candidate without its component with an error that names it', async () => {
    const task = TASKS[0] as BookkeepingTask;
    await expect(task.adapter.evaluate({ prompt: 'Hi.' }, task.valset[0] as InvoiceExample, ctx)).rejects.toThrow(/needs component 'system_prompt'; this candidate has: prompt/);
  });
});

describe('bookkeeping reflection model', () => {
  /** One failed record per rule of `broken` (cycling), `records` records in all. */
  function records(broken: readonly HouseRule[], count: number) {
    return Array.from({ length: count }, (_, i) => {
      const rule = broken[i % broken.length] as HouseRule;
      return { Inputs: `Invoice ${i}.`, 'Generated Outputs': rule.wrong, Feedback: `Rule broken: ${rule.requirement} (the entry has "${rule.wrong}").` };
    });
  }

  /** Over 60 task seeds: the rules stated rightly in the children of INTRO, and the children's generic sentences. */
  async function children(broken: readonly HouseRule[], count: number): Promise<{ added: number; generic: number }> {
    let added = 0;
    let generic = 0;
    for (let seed = 0; seed < 60; seed++) {
      const lm = createBookkeepingTask({ seed, trainSize: 0, valSize: 0, testSize: 0 }).reflectionLm;
      const child = extractInstruction(replyText(await lm(buildReflectionPrompt('system_prompt', INTRO, records(broken, count)), ctx))) ?? '';
      added += [...parseRulePrompt(child).stated.values()].filter((s) => !s.wrong).length;
      generic += GENERIC_SENTENCES.filter((s) => child.includes(s)).length;
    }
    return { added: added / 60, generic: generic / 60 };
  }

  it('fixes more rules the more kinds of failure it is shown, about sqrt(k) of them, at most four', async () => {
    expect([1, 4, 9, 16, 24].map(expectedFixes)).toEqual([1, 2, 3, 4, MAX_FIXES]);
    const byKinds = await Promise.all([1, 4, 9, 16].map((k) => children(HOUSE_RULES.slice(0, k), Math.min(k, 12))));
    const added = byKinds.map((c) => c.added);
    for (let i = 1; i < added.length; i++) expect(added[i]).toBeGreaterThan((added[i - 1] as number) + 0.2);
    // A fix edit is about 60% of edits: sublinear (16 kinds give far fewer than 16 fixes) and capped.
    expect(added[3]).toBeLessThan(MAX_FIXES);
    expect(added[3]).toBeGreaterThan(1.5);
  });

  it('writes generic sentences instead of fixes when one prompt holds far more examples than it can digest', async () => {
    const kinds = HOUSE_RULES.slice(0, 12);
    const [digestible, overloaded] = await Promise.all([children(kinds, 12), children(kinds, 48)]);
    expect(overloaded.generic).toBeGreaterThan(digestible.generic + 0.3);
    expect(overloaded.added).toBeLessThan(digestible.added - 0.3);
  });

  it('takes longer on a longer prompt: reflectionMs at the reference size, half of it growing with the tokens', async () => {
    const short = buildReflectionPrompt('system_prompt', INTRO, records(HOUSE_RULES.slice(0, 3), 3));
    const long = buildReflectionPrompt('system_prompt', INTRO, records(HOUSE_RULES.slice(0, 12), 40));
    const elapsed = async (prompt: string) => {
      const times: number[] = [];
      for (let seed = 0; seed < 20; seed++) {
        const clock = steppingClock(new SimulatedClock());
        const lm = createBookkeepingTask({ seed, trainSize: 0, valSize: 0, testSize: 0, reflectionMs: 100, clock }).reflectionLm;
        await runOnSimulatedClock(clock, lm(prompt, ctx));
        times.push(clock.now());
      }
      return mean(times);
    };
    const [shortMs, longMs] = [await elapsed(short), await elapsed(long)];
    expect(longMs / shortMs).toBeCloseTo(promptLatencyFactor(promptTokens(long)) / promptLatencyFactor(promptTokens(short)), 0);
    expect(longMs).toBeGreaterThan(2 * shortMs);
    expect(promptLatencyFactor(670)).toBe(1);
  });
});

describe('bookkeeping under the optimizer', () => {
  it('improves on the seed and gives the same batched run for 2 and 16 workers', async () => {
    const [two, sixteen] = [await batchedTaskRun(createBookkeepingTask, 2), await batchedTaskRun(createBookkeepingTask, 16)];
    expect(sixteen.bestCandidate).toEqual(two.bestCandidate);
    expect(sixteen.valScores).toEqual(two.valScores);
    expect(two.bestScore).toBeGreaterThan((two.valScores[0] as number) + 0.2);
  });
});
