// The strategy hooks (reflectionPromptTemplate, proposeNewTexts, selectCandidate,
// selectComponents, sampleMinibatch) and trackBestOutputs, on the toy task in simulated time:
// each hook changes the rule it replaces, a failing hook is a recorded failed proposal (not a
// crash), and a batched run with hooks drawing from the RNG they are handed is the same run
// whatever the worker count and the finishing order.
import { describe, expect } from 'vitest';
import { SimulatedClock } from 'xstate';
import { withCandidateOutputs } from '../src/gepa/core/bestOutputs.js';
import { sleep, steppingClock } from '../src/clock.js';
import { ConfigError } from '../src/index.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { ProposeNewTexts, SampleMinibatch, SelectCandidate } from '../src/gepa/strategies/hookSignatures.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import type { SlotInterval } from '../src/evaluation/workerSlots.js';
import { test, toyRun } from './support/toyRun.js';
import { failedRun } from './support/failedRun.js';

const reflective = (r: OptimizeResult) => r.proposals.filter((p) => p.kind === 'reflective').sort((a, b) => a.step - b.step || a.task - b.task);
/** Everything but the timing figures. */
const essence = ({ elapsedMs: _e, workerUtilization: _u, discoveryElapsedMs: _d, ...rest }: OptimizeResult) => rest;
/** The keyword the toy feedback asks for in the first record that asks for one. */
const wantedWord = (records: ReadonlyArray<Record<string, unknown>>): string | undefined =>
  records.map((r) => /needs the word (\w+)/.exec(String(r.Feedback))?.[1]).find((w) => w !== undefined);

describe('reflectionPromptTemplate', () => {
  test('a string template: every reflection prompt is the template with the current text and the records filled in', async ({ toyRun }) => {
    const template = 'REWRITE THIS:\n```\n<curr_instructions>\n```\nWHAT HAPPENED:\n<inputs_outputs_feedback>\nAnswer in a fence.';
    const { result, task } = await toyRun({ reflectionPromptTemplate: template, maxMetricCalls: 120 });
    const reflections = task.calls.filter((c) => c.kind === 'reflect');
    expect(reflections.length).toBe(result.reflectionCalls);
    expect(reflections.length).toBeGreaterThan(3);
    expect(reflections.every((c) => c.label.startsWith('REWRITE THIS:\n```\n'))).toBe(true);
    // The toy reflection model reads the fenced text and the feedback: the template carried both.
    expect(result.bestScore).toBeGreaterThan(result.valScores[0] as number);
  });

  test("a template written for gepa 0.1.4 (<curr_param>, <side_info>) works unchanged", async ({ toyRun }) => {
    const template = 'REWRITE THIS:\n```\n<curr_param>\n```\nWHAT HAPPENED:\n<side_info>\nAnswer in a fence.';
    const { result, task } = await toyRun({ reflectionPromptTemplate: template, maxMetricCalls: 120 });
    const reflections = task.calls.filter((c) => c.kind === 'reflect');
    expect(reflections.length).toBeGreaterThan(3);
    // Both placeholders filled: no name is left in any prompt.
    expect(reflections.every((c) => c.label.startsWith('REWRITE THIS:\n```\n') && !/<curr_param>|<side_info>/.test(c.label))).toBe(true);
    expect(result.bestScore).toBeGreaterThan(result.valScores[0] as number);
  });

  test('a function template is called with the component, its current text and its records', async ({ toyRun }) => {
    const calls: Array<{ component: string; currentText: string; records: number }> = [];
    const { result } = await toyRun({
      maxMetricCalls: 60,
      reflectionPromptTemplate: (component, currentText, records) => {
        calls.push({ component, currentText, records: records.length });
        return `Improve ${component}:\n\`\`\`\n${currentText}\n\`\`\`\n${records.map((r) => String(r.Feedback)).join('\n')}`;
      },
    });
    expect(calls.length).toBe(result.reflectionCalls);
    expect(calls[0]).toEqual({ component: 'instructions', currentText: 'Answer.', records: 3 });
    expect(result.candidates.length).toBeGreaterThan(1);
  });

  test('a template that throws makes failed proposals with the reason, and the run ends normally', async ({ toyRun }) => {
    const { result, task } = await toyRun({
      maxMetricCalls: 40,
      reflectionPromptTemplate: () => {
        throw new Error('template broke');
      },
    });
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(task.calls.some((c) => c.kind === 'reflect')).toBe(false);
    expect(reflective(result).length).toBeGreaterThan(3);
    for (const p of reflective(result)) expect(p).toMatchObject({ outcome: 'skipped', reason: 'reflectionPromptTemplate failed: template broke' });
  });

  test('a string template without a placeholder, or a template with proposeNewTexts, is a config error', async () => {
    await expect(toyRun({ reflectionPromptTemplate: 'Improve <curr_instructions>.' })).rejects.toThrow(
      new ConfigError("invalid optimize config: reflectionPromptTemplate: must contain the placeholder <inputs_outputs_feedback> (or gepa 0.1.4's <side_info>)"),
    );
    await expect(toyRun({ reflectionPromptTemplate: 'Improve.' })).rejects.toThrow(/placeholders <curr_instructions> and <inputs_outputs_feedback>/);
    await expect(toyRun({ reflectionPromptTemplate: (c) => c, proposeNewTexts: () => ({}) })).rejects.toThrow(/has no effect with proposeNewTexts/);
    await expect(toyRun({ selectCandidate: 3 as unknown as SelectCandidate })).rejects.toThrow('invalid optimize config: selectCandidate: must be a function');
  });
});

describe('proposeNewTexts', () => {
  test('replaces the reflection LM: called with the candidate, its reflective dataset and the components, in a reflection slot', async ({ toyRun }) => {
    const seen: Array<{ text: string; components: readonly string[]; records: number }> = [];
    const intervals: SlotInterval[] = [];
    const clock = steppingClock(new SimulatedClock());
    const proposeNewTexts: ProposeNewTexts = async (candidate, dataset, components) => {
      seen.push({ text: candidate.instructions ?? '', components, records: dataset.instructions?.length ?? 0 });
      await sleep(clock, 70);
      const word = wantedWord(dataset.instructions ?? []);
      return { instructions: `${candidate.instructions}${word ? ` ${word}` : ''}` };
    };
    const { result, task } = await toyRun({ clock, proposeNewTexts, maxMetricCalls: 150, onSlotInterval: (i) => intervals.push(i) });
    expect(task.calls.some((c) => c.kind === 'reflect')).toBe(false);
    expect(result.reflectionCalls).toBe(0);
    expect(seen[0]).toEqual({ text: 'Answer.', components: ['instructions'], records: 3 });
    const slotted = intervals.filter((i) => i.kind === 'reflection');
    expect(slotted.length).toBe(seen.length);
    expect(slotted.every((i) => i.end - i.start === 70)).toBe(true);
    expect(result.candidates.length).toBeGreaterThan(2);
    expect(result.bestScore).toBeGreaterThan(result.valScores[0] as number);
  });

  test('a proposer that throws, or names a component it was not asked for, is a failed proposal with the reason', async ({ toyRun }) => {
    const thrown = await toyRun({
      maxMetricCalls: 40,
      proposeNewTexts: () => {
        throw new Error('proposer down');
      },
    });
    expect(thrown.result.stopReason).toBe('maxMetricCalls');
    for (const p of reflective(thrown.result)) expect(p).toMatchObject({ outcome: 'skipped', reason: 'reflection proposed no new text (instructions: proposeNewTexts failed: proposer down)' });

    const stray = await toyRun({ maxMetricCalls: 40, proposeNewTexts: async () => ({ style: 'x' }) });
    expect(reflective(stray.result)[0]?.reason).toBe(
      'reflection proposed no new text (instructions: proposeNewTexts returned "style": not a component to update (instructions))',
    );
    expect(stray.result.candidates.length).toBe(1);
  });
});

describe('selectCandidate', () => {
  test("every reflective proposal starts from the hook's choice", async ({ toyRun }) => {
    const chosen: number[] = [];
    const steps: number[] = [];
    const { result } = await toyRun({
      maxMetricCalls: 200,
      schedule: { kind: 'batched', parents: 2, perParent: 1 },
      // The worst candidate: what the default (Pareto sampling) would rarely pick.
      selectCandidate: (pool, rng) => {
        steps.push(pool.step);
        const worst = Math.min(...pool.valScores);
        const index = rng.pick(pool.valScores.flatMap((s, i) => (s === worst ? [i] : [])));
        chosen.push(index);
        return index;
      },
    });
    expect(chosen.length).toBeGreaterThan(4);
    expect(reflective(result).map((p) => p.parents[0])).toEqual(chosen);
    // Two parents per step, drawn when the step is planned.
    expect(steps).toEqual(reflective(result).map((p) => p.step));
    expect(steps.slice(0, 4)).toEqual([1, 1, 2, 2]);
  });

  test('an invalid index is a recorded failed proposal; hooks that keep failing stop the run with an error result', async ({ toyRun }) => {
    let calls = 0;
    const events: RunEvent[] = [];
    const once = await toyRun({ maxMetricCalls: 60, onEvent: (e) => events.push(e), selectCandidate: () => (calls++ === 0 ? 99 : 0) });
    expect(reflective(once.result)[0]).toMatchObject({ step: 1, task: 0, parents: [], outcome: 'skipped', reason: 'selectCandidate returned 99: not a candidate index (the pool has 1)' });
    expect(reflective(once.result).slice(1).every((p) => p.parents[0] === 0)).toBe(true);
    expect(events).toContainEqual({ type: 'error', message: 'task 1/0: selectCandidate returned 99: not a candidate index (the pool has 1)' });
    expect(once.result.stopReason).toBe('maxMetricCalls');

    const broken = await failedRun(
      toyRun({
        maxMetricCalls: 60,
        schedule: { kind: 'batched', parents: 3, perParent: 1 },
        selectCandidate: () => {
          throw new Error('no idea');
        },
      }),
    );
    expect(broken.result.error).toBe('strategy hooks failed 12 proposals in a row (last: selectCandidate threw: no idea)');
    expect(broken.result.proposals.length).toBe(12);
    expect(broken.result.metricCalls).toBe(6);
  });

  test('async: a failed proposal is recorded and the next one starts in its place', async ({ toyRun }) => {
    let calls = 0;
    const { result } = await toyRun({
      maxMetricCalls: 150,
      schedule: { kind: 'async', inFlight: 3 },
      selectCandidate: (pool) => (++calls % 3 === 0 ? -1 : pool.candidates.length - 1),
    });
    const failed = reflective(result).filter((p) => p.reason.startsWith('selectCandidate'));
    expect(failed.length).toBe(Math.floor(calls / 3));
    expect(failed.length).toBeGreaterThan(2);
    expect(failed[0]?.reason).toMatch(/^selectCandidate returned -1: not a candidate index \(the pool has \d+\)$/);
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.candidates.length).toBeGreaterThan(1);
  });
});

describe('selectComponents', () => {
  const twoComponents = { seedCandidate: { instructions: 'Answer.', style: 'Be brief.' } };

  test('only the components the hook names are rewritten', async ({ toyRun }) => {
    const asked: Array<{ componentNames: readonly string[]; candidateIndex: number; step: number }> = [];
    const instructionsOnly = await toyRun({
      ...twoComponents,
      maxMetricCalls: 150,
      selectComponents: ({ componentNames, candidateIndex, step }) => {
        asked.push({ componentNames, candidateIndex, step });
        return ['instructions'];
      },
    });
    expect(asked[0]).toEqual({ componentNames: ['instructions', 'style'], candidateIndex: 0, step: 1 });
    expect(instructionsOnly.result.candidates.length).toBeGreaterThan(2);
    expect(instructionsOnly.result.candidates.every((c) => c.style === 'Be brief.')).toBe(true);
    // Rewriting only `style`, which the toy metric ignores, never makes a better child.
    const styleOnly = await toyRun({ ...twoComponents, maxMetricCalls: 80, selectComponents: () => ['style'] });
    expect(styleOnly.result.candidates.length).toBe(1);
    expect(reflective(styleOnly.result).some((p) => p.outcome === 'rejected')).toBe(true);
  });

  test('an empty or unknown choice is a recorded failed proposal', async ({ toyRun }) => {
    let calls = 0;
    const { result } = await toyRun({ ...twoComponents, maxMetricCalls: 60, selectComponents: () => [[], ['tone'], ['instructions']][Math.min(calls++, 2)] as string[] });
    const [first, second, third] = reflective(result);
    expect(first).toMatchObject({ outcome: 'skipped', parents: [0], reason: 'selectComponents returned []: needs a non-empty list of component names' });
    expect(second).toMatchObject({ outcome: 'skipped', reason: 'selectComponents returned ["tone"]: "tone" is not a component (instructions, style)' });
    expect(third?.reason).not.toMatch(/selectComponents/);
  });
});

describe('sampleMinibatch', () => {
  test("each proposal's minibatch is the hook's trainset indices", async ({ toyRun }) => {
    const drawn: number[][] = [];
    const events: RunEvent[] = [];
    const sampleMinibatch: SampleMinibatch = ({ trainsetSize, minibatchSize }, rng) => {
      const ids = rng.shuffle(Array.from({ length: trainsetSize }, (_, i) => i)).slice(0, minibatchSize - 1);
      drawn.push(ids);
      return ids;
    };
    // spendLastCalls off: on the budget's last calls it would cut a last proposal's minibatch to the hook's first ids.
    const { result } = await toyRun({ maxMetricCalls: 100, sampleMinibatch, spendLastCalls: false, onEvent: (e) => events.push(e) });
    const sampled = events.flatMap((e) => (e.type === 'minibatch.sampled' ? [e.ids] : []));
    expect(drawn.length).toBeGreaterThan(3);
    // Trainset indices are the example table's ids here (the toy trainset comes first).
    expect(sampled).toEqual(drawn);
    expect(drawn.every((ids) => ids.length === 2)).toBe(true);
    expect(result.candidates.length).toBeGreaterThan(1);
  });

  test('an index out of range, or more than the minibatch size, is a recorded failed proposal', async ({ toyRun }) => {
    let calls = 0;
    const { result } = await toyRun({ maxMetricCalls: 60, sampleMinibatch: () => [[12], [0, 1, 2, 3], [0, 1, 2]][Math.min(calls++, 2)] as number[] });
    const [first, second, third] = reflective(result);
    expect(first).toMatchObject({ outcome: 'skipped', parents: [0], reason: 'sampleMinibatch returned [12]: indices must be integers in [0, 12)' });
    expect(second?.reason).toBe('sampleMinibatch returned [0,1,2,3]: needs 1 to 3 trainset indices');
    expect(third?.reason).not.toMatch(/sampleMinibatch/);
  });
});

describe('hooks and batched determinism', () => {
  test('with a custom selectCandidate and sampleMinibatch using the RNG: identical for 1, 3 and 16 workers and any finishing order', async ({ toyRun }) => {
    let hookCalls = 0;
    // Weighted by mean score, drawn from the RNG handed in.
    const selectCandidate: SelectCandidate = (pool, rng) => {
      hookCalls++;
      const weights = pool.valScores.map((s) => s + 0.1);
      let u = rng.next() * weights.reduce((a, b) => a + b, 0);
      const index = weights.findIndex((w) => (u -= w) < 0);
      return index === -1 ? weights.length - 1 : index;
    };
    const sampleMinibatch: SampleMinibatch = ({ trainsetSize, minibatchSize }, rng) => Array.from({ length: minibatchSize }, () => rng.int(trainsetSize));
    const run = async (workers: number, latencySalt: string) =>
      essence(
        (
          await toyRun({
            selectCandidate,
            sampleMinibatch,
            workers,
            latencySalt,
            evalMs: [1, 60],
            reflectMs: [10, 300],
            failureRate: 0.05,
            schedule: { kind: 'batched', parents: 2, perParent: 2 },
            maxMetricCalls: 260,
            seed: 3,
          })
        ).result,
      );
    const reference = await run(1, 'a');
    expect(hookCalls).toBeGreaterThan(6);
    expect(reference.candidates.length).toBeGreaterThan(2);
    for (const [workers, salt] of [[3, 'b'], [16, 'c'], [16, 'd']] as const) expect(await run(workers, salt)).toEqual(reference);
  });
});

describe('trackBestOutputs', () => {
  test("the result holds, per valset example, the best score and every best candidate's output", async ({ toyRun }) => {
    const { result, valset } = await toyRun({ trackBestOutputs: true, maxMetricCalls: 150 });
    expect(result.candidates.length).toBeGreaterThan(2);
    const expected = valset.map((example, j) => {
      const score = Math.max(...result.valSubscores.map((row) => row[j] as number));
      const best = result.valSubscores.flatMap((row, i) => (row[j] === score ? [i] : []));
      // The toy task outputs the keyword when it scores 1, else 'none'.
      return { score, outputs: best.map((candidate) => ({ candidate, output: score === 1 ? example.keyword : 'none' })) };
    });
    expect(result.bestOutputs).toEqual(expected);
    expect(result.bestOutputs?.some((e) => e.score === 1 && e.outputs[0]?.candidate !== 0)).toBe(true);
  });

  test('off by default: no outputs are kept', async ({ toyRun }) => {
    const { result } = await toyRun({ maxMetricCalls: 60 });
    expect(result.bestOutputs).toBeUndefined();
  });

  test('a higher score replaces the entry, an equal one adds its output, a missing output counts only for the score', () => {
    const seed = withCandidateOutputs([], 0, [0, 1, 0.5], ['a0', 'b0', undefined]);
    expect(seed).toEqual([
      { score: 0, outputs: [{ candidate: 0, output: 'a0' }] },
      { score: 1, outputs: [{ candidate: 0, output: 'b0' }] },
      { score: 0.5, outputs: [] },
    ]);
    expect(withCandidateOutputs(seed, 1, [1, 1, 0.5], ['a1', 'b1', 'c1'])).toEqual([
      { score: 1, outputs: [{ candidate: 1, output: 'a1' }] },
      { score: 1, outputs: [{ candidate: 0, output: 'b0' }, { candidate: 1, output: 'b1' }] },
      { score: 0.5, outputs: [{ candidate: 1, output: 'c1' }] },
    ]);
  });
});
