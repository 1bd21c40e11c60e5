// The built-in demo task: reproducible data, a task model whose results depend only on (prompt,
// example, seed), a score band that leaves room for optimization, real trade-offs between
// conflicting conventions, a reflection LM that usually (not always) helps, simulated latency.
import { SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { formatMoney } from '../src/demo/answerFormat.js';
import { CONVENTION_BY_SKILL } from '../src/demo/conventions.js';
import type { DemoExample } from '../src/demo/demoDataset.js';
import { createDemoTask, DEMO_SEED_PROMPT, type DemoTask } from '../src/demo/demoTask.js';
import { parsePrompt } from '../src/demo/promptRules.js';
import { readReflectionPrompt } from '../src/demo/reflectionPromptReader.js';
import { RULE_PHRASINGS } from '../src/demo/rulePhrasings.js';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import { Rng } from '../src/gepa/core/rng.js';
import type { Clock } from '../src/clock.js';
import type { Evaluation } from '../src/gepa/core/adapter.js';
import type { LmReply } from '../src/gepa/core/languageModel.js';

const ctx = { captureTraces: false, signal: new AbortController().signal };
const traced = { captureTraces: true, signal: new AbortController().signal };

const MAJORITY_RULES = [
  "You answer questions from an online shop's support tickets.",
  'Write every amount of money with a dollar sign and exactly two decimals, like $7.50.',
  'When asked how many boxes, cartons or trays are needed, always round up to the next whole container.',
  'Subtract coupons from the subtotal before sales tax is added.',
  'Give shipping weights in kilograms (1 kg = 1000 g).',
  'Write clock times in 24-hour format, as HH:MM.',
  'Shipping times count business days only; weekends do not count.',
  'Write dates in ISO format, YYYY-MM-DD.',
  'Express rates as percentages with a % sign, for example 12.5%.',
  'Use commas as thousands separators in large numbers, such as 60,000.',
  'Double-check the arithmetic before giving the final answer.',
];
const GOOD_PROMPT = MAJORITY_RULES.join('\n');
/** Same rules, but the minority side of both conflicts (wholesale money, Lyon dates). */
const MINORITY_PROMPT = GOOD_PROMPT.replace(
  MAJORITY_RULES[1] as string,
  'Round money amounts to the nearest whole dollar, with no cents.',
).replace(MAJORITY_RULES[7] as string, 'Write dates day first, as DD/MM/YYYY.');

async function scores(task: DemoTask, text: string, set: readonly DemoExample[]): Promise<number[]> {
  return Promise.all(set.map(async (ex) => (await task.adapter.evaluate({ system_prompt: text }, ex, ctx)).score));
}
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const replyText = (reply: string | LmReply) => (typeof reply === 'string' ? reply : reply.text);
const allExamples = (task: DemoTask) => [...task.trainset, ...task.valset, ...task.testset];

describe('demo dataset', () => {
  it('is a function of the seed', () => {
    const a = createDemoTask({ seed: 3 });
    const b = createDemoTask({ seed: 3 });
    const c = createDemoTask({ seed: 4 });
    expect(allExamples(a)).toEqual(allExamples(b));
    expect(a.valset.map((e) => e.input)).not.toEqual(c.valset.map((e) => e.input));
    expect(a.trainset.map((e) => e.input)).not.toEqual(c.trainset.map((e) => e.input));
  });

  it('has the requested sizes, unique ids and unique ticket numbers across splits', () => {
    const task = createDemoTask({ trainSize: 17, valSize: 9, testSize: 11 });
    expect([task.trainset.length, task.valset.length, task.testset.length]).toEqual([17, 9, 11]);
    const all = allExamples(task);
    expect(new Set(all.map((e) => e.id)).size).toBe(37);
    expect(new Set(all.map((e) => /#(\d+)/.exec(e.input)?.[1])).size).toBe(37);
  });

  it('keeps the valset and testset when only trainSize changes', () => {
    const a = createDemoTask({ trainSize: 10 });
    const b = createDemoTask({ trainSize: 80 });
    expect(b.valset).toEqual(a.valset);
    expect(b.testset).toEqual(a.testset);
  });

  it('uses the default sizes 60 / 30 / 60 and a short generic seed prompt', () => {
    const task = createDemoTask();
    expect([task.trainset.length, task.valset.length, task.testset.length]).toEqual([60, 30, 60]);
    expect(task.seedCandidate).toEqual({ system_prompt: DEMO_SEED_PROMPT });
    expect(parsePrompt(DEMO_SEED_PROMPT).rules.size).toBe(0);
  });

  it('formats expected answers by the conventions', () => {
    expect(formatMoney(123_450, 'cents', true)).toBe('$1,234.50');
    expect(formatMoney(123_450, 'whole', true)).toBe('$1,235');
    expect(formatMoney(123_450, 'plain', false)).toBe('1234.5');
    const task = createDemoTask();
    for (const ex of allExamples(task)) {
      if (ex.skills.includes('date:iso')) expect(ex.answer).toMatch(/^\d{4}-\d\d-\d\d$/);
      if (ex.skills.includes('date:dayFirst')) expect(ex.answer).toMatch(/^\d\d\/\d\d\/\d{4}$/);
      if (ex.skills.includes('money:cents')) expect(ex.answer).toMatch(/^\$[\d,]+\.\d\d$/);
      if (ex.skills.includes('money:whole')) expect(ex.answer).toMatch(/^\$[\d,]+$/);
    }
  });
});

describe('reading a system prompt', () => {
  it('recognises every wording the reflection LM uses as the convention it means', () => {
    for (const [skill, phrasings] of Object.entries(RULE_PHRASINGS)) {
      for (const sentence of phrasings) {
        const stated = [...parsePrompt(sentence).rules.values()].map((r) => r.convention);
        expect(stated, sentence).toEqual([CONVENTION_BY_SKILL.get(skill)]);
      }
    }
  });

  it('matches free wording by keywords, ignores negated sentences and keeps the first rule per slot', () => {
    const parsed = parsePrompt(
      [
        '- Prices need 2 decimal places.',
        "Don't write times in 24-hour format.",
        'Use commas, not "no separator" style, for large numbers.',
        'Round every amount to the nearest dollar.',
      ].join('\n'),
    );
    expect(parsed.rules.get('money')?.convention.option).toBe('cents');
    expect(parsed.rules.get('time')).toBeUndefined();
    expect(parsed.rules.get('thousands')?.convention.option).toBe('comma');
    expect(parsed.shadowed.map((r) => r.convention.option)).toEqual(['whole']);
    expect(parsed.sentences).toHaveLength(4);
  });

  it('counts clutter only past a dozen sentences', () => {
    expect(parsePrompt(GOOD_PROMPT).clutter).toBe(0);
    const padded = `${GOOD_PROMPT}\n${'Be polite. '.repeat(8)}`;
    expect(parsePrompt(padded).clutter).toBeCloseTo(0.025 * 7, 10);
  });
});

describe('demo task model', () => {
  it('gives results that depend only on (prompt, example, seed), never on call order', async () => {
    const task = createDemoTask({ seed: 5 });
    const examples = allExamples(task).slice(0, 40);
    const prompts = [DEMO_SEED_PROMPT, GOOD_PROMPT, MINORITY_PROMPT].map((t) => ({ system_prompt: t }));
    const jobs = prompts.flatMap((c) => examples.map((ex) => [c, ex] as const));
    const inOrder: Evaluation[] = [];
    for (const [c, ex] of jobs) inOrder.push(await task.adapter.evaluate(c, ex, traced));
    // Reversed, and all at once (interleaved): the same results, job by job.
    const reversed = new Array<Evaluation>(jobs.length);
    for (let i = jobs.length - 1; i >= 0; i--) {
      const [c, ex] = jobs[i] as (typeof jobs)[number];
      reversed[i] = await task.adapter.evaluate(c, ex, traced);
    }
    const concurrent = await Promise.all(jobs.map(([c, ex]) => task.adapter.evaluate(c, ex, traced)));
    // A fresh task with the same seed (a different worker process, say) agrees too.
    const fresh = createDemoTask({ seed: 5 });
    const elsewhere = await Promise.all(jobs.map(([c, ex]) => fresh.adapter.evaluate(c, ex, traced)));
    expect(reversed).toEqual(inOrder);
    expect(concurrent).toEqual(inOrder);
    expect(elsewhere).toEqual(inOrder);
  });

  it('depends on the task seed', async () => {
    const a = createDemoTask({ seed: 1 });
    const b = createDemoTask({ seed: 2 });
    // Same example content, different seed: the flaky draws differ somewhere.
    const outcomes = async (task: DemoTask) =>
      Promise.all(a.valset.map(async (ex) => (await task.adapter.evaluate(a.seedCandidate, ex, ctx)).output));
    expect(await outcomes(a)).not.toEqual(await outcomes(b));
  });

  it('scores the seed prompt in the 0.3-0.45 band and a prompt with all the rules far higher', async () => {
    const task = createDemoTask();
    const seedVal = mean(await scores(task, DEMO_SEED_PROMPT, task.valset));
    const goodVal = mean(await scores(task, GOOD_PROMPT, task.valset));
    expect(seedVal).toBeGreaterThanOrEqual(0.3);
    expect(seedVal).toBeLessThanOrEqual(0.45);
    expect(goodVal).toBeGreaterThanOrEqual(0.7);
    expect(goodVal).toBeLessThan(0.95);
    // Averaged over seeds and the held-out testset, the bands hold as well.
    const seedMeans: number[] = [];
    const goodMeans: number[] = [];
    for (let seed = 0; seed < 6; seed++) {
      const t = createDemoTask({ seed });
      seedMeans.push(mean(await scores(t, DEMO_SEED_PROMPT, t.testset)));
      goodMeans.push(mean(await scores(t, GOOD_PROMPT, t.testset)));
    }
    expect(mean(seedMeans)).toBeGreaterThan(0.3);
    expect(mean(seedMeans)).toBeLessThan(0.45);
    expect(mean(goodMeans)).toBeGreaterThan(0.75);
    expect(mean(goodMeans)).toBeLessThan(0.9);
  });

  it('never reaches 1.0 even with every rule: the model is a little flaky', async () => {
    const task = createDemoTask({ trainSize: 200 });
    const s = await scores(task, GOOD_PROMPT, task.trainset);
    expect(mean(s)).toBeLessThan(0.97);
  });

  it('has a real trade-off: each side of a conflict wins on some examples', async () => {
    const task = createDemoTask();
    const all = allExamples(task);
    const good = await scores(task, GOOD_PROMPT, all);
    const minority = await scores(task, MINORITY_PROMPT, all);
    const needsMinority = (ex: DemoExample) => ex.skills.includes('money:whole') || ex.skills.includes('date:dayFirst');
    const needsMajority = (ex: DemoExample) => ex.skills.includes('money:cents') || ex.skills.includes('date:iso');
    const wins = (a: number[], b: number[], which: (ex: DemoExample) => boolean) =>
      all.filter((ex, i) => which(ex) && a[i] === 1 && b[i] === 0).length;
    // Each prompt wins on the tickets that want its side of the conflict...
    expect(wins(minority, good, needsMinority)).toBeGreaterThanOrEqual(10);
    expect(wins(good, minority, needsMajority)).toBeGreaterThan(wins(minority, good, needsMinority));
    // ...and almost never on the others (only the model's flakiness).
    expect(wins(minority, good, needsMajority)).toBeLessThanOrEqual(3);
    expect(wins(good, minority, needsMinority)).toBeLessThanOrEqual(3);
    expect(mean(good)).toBeGreaterThan(mean(minority));
  });

  it('obeys whichever conflicting rule comes first', async () => {
    const task = createDemoTask({ trainSize: 200 });
    const wholesale = task.trainset.filter((ex) => ex.skills.includes('money:whole'));
    expect(wholesale.length).toBeGreaterThan(10);
    const both = `${MAJORITY_RULES[1]}\nRound money amounts to the nearest whole dollar, with no cents.`;
    const followed = await Promise.all(
      wholesale.map(async (ex) => ((await task.adapter.evaluate({ system_prompt: both }, ex, traced)).trace as { followed: string[] }).followed),
    );
    expect(followed.flat().length).toBeGreaterThan(wholesale.length / 2);
    expect(followed.flat().every((s) => s === MAJORITY_RULES[1])).toBe(true);
    expect(mean(await scores(task, both, wholesale))).toBeLessThan(0.2);
  });

  it('penalises a cluttered prompt', async () => {
    const task = createDemoTask({ trainSize: 300 });
    const cluttered = `${GOOD_PROMPT}\n${'Be polite and friendly in every reply. Use a professional tone. '.repeat(8)}`;
    const tidy = mean(await scores(task, GOOD_PROMPT, task.trainset));
    const messy = mean(await scores(task, cluttered, task.trainset));
    expect(tidy - messy).toBeGreaterThan(0.1);
  });

  it('lets a prompt memorise training tickets, which does not carry over to held-out tickets', async () => {
    let trainGain = 0;
    let heldOutGain = 0;
    for (let seed = 0; seed < 3; seed++) {
      const task = createDemoTask({ seed });
      const seedTrain = await scores(task, DEMO_SEED_PROMPT, task.trainset);
      const memorised = task.trainset
        .filter((_, i) => seedTrain[i] === 0)
        .slice(0, 10)
        .map((ex) => `For ticket #${/#(\d+)/.exec(ex.input)?.[1]} the correct answer is "${ex.answer}".`);
      const overfit = [DEMO_SEED_PROMPT, ...memorised].join('\n');
      const heldOut = [...task.valset, ...task.testset];
      trainGain += (mean(await scores(task, overfit, task.trainset)) - mean(seedTrain)) / 3;
      heldOutGain += (mean(await scores(task, overfit, heldOut)) - mean(await scores(task, DEMO_SEED_PROMPT, heldOut))) / 3;
    }
    expect(trainGain).toBeGreaterThan(0.1);
    expect(Math.abs(heldOutGain)).toBeLessThan(0.05);
  });

  it('explains misses in plain words and says little about hits', async () => {
    const task = createDemoTask();
    const results = await Promise.all(task.valset.map((ex) => task.adapter.evaluate(task.seedCandidate, ex, ctx)));
    for (const [i, r] of results.entries()) {
      const ex = task.valset[i] as DemoExample;
      if (r.score === 1) {
        expect(r.feedback).toBe('Correct.');
        expect(r.output).toBe(ex.answer);
      } else {
        expect(r.feedback).toContain(`Expected ${ex.answer} but got ${r.output}: `);
        expect(r.feedback).not.toMatch(/\b(money|date|time|percent|thousands|containers|shipping):/);
      }
      expect(r.trace).toBeUndefined();
    }
    // A prompt that states the wrong convention: the feedback names the right one.
    const percentTickets = allExamples(task).filter((ex) => ex.skills.includes('percent:sign'));
    const wrongRule = 'Give rates as a decimal between 0 and 1.';
    const misled = await Promise.all(percentTickets.map((ex) => task.adapter.evaluate({ system_prompt: wrongRule }, ex, traced)));
    const asFraction = misled.filter((r) => /^0\.\d+$/.test(String(r.output)));
    expect(asFraction.length).toBeGreaterThan(percentTickets.length / 2);
    for (const r of asFraction) {
      expect(r.feedback).toContain('rates are given as percentages with a % sign');
      expect((r.trace as { followed: string[]; steps: string[] }).followed).toEqual([wrongRule]);
    }
  });

  it('rejects when the signal is already aborted, even without latency', async () => {
    const task = createDemoTask();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      task.adapter.evaluate(task.seedCandidate, task.valset[0] as DemoExample, { captureTraces: false, signal: controller.signal }),
    ).rejects.toThrow('stop');
  });

  it('does not touch the clock when latency is zero', async () => {
    const untouchable: Clock = {
      now: () => { throw new Error('clock read'); },
      setTimeout: () => { throw new Error('clock used'); },
      clearTimeout: () => { throw new Error('clock used'); },
    };
    const task = createDemoTask({ clock: untouchable });
    await expect(task.adapter.evaluate(task.seedCandidate, task.valset[0] as DemoExample, ctx)).resolves.toHaveProperty('score');
    await expect(task.reflectionLm('```\nx\n```', { signal: ctx.signal })).resolves.toBeTruthy();
  });
});

describe('demo reflection model', () => {
  async function failingMinibatch(task: DemoTask, text: string, rng: Rng) {
    for (;;) {
      const batch = rng.shuffle(task.trainset).slice(0, 3);
      const results = await Promise.all(batch.map((ex) => task.adapter.evaluate({ system_prompt: text }, ex, traced)));
      if (results.some((r) => r.score < 1)) return batch.map((example, i) => ({ example, evaluation: results[i] as Evaluation }));
    }
  }

  it('answers a real reflection prompt with a changed text that extractInstruction can read', async () => {
    const task = createDemoTask();
    const results = await failingMinibatch(task, DEMO_SEED_PROMPT, new Rng(1));
    const records = (await task.adapter.makeReflectiveDataset?.(task.seedCandidate, results, ['system_prompt']))?.system_prompt ?? [];
    expect(records[0]).toEqual({
      Inputs: results[0]?.example.input,
      'Generated Outputs': results[0]?.evaluation.output,
      Feedback: results[0]?.evaluation.feedback,
    });
    const prompt = buildReflectionPrompt('system_prompt', DEMO_SEED_PROMPT, records);
    const reply = await task.reflectionLm(prompt, { signal: ctx.signal });
    const proposal = extractInstruction(replyText(reply));
    expect(proposal).not.toBeNull();
    expect(proposal).not.toBe(DEMO_SEED_PROMPT);
    expect(proposal).not.toContain('```');
    expect(reply).toEqual({
      text: replyText(reply),
      usage: { promptTokens: Math.ceil(prompt.length / 4), completionTokens: Math.ceil(replyText(reply).length / 4) },
    });
    // Deterministic: the same prompt gets the same reply.
    expect(await task.reflectionLm(prompt, { signal: ctx.signal })).toEqual(reply);
  });

  it('improves the minibatch more often than not, but not always', async () => {
    const task = createDemoTask();
    const rng = new Rng(11);
    const skills = Object.keys(RULE_PHRASINGS);
    let improved = 0;
    let notImproved = 0;
    const seen = new Set<string>();
    while (seen.size < 50) {
      const rules = rng.shuffle(skills).slice(0, rng.int(6)).map((s) => rng.pick(RULE_PHRASINGS[s] ?? []));
      const text = [DEMO_SEED_PROMPT, ...rules].join('\n');
      if (seen.has(text)) continue;
      seen.add(text);
      const parent = await failingMinibatch(task, text, rng);
      const records = (await task.adapter.makeReflectiveDataset?.({ system_prompt: text }, parent, ['system_prompt']))?.system_prompt ?? [];
      const child = extractInstruction(replyText(await task.reflectionLm(buildReflectionPrompt('system_prompt', text, records), ctx)));
      expect(child).not.toBe(text);
      const childSum = (await scores(task, child ?? '', parent.map((p) => p.example))).reduce((s, x) => s + x, 0);
      const parentSum = parent.reduce((s, p) => s + p.evaluation.score, 0);
      if (childSum > parentSum) improved++;
      else notImproved++;
    }
    expect(improved).toBeGreaterThan(25);
    expect(notImproved).toBeGreaterThan(5);
  });

  it('finds the feedback under other headings, or anywhere in an example', () => {
    const prompt = [
      'Improve this:',
      '```text',
      'Be helpful.',
      '```',
      '# Case A',
      '### Question',
      'Ticket #1234: what is the total?',
      '### Review notes (feedback)',
      'Expected $7.50 but got 7.5: amounts of money are written with a dollar sign and two decimals.',
      '# Case B',
      'Ticket #5678 ... Expected 18:55 but got 6:55 PM: times are written on the 24-hour clock (HH:MM).',
    ].join('\n');
    const request = readReflectionPrompt(prompt);
    expect(request.currentText).toBe('Be helpful.');
    expect(request.records).toEqual([
      {
        feedback: 'Expected $7.50 but got 7.5: amounts of money are written with a dollar sign and two decimals.',
        ticket: '1234',
        expected: '$7.50',
        failed: true,
      },
      expect.objectContaining({ ticket: '5678', expected: '18:55', failed: true }),
    ]);
  });
});

describe('simulated latency', () => {
  it('takes mean x jitter of simulated time, reproducibly', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = createDemoTask({ metricCallMs: 20, reflectionMs: 1000, clock });
    const elapsed: number[] = [];
    for (const ex of task.valset.slice(0, 5)) {
      const start = clock.now();
      await runOnSimulatedClock(clock, task.adapter.evaluate(task.seedCandidate, ex, ctx));
      elapsed.push(clock.now() - start);
    }
    for (const ms of elapsed) {
      expect(ms).toBeGreaterThanOrEqual(10);
      expect(ms).toBeLessThanOrEqual(30);
    }
    expect(new Set(elapsed).size).toBeGreaterThan(1);
    const start = clock.now();
    await runOnSimulatedClock(clock, task.reflectionLm('```\nx\n```', { signal: ctx.signal }));
    expect(clock.now() - start).toBeGreaterThanOrEqual(500);
    expect(clock.now() - start).toBeLessThanOrEqual(1500);

    // The same calls on a fresh clock take exactly the same simulated times.
    const again = steppingClock(new SimulatedClock());
    const twin = createDemoTask({ metricCallMs: 20, clock: again });
    const t0 = again.now();
    await runOnSimulatedClock(again, twin.adapter.evaluate(twin.seedCandidate, twin.valset[0] as DemoExample, ctx));
    expect(again.now() - t0).toBe(elapsed[0]);
  });

  it('rejects when aborted during the sleep', async () => {
    const clock = new SimulatedClock();
    const task = createDemoTask({ metricCallMs: 20, clock });
    const controller = new AbortController();
    const call = task.adapter.evaluate(task.seedCandidate, task.valset[0] as DemoExample, {
      captureTraces: false,
      signal: controller.signal,
    });
    clock.increment(5);
    controller.abort(new Error('cancelled'));
    await expect(call).rejects.toThrow('cancelled');
    const reflectionController = new AbortController();
    const reflecting = createDemoTask({ reflectionMs: 50, clock }).reflectionLm('```\nx\n```', { signal: reflectionController.signal });
    reflectionController.abort(new Error('cancelled too'));
    await expect(reflecting).rejects.toThrow('cancelled too');
  });
});
