// The hotel front-desk bench task: reproducible data and scores, two different facts a message
// with a few facts far more common than the rest, a seed that leaves headroom, a score that
// falls again once the prompt lists too many facts, feedback that names the facts, and a
// reflection LM that adds the facts the feedback names (and cuts the ones it says were unasked).
import { describe, expect, it } from 'vitest';
import { parseFactPrompt } from '../src/demo/hotel/factPrompt.js';
import { FOCUS_PHRASINGS, HOTEL_FACTS, VAGUE_SENTENCES, type FactId } from '../src/demo/hotel/hotelFacts.js';
import { createHotelTask, HOTEL_SEED_CANDIDATE, type HotelExample, type HotelTask } from '../src/demo/hotel/hotelTask.js';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { LmReply } from '../src/gepa/core/languageModel.js';
import { batchedTaskRun } from './support/taskUnderOptimizer.js';

const ctx = { captureTraces: false, signal: new AbortController().signal };
const TASKS = [0, 1, 2].map((seed) => createHotelTask({ seed }));
const examplesOf = (task: HotelTask) => [...task.trainset, ...task.valset, ...task.testset];
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const replyText = (reply: string | LmReply) => (typeof reply === 'string' ? reply : reply.text);
const INTRO = HOTEL_SEED_CANDIDATE.system_prompt as string;
/** The intro and the k facts guests ask about most, one sentence each. */
const listing = (k: number, ...extra: string[]): Candidate => ({ system_prompt: [INTRO, ...HOTEL_FACTS.slice(0, k).map((f) => f.phrasings[0] as string), ...extra].join('\n') });

async function meanScore(candidate: Candidate): Promise<number> {
  const scores: number[] = [];
  for (const task of TASKS) for (const ex of examplesOf(task)) scores.push((await task.adapter.evaluate(candidate, ex, ctx)).score);
  return mean(scores);
}

describe('hotel dataset', () => {
  it('is a function of the seed, with the requested sizes, two different facts a message, some facts far more common', () => {
    const again = createHotelTask({ seed: 1 });
    expect(examplesOf(again)).toEqual(examplesOf(TASKS[1] as HotelTask));
    expect(again.valset.map((e) => e.input)).not.toEqual(TASKS[0]?.valset.map((e) => e.input));
    expect([again.trainset.length, again.valset.length, again.testset.length]).toEqual([60, 30, 60]);
    const small = createHotelTask({ seed: 1, trainSize: 7, valSize: 0, testSize: 3 });
    expect([small.trainset.length, small.valset.length, small.testset.length]).toEqual([7, 0, 3]);
    const counts = new Map<FactId, number>();
    for (const task of TASKS) {
      for (const ex of examplesOf(task)) {
        expect(ex.facts[0]).not.toBe(ex.facts[1]);
        for (const f of ex.facts) counts.set(f, (counts.get(f) ?? 0) + 1);
      }
    }
    expect(counts.size).toBe(16);
    expect(counts.get('checkIn')).toBeGreaterThan(8 * (counts.get('restaurant') as number));
  });

  it('reads each wording of a fact as that fact alone, a misreading as wrong, and filler as no fact', () => {
    for (const fact of HOTEL_FACTS) {
      for (const sentence of fact.phrasings) expect([...parseFactPrompt(sentence).stated]).toEqual([[fact.id, { sentence, wrong: false }]]);
      for (const sentence of fact.wrongPhrasings) expect([...parseFactPrompt(sentence).stated]).toEqual([[fact.id, { sentence, wrong: true }]]);
    }
    for (const sentence of [...VAGUE_SENTENCES, INTRO]) expect(parseFactPrompt(sentence).stated.size).toBe(0);
    for (const sentence of FOCUS_PHRASINGS) expect(parseFactPrompt(sentence)).toMatchObject({ focused: true, stated: new Map() });
    expect(parseFactPrompt(INTRO).focused).toBe(false);
  });
});

describe('hotel scores', () => {
  it('scores a candidate the same on every call, and a rewording moves few examples', async () => {
    const task = TASKS[0] as HotelTask;
    const run = (c: Candidate, on = task) => Promise.all(examplesOf(on).map(async (ex) => (await on.adapter.evaluate(c, ex, ctx)).score));
    const first = await run(listing(10));
    expect(await run(listing(10))).toEqual(first);
    expect(await run(listing(10), createHotelTask({ seed: 0 }))).toEqual(first);
    const reworded = await run({ system_prompt: `${listing(10).system_prompt} Be exact.` });
    expect(reworded).not.toEqual(first);
    expect(Math.abs(mean(reworded) - mean(first))).toBeLessThan(0.05);
  });

  it('gives the seed 0.1 to 0.3 with partial credit, climbs with each common fact, and falls once the prompt lists too many', async () => {
    const seed = await meanScore(HOTEL_SEED_CANDIDATE);
    expect(seed).toBeGreaterThan(0.1);
    expect(seed).toBeLessThan(0.3);
    const grades = new Set(await Promise.all(examplesOf(TASKS[0] as HotelTask).map(async (ex) => (await (TASKS[0] as HotelTask).adapter.evaluate(HOTEL_SEED_CANDIDATE, ex, ctx)).score)));
    expect([...grades].sort()).toEqual([0, 0.5, 1]);
    const byCount = [2, 4, 6, 8, 10, 16].map((k) => listing(k));
    const scores = await Promise.all(byCount.map(meanScore));
    for (let i = 1; i < 5; i++) expect(scores[i]).toBeGreaterThan((scores[i - 1] as number) + 0.03);
    expect(scores[4]).toBeGreaterThan(0.75);
    expect(scores[4]).toBeLessThan(0.9);
    // Every fact listed: each unasked one is now and then brought up, and costs more than the rare facts earn.
    expect(scores[5]).toBeLessThan((scores[4] as number) - 0.08);
    // Asking to keep to the question softens it, without removing the cost.
    const focused = await meanScore(listing(16, FOCUS_PHRASINGS[0] as string));
    expect(focused).toBeGreaterThan((scores[5] as number) + 0.05);
    expect(focused).toBeLessThan(await meanScore(listing(12, FOCUS_PHRASINGS[0] as string)));
  });

  it('gets a fact wrong when the prompt states it wrongly', async () => {
    const wrong: Candidate = { system_prompt: [INTRO, ...HOTEL_FACTS.slice(0, 10).map((f) => (f.id === 'checkIn' ? f.wrongPhrasings[0] : f.phrasings[0]) as string)].join('\n') };
    const task = TASKS[0] as HotelTask;
    const asked = examplesOf(task).filter((e) => e.facts.includes('checkIn'));
    const right = await Promise.all(asked.map(async (ex) => (await task.adapter.evaluate(listing(10), ex, ctx)).score));
    const wrongly = await Promise.all(asked.map((ex) => task.adapter.evaluate(wrong, ex, ctx)));
    expect(mean(right) - mean(wrongly.map((e) => e.score))).toBeGreaterThan(0.4);
    expect(wrongly.filter((e) => e.feedback?.includes('The reply got it wrong: check-in starts at 15:00.')).length).toBeGreaterThan(asked.length * 0.9);
  });

  it('names the missed facts and the unasked ones in its feedback, and keeps the hidden facts out of the records', async () => {
    const task = TASKS[0] as HotelTask;
    const results = await Promise.all(task.trainset.map(async (example) => ({ example, evaluation: await task.adapter.evaluate(listing(16), example, { ...ctx, captureTraces: true }) })));
    const feedback = results.map((r) => r.evaluation.feedback ?? '');
    expect(feedback.some((f) => /The reply missed that|The reply got it wrong/.test(f))).toBe(true);
    expect(feedback.some((f) => /The guest did not ask about .*; leave it out\./.test(f))).toBe(true);
    expect(feedback.some((f) => f.startsWith('Correct'))).toBe(true);
    const dataset = await task.adapter.makeReflectiveDataset?.(listing(16), results, ['system_prompt']);
    expect(Object.keys(dataset?.system_prompt?.[0] as object)).toEqual(['Inputs', 'Generated Outputs', 'Feedback']);
    expect(JSON.stringify(dataset)).not.toContain('"facts"');
  });

  it('rejects a candidate without its component with an error that names it', async () => {
    const task = TASKS[0] as HotelTask;
    await expect(task.adapter.evaluate({ prompt: 'Hi.' }, task.valset[0] as HotelExample, ctx)).rejects.toThrow(/needs component 'system_prompt'; this candidate has: prompt/);
  });
});

describe('hotel reflection model', () => {
  /** Over 40 task seeds: the edits to `text` given these feedback lines. */
  async function edits(text: string, feedback: readonly string[]): Promise<string[]> {
    const records = feedback.map((f, i) => ({ Inputs: `Guest message ${i}.`, 'Generated Outputs': 'A reply.', Feedback: f }));
    const out: string[] = [];
    for (let seed = 0; seed < 40; seed++) {
      const lm = createHotelTask({ seed, trainSize: 0, valSize: 0, testSize: 0 }).reflectionLm;
      out.push(extractInstruction(replyText(await lm(buildReflectionPrompt('system_prompt', text, records), ctx))) ?? '');
    }
    return out;
  }

  it('usually adds the fact the feedback names most often, and now and then a misread version', async () => {
    const children = await edits(INTRO, [
      'The reply missed that breakfast is served from 6:30 to 10:30.',
      'The reply got it wrong: breakfast is served from 6:30 to 10:30. The reply missed that check-out is by 11:00.',
      'Correct: the reply gives both facts the guest asked about and nothing else.',
    ]);
    const stated = children.map((c) => parseFactPrompt(c).stated.get('breakfast'));
    const fixed = stated.filter((s) => s && !s.wrong).length / 40;
    expect(fixed).toBeGreaterThan(0.4);
    expect(fixed).toBeLessThan(0.95);
    expect(stated.filter((s) => s?.wrong).length).toBeLessThan(8);
  });

  it('cuts a fact the feedback says nobody asked about, or asks to keep to the question', async () => {
    const text = listing(14).system_prompt as string;
    const children = await edits(text, [
      'The guest did not ask about the gym; leave it out.',
      'The guest did not ask about the gym; leave it out. The guest did not ask about the pool hours; leave it out.',
    ]);
    const parsed = children.map((c) => parseFactPrompt(c));
    const cut = parsed.filter((p) => !p.stated.has('gym') || p.focused).length / 40;
    expect(cut).toBeGreaterThan(0.35);
    expect(parsed.filter((p) => !p.stated.has('gym')).length).toBeGreaterThan(3);
    expect(parsed.filter((p) => p.focused).length).toBeGreaterThan(3);
  });
});

describe('hotel under the optimizer', () => {
  it('improves on the seed and gives the same batched run for 2 and 16 workers', async () => {
    const [two, sixteen] = [await batchedTaskRun(createHotelTask, 2), await batchedTaskRun(createHotelTask, 16)];
    expect(sixteen.bestCandidate).toEqual(two.bestCandidate);
    expect(sixteen.valScores).toEqual(two.valScores);
    expect(two.bestScore).toBeGreaterThan((two.valScores[0] as number) + 0.15);
  });
});
