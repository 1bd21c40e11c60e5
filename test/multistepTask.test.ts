// The two-stage (planner + answer) bench task: reproducible data and scores, a seed that leaves
// headroom, partial credit, rules that only pay off together, clashing wordings and clutter that
// hurt, feedback that names the stage, and a reflection LM that acts on the feedback it is shown.
import { describe, expect, it } from 'vitest';
import { createMultistepTask, MULTISTEP_SEED_CANDIDATE, type MultistepExample, type MultistepTask } from '../src/demo/multistep/multistepTask.js';
import { overlookRate, parseStagePrompt } from '../src/demo/multistep/stagePrompt.js';
import { ruleOf, STAGE_RULES, VAGUE_SENTENCES, type RuleId, type Stage } from '../src/demo/multistep/stageRules.js';
import type { FamilyName } from '../src/demo/multistep/problemFamilies.js';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LmReply } from '../src/gepa/core/languageModel.js';
import { batchedTaskRun } from './support/taskUnderOptimizer.js';

const ctx = { captureTraces: false, signal: new AbortController().signal };
const SEEDS = [0, 1, 2];
const TASKS = SEEDS.map((seed) => createMultistepTask({ seed }));
const examplesOf = (task: MultistepTask) => [...task.trainset, ...task.valset, ...task.testset];
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const replyText = (reply: string | LmReply) => (typeof reply === 'string' ? reply : reply.text);

/** One wording per rule of the stage (the scoped one where a broad wording would clash). */
function rulesOf(stage: Stage, leave: readonly RuleId[] = []): string[] {
  return STAGE_RULES.filter((r) => r.stage === stage && !leave.includes(r.id)).map((r) => r.conflict?.scopedPhrasings[0] ?? (r.phrasings[0] as string));
}
const GOOD: Candidate = {
  planner: ['You plan the steps of a word problem.', ...rulesOf('planner')].join('\n'),
  answer: ['You compute and format the final answer.', ...rulesOf('answer')].join('\n'),
};

async function meanScore(candidate: Candidate, families?: readonly FamilyName[]): Promise<number> {
  const scores: number[] = [];
  for (const task of TASKS) {
    for (const ex of examplesOf(task)) {
      if (families && !families.includes(ex.family)) continue;
      scores.push((await task.adapter.evaluate(candidate, ex, ctx)).score);
    }
  }
  return mean(scores);
}

describe('multistep dataset', () => {
  it('is a function of the seed, with the requested sizes and several families of different frequency', async () => {
    const again = createMultistepTask({ seed: 1 });
    expect(examplesOf(again)).toEqual(examplesOf(TASKS[1] as MultistepTask));
    expect(again.valset.map((e) => e.input)).not.toEqual(TASKS[0]?.valset.map((e) => e.input));
    expect([again.trainset.length, again.valset.length, again.testset.length]).toEqual([60, 30, 60]);
    const small = createMultistepTask({ seed: 1, trainSize: 7, valSize: 0, testSize: 3 });
    expect([small.trainset.length, small.valset.length, small.testset.length]).toEqual([7, 0, 3]);
    const counts = new Map<string, number>();
    for (const ex of again.trainset) counts.set(ex.family, (counts.get(ex.family) ?? 0) + 1);
    expect(counts.size).toBe(10);
    expect(counts.get('invoice')).toBeGreaterThan(counts.get('subscription') as number);
  });

  it('scores a candidate the same on every call, and a one-word change moves some examples', async () => {
    const task = TASKS[0] as MultistepTask;
    const run = (c: Candidate, on = task) => Promise.all(examplesOf(on).map(async (ex) => (await on.adapter.evaluate(c, ex, ctx)).score));
    const first = await run(GOOD);
    expect(await run(GOOD)).toEqual(first);
    expect(await run(GOOD, createMultistepTask({ seed: 0 }))).toEqual(first);
    const reworded = await run({ ...GOOD, answer: `${GOOD.answer} Be exact.` });
    expect(reworded).not.toEqual(first);
    expect(Math.abs(mean(reworded) - mean(first))).toBeLessThan(0.05);
  });
});

describe('multistep scores', () => {
  it('gives the seed candidate 0.2 to 0.4 with partial credit, and the full rule set far more', async () => {
    const seed = await meanScore(MULTISTEP_SEED_CANDIDATE);
    expect(seed).toBeGreaterThan(0.2);
    expect(seed).toBeLessThan(0.4);
    const task = TASKS[0] as MultistepTask;
    const grades = new Set(await Promise.all(examplesOf(task).map(async (ex) => (await task.adapter.evaluate(MULTISTEP_SEED_CANDIDATE, ex, ctx)).score)));
    expect([...grades].sort()).toEqual([0, 0.5, 1]);
    const good = await meanScore(GOOD);
    expect(good).toBeGreaterThan(0.85);
    expect(good).toBeLessThan(0.97);
  });

  it('needs rules from both stages, and pays an answer rule only once the plan gets the quantity right', async () => {
    expect(await meanScore({ ...GOOD, answer: MULTISTEP_SEED_CANDIDATE.answer as string })).toBeLessThan((await meanScore(GOOD)) - 0.2);
    expect(await meanScore({ ...GOOD, planner: MULTISTEP_SEED_CANDIDATE.planner as string })).toBeLessThan((await meanScore(GOOD)) - 0.3);
    const packing = ['packing'] as const;
    const planner = (pool: boolean) => ['You plan the steps.', ...rulesOf('planner', pool ? [] : ['poolShipment'])].join('\n');
    const answer = (roundUp: boolean) => ['You answer.', ...rulesOf('answer', roundUp ? [] : ['roundUp'])].join('\n');
    const gainWithPlan = (await meanScore({ planner: planner(true), answer: answer(true) }, packing)) - (await meanScore({ planner: planner(true), answer: answer(false) }, packing));
    const gainWithoutPlan = (await meanScore({ planner: planner(false), answer: answer(true) }, packing)) - (await meanScore({ planner: planner(false), answer: answer(false) }, packing));
    expect(gainWithPlan).toBeGreaterThan(0.3);
    expect(gainWithoutPlan).toBeLessThan(gainWithPlan / 2);
  });

  it('makes clashing rules worse than neither on the examples they touch, unless the broad one is scoped', async () => {
    const base = ['You compute and format the final answer.', ...rulesOf('answer', ['money', 'oneDecimal'])];
    const touched = ['invoice', 'netRevenue', 'splitBill', 'subscription', 'tank'] as const;
    const withAnswer = (...extra: string[]) => ({ planner: GOOD.planner as string, answer: [...base, ...extra].join('\n') });
    const money = ruleOf('money').phrasings[0] as string;
    const neither = await meanScore(withAnswer(), touched);
    const broad = await meanScore(withAnswer(money, 'Round every result to one decimal place.'), touched);
    const scoped = await meanScore(withAnswer(money, 'Round times in minutes to the nearest tenth.'), touched);
    expect(parseStagePrompt(withAnswer(money, 'Round every result to one decimal place.').answer, 'answer').clashing).toEqual(new Set(['money', 'oneDecimal']));
    expect(broad).toBeLessThan(neither - 0.03);
    expect(scoped).toBeGreaterThan(neither + 0.2);
  });

  it('overlooks more rules as a prompt grows past about eight sentences, smoothly', async () => {
    expect(overlookRate(8)).toBeCloseTo(0.015, 5);
    expect(overlookRate(10)).toBeGreaterThan(overlookRate(9));
    expect(overlookRate(12) - overlookRate(11)).toBeGreaterThan(overlookRate(10) - overlookRate(9));
    expect(overlookRate(12) - overlookRate(11)).toBeLessThan(0.05);
    const padded = { ...GOOD, planner: [GOOD.planner, ...VAGUE_SENTENCES.planner, 'Show your working.', 'Be precise.', 'Use every step you need.'].join('\n') };
    expect(await meanScore(padded)).toBeLessThan((await meanScore(GOOD)) - 0.05);
  });

  it('says in its feedback which stage went wrong, and shows both stages in the reflection records', async () => {
    const task = TASKS[0] as MultistepTask;
    const results = await Promise.all(task.valset.map(async (example) => ({ example, evaluation: await task.adapter.evaluate(MULTISTEP_SEED_CANDIDATE, example, { ...ctx, captureTraces: true }) })));
    const feedback = results.map((r) => r.evaluation.feedback ?? '');
    expect(feedback.some((f) => f.includes('The plan went wrong'))).toBe(true);
    expect(feedback.some((f) => f.includes('answer stage wrote it wrongly'))).toBe(true);
    const dataset = await task.adapter.makeReflectiveDataset?.(MULTISTEP_SEED_CANDIDATE, results, ['planner', 'answer']);
    const record = dataset?.planner?.[0] as Record<string, string>;
    expect(Object.keys(record)).toEqual(['Inputs', 'Generated Outputs', 'Feedback']);
    expect(record['Generated Outputs']).toMatch(/^Plan: \(1\) .*\nAnswer: /);
    expect(JSON.stringify(dataset)).not.toContain('"family"');
  });

  it('rejects a candidate without one of its two components with an error that names it', async () => {
    const task = TASKS[0] as MultistepTask;
    const example = task.valset[0] as MultistepExample;
    await expect(task.adapter.evaluate({ planner: 'Plan.' }, example, ctx)).rejects.toThrow(/needs components 'planner' and 'answer'; this candidate has no 'answer'/);
  });
});

describe('multistep reflection model', () => {
  /** How often (over task seeds) the edit to `component` states `rule`, given feedback naming only that miss. */
  async function shareThatFixes(component: Stage, rule: RuleId, feedback: string, readAs: Stage = component): Promise<number> {
    const records = [
      { Inputs: 'An order has 3 mugs at $4.00 each. What does the customer pay?', 'Generated Outputs': 'Plan: (1) Add tax.\nAnswer: 12.6', Feedback: feedback },
      { Inputs: 'Each loaf needs 200 g of flour. How many kg?', 'Generated Outputs': 'Plan: (1) Convert.\nAnswer: 2 kg', Feedback: 'Correct.' },
    ];
    const text = MULTISTEP_SEED_CANDIDATE[component] as string;
    let fixed = 0;
    for (let seed = 0; seed < 40; seed++) {
      const lm = createMultistepTask({ seed, trainSize: 0, valSize: 0, testSize: 0 }).reflectionLm;
      const child = extractInstruction(replyText(await lm(buildReflectionPrompt(component, text, records), ctx))) ?? '';
      const stated = parseStagePrompt(child, readAs).stated.get(rule);
      if (stated && !stated.wrong) fixed++;
    }
    return fixed / 40;
  }

  it('usually adds the rule the feedback asks for, in the component it is asked to improve', async () => {
    const money = await shareThatFixes('answer', 'money', 'Expected $12.60 but got 12.6. The value is right but the answer stage wrote it wrongly: money is written with a dollar sign and two decimals.');
    expect(money).toBeGreaterThan(0.4);
    expect(money).toBeLessThan(0.95);
    const coupon = await shareThatFixes('planner', 'couponBeforeTax', 'Expected $9.45 but got $10.60. The plan went wrong: the coupon comes off the subtotal before sales tax is added.');
    expect(coupon).toBeGreaterThan(0.4);
    // Asked to improve the answer stage on planner feedback, it only now and then misplaces the planner rule there.
    const misplaced = await shareThatFixes('answer', 'couponBeforeTax', 'Expected $9.45 but got $10.60. The plan went wrong: the coupon comes off the subtotal before sales tax is added.', 'planner');
    expect(misplaced).toBeLessThan(0.2);
  });

  it('scopes a broad wording when the feedback asks for what a clashing rule already says', async () => {
    const text = ['You compute the answer.', 'Write money with a dollar sign and two decimals, like $1,204.50.', 'Round every result to one decimal place.'].join('\n');
    const records = [{ Inputs: 'A bill.', 'Generated Outputs': 'Plan: (1) Divide.\nAnswer: $12.6', Feedback: 'Expected $12.60 but got $12.6. The value is right but the answer stage wrote it wrongly: money is written with a dollar sign and two decimals.' }];
    let resolved = 0;
    for (let seed = 0; seed < 40; seed++) {
      const lm = createMultistepTask({ seed, trainSize: 0, valSize: 0, testSize: 0 }).reflectionLm;
      const child = extractInstruction(replyText(await lm(buildReflectionPrompt('answer', text, records), ctx))) ?? '';
      const parsed = parseStagePrompt(child, 'answer');
      if (parsed.stated.get('money')?.wrong === false && parsed.clashing.size === 0) resolved++;
    }
    expect(resolved / 40).toBeGreaterThan(0.35);
  });
});

describe('multistep under the optimizer', () => {
  it('improves on the seed and gives the same batched run for 2 and 16 workers', async () => {
    const [two, sixteen] = [await batchedTaskRun(createMultistepTask, 2), await batchedTaskRun(createMultistepTask, 16)];
    expect(sixteen.bestCandidate).toEqual(two.bestCandidate);
    expect(sixteen.valScores).toEqual(two.valScores);
    expect(two.bestScore).toBeGreaterThan((two.valScores[0] as number) + 0.05);
  });
});
