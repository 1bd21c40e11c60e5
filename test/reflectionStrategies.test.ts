// Reflection strategies (src/gepa/reflection/): the three built-ins (the built-in prompt, the
// user's template, the user's proposeNewTexts), the run that drives any strategy through its
// rounds and checks what it returns, the one config field that selects one, and a fourth strategy
// written here, run through optimize() in both schedules with nothing else added.
import { describe, expect } from 'vitest';
import { ConfigError } from '../src/errors/configError.js';
import { buildReflectionPrompt } from '../src/gepa/proposer/reflectionPrompt.js';
import { extractInstruction } from '../src/gepa/proposer/extractInstruction.js';
import { builtInPrompt } from '../src/gepa/reflection/builtInPrompt.js';
import { promptTemplate } from '../src/gepa/reflection/promptTemplate.js';
import { proposeNewTexts } from '../src/gepa/reflection/proposeNewTexts.js';
import { chosenReflectionStrategy, REFLECTION_STRATEGY_NAMES, reflectionStrategies } from '../src/gepa/reflection/reflectionStrategies.js';
import { afterRound, reflectionInput, startReflection, withReply, type ReflectionRun, type ReflectionView } from '../src/gepa/reflection/reflectionRun.js';
import type { ReflectionAsk, ReflectionInput, ReflectionStrategy } from '../src/gepa/reflection/reflectionStrategy.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { test } from './support/toyRun.js';

const parent = { instructions: 'Answer.', style: 'Short.' };
const dataset = { instructions: [{ Inputs: 'q0', Feedback: 'wrong unit' }], style: [{ Inputs: 'q0', Feedback: 'too long' }] };
const view = (over: Partial<ReflectionView> = {}): ReflectionView => ({ parent, components: ['instructions', 'style'], dataset, parentEvaluations: [{ score: 0.5 }], ...over });
const fenced = (text: string) => `Here:\n\`\`\`\n${text}\n\`\`\``;

/** The run's first round, or the reason it was skipped. */
function started(v: ReflectionView): ReflectionRun | string {
  const next = startReflection({ dataset: v.dataset ?? {} }, v);
  return next.kind === 'go-on' ? next.reflecting : next.reason;
}

describe('the built-in strategies', () => {
  test('built-in: one prompt per component, exactly the built-in prompt, each reply read as its component', () => {
    const input = reflectionInput(view());
    const asks = builtInPrompt.ask(input) as ReflectionAsk[];
    expect(asks).toEqual([
      { kind: 'prompt', component: 'instructions', prompt: buildReflectionPrompt('instructions', 'Answer.', dataset.instructions) },
      { kind: 'prompt', component: 'style', prompt: buildReflectionPrompt('style', 'Short.', dataset.style) },
    ]);
    const read = builtInPrompt.read([{ ok: true, text: fenced('Answer in metres.') }, { ok: false, error: 'HTTP 500' }], input, { index: 0, asks });
    expect(read).toEqual({ texts: { instructions: 'Answer in metres.' }, notes: { style: 'reflection failed: HTTP 500' } });
    expect(builtInPrompt.read([{ ok: true, text: '  ' }, { ok: true, text: fenced('Brief.') }], input, { index: 0, asks })).toEqual({ texts: { style: 'Brief.' }, notes: { instructions: 'empty reply' } });
  });

  test("built-in: optimizeAnything's objective and background frame the prompt", () => {
    const context = { objective: 'Convert units.', background: 'SI only.' };
    const asks = builtInPrompt.ask(reflectionInput(view({ components: ['instructions'], reflection: { strategy: builtInPrompt, context } }))) as ReflectionAsk[];
    expect(asks).toEqual([{ kind: 'prompt', component: 'instructions', prompt: buildReflectionPrompt('instructions', 'Answer.', dataset.instructions, context) }]);
  });

  test('template: a string template filled in per component (gepa 0.1.4 placeholders too), a function template called, a throwing one fails the proposal', () => {
    const asksOf = (template: NonNullable<ReflectionView['reflection']>['template']) => promptTemplate.ask(reflectionInput(view({ reflection: { strategy: promptTemplate, template } })));
    expect(asksOf('Text: <curr_param>\nRecords: <inputs_outputs_feedback>')).toEqual([
      { kind: 'prompt', component: 'instructions', prompt: 'Text: Answer.\nRecords: # Example 1\n## Inputs\nq0\n\n## Feedback\nwrong unit' },
      { kind: 'prompt', component: 'style', prompt: 'Text: Short.\nRecords: # Example 1\n## Inputs\nq0\n\n## Feedback\ntoo long' },
    ]);
    expect(asksOf((component, text, records) => `${component}=${text} (${records.length})`)).toMatchObject([{ prompt: 'instructions=Answer. (1)' }, { prompt: 'style=Short. (1)' }]);
    expect(asksOf(() => { throw new Error('bad template'); })).toEqual({ failed: 'reflectionPromptTemplate failed: bad template' });
    expect(asksOf(() => '' as string)).toEqual({ failed: 'reflectionPromptTemplate failed: returned "", not a prompt string' });
  });

  test("propose-new-texts: one call for all components; its answer read as texts, a bad answer gives every component the reason", () => {
    const input = reflectionInput(view());
    const asks = proposeNewTexts.ask(input) as ReflectionAsk[];
    expect(asks).toEqual([{ kind: 'propose', candidate: parent, dataset, components: ['instructions', 'style'] }]);
    const read = (texts: unknown) => proposeNewTexts.read([{ ok: true, texts }], input, { index: 0, asks });
    expect(read({ instructions: 'Answer in metres.', style: ' ' })).toEqual({ texts: { instructions: 'Answer in metres.' }, notes: { style: 'no text proposed' } });
    expect(read({ tone: 'x' })).toEqual({ texts: {}, notes: { instructions: 'proposeNewTexts returned "tone": not a component to update (instructions, style)', style: 'proposeNewTexts returned "tone": not a component to update (instructions, style)' } });
    expect(read('x')).toMatchObject({ notes: { style: 'proposeNewTexts returned "x", not texts by component' } });
    expect(proposeNewTexts.read([{ ok: false, error: 'proposer down' }], input, { index: 0, asks })).toMatchObject({ notes: { instructions: 'proposeNewTexts failed: proposer down' } });
  });
});

describe('the reflection run (any strategy)', () => {
  test("the first round: the strategy's requests, the prompts it names kept for the report; a failed dataset or a throwing strategy is a skip with the reason", () => {
    expect(started(view())).toMatchObject({ round: 0, replies: [undefined, undefined], prompts: { instructions: expect.stringContaining('wrong unit'), style: expect.stringContaining('too long') } });
    expect(startReflection({ error: new Error('no traces') }, view())).toEqual({ kind: 'skip', reason: 'building the reflective dataset failed: no traces' });
    const throwing: ReflectionStrategy = { name: 'oops', ask: () => { throw new Error('boom'); }, read: () => ({ texts: {} }) };
    expect(started(view({ reflection: { strategy: throwing } }))).toBe("reflection strategy 'oops' failed: boom");
    const empty: ReflectionStrategy = { name: 'lazy', ask: () => [], read: () => ({ texts: {} }) };
    expect(started(view({ reflection: { strategy: empty } }))).toBe("reflection strategy 'lazy' asked for nothing");
    const odd = { name: 'odd', ask: () => [{ kind: 'email', to: 'x' }], read: () => ({ texts: {} }) } as unknown as ReflectionStrategy;
    expect(started(view({ reflection: { strategy: odd } }))).toMatch(/^reflection strategy 'odd' made a request that is neither a prompt/);
  });

  test('replies fill their places; a full round is read into the child, another round, or a skip', () => {
    const v = view();
    const run = started(v) as ReflectionRun;
    const answered = withReply(withReply(run, 1, { ok: true, text: fenced('Short.') }), 0, { ok: true, text: fenced('Answer in metres.') });
    const child = { instructions: 'Answer in metres.', style: 'Short.' };
    expect(afterRound(v, answered)).toEqual({ kind: 'go-on', child, childHash: candidateHash(child) });
    const unchanged = withReply(withReply(run, 0, { ok: true, text: 'Answer.' }), 1, { ok: false, error: 'HTTP 500' });
    expect(afterRound(v, unchanged)).toEqual({ kind: 'skip', reason: 'reflection proposed no new text (instructions: unchanged text; style: reflection failed: HTTP 500)' });
  });

  test("a strategy's rounds: its state comes back to its next read, its prompts stay the first round's; texts it may not give are a skip", () => {
    // Draft, then ask the model to check the draft; the state carries the draft.
    const critic: ReflectionStrategy = {
      name: 'critic',
      ask: (input) => [{ kind: 'prompt', component: 'instructions', prompt: `draft ${input.parent.instructions}` }],
      read: (replies, _input, round) => {
        const reply = replies[0];
        const text = reply?.ok && 'text' in reply ? reply.text : '';
        if (round.index === 0) return { ask: [{ kind: 'prompt', component: 'instructions', prompt: `check ${text}` }], state: { draft: text } };
        return { texts: { instructions: `${(round.state as { draft: string }).draft} / ${text}` } };
      },
    };
    const v = view({ components: ['instructions'], reflection: { strategy: critic } });
    const first = started(v) as ReflectionRun;
    const second = afterRound(v, withReply(first, 0, { ok: true, text: 'D' }));
    expect(second).toEqual({ kind: 'ask', reflecting: { round: 1, asks: [{ kind: 'prompt', component: 'instructions', prompt: 'check D' }], replies: [undefined], state: { draft: 'D' }, prompts: { instructions: 'draft Answer.' } } });
    const last = second.kind === 'ask' ? second.reflecting : first;
    expect(afterRound(v, withReply(last, 0, { ok: true, text: 'C' }))).toMatchObject({ kind: 'go-on', child: { instructions: 'D / C', style: 'Short.' } });

    const stray: ReflectionStrategy = { ...critic, name: 'stray', read: () => ({ texts: { style: 'x' } }) };
    const sv = view({ components: ['instructions'], reflection: { strategy: stray } });
    expect(afterRound(sv, withReply(started(sv) as ReflectionRun, 0, { ok: true, text: 'x' }))).toEqual({ kind: 'skip', reason: `reflection strategy 'stray' returned a text for "style", not a component to rewrite (instructions)` });
    const gaveUp: ReflectionStrategy = { ...critic, name: 'gave-up', read: () => ({ failed: 'nothing to learn from these records' }) };
    const gv = view({ components: ['instructions'], reflection: { strategy: gaveUp } });
    expect(afterRound(gv, withReply(started(gv) as ReflectionRun, 0, { ok: true, text: 'x' }))).toEqual({ kind: 'skip', reason: 'nothing to learn from these records' });
  });

  test("the strategy's input: the parent, the components, the dataset, the parent's scores, the evidence handed over, the run's options", () => {
    const evidence = [{ candidate: { instructions: 'Other.' }, role: 'child' as const, dataset: {}, scores: [1, 0], proposal: 'p3-0' }];
    expect(reflectionInput(view({ evidence, parentEvaluations: [{ score: 0.5 }, { score: 1 }], reflection: { strategy: builtInPrompt, context: { objective: 'o' } } }))).toEqual({
      parent, components: ['instructions', 'style'], dataset, scores: [0.5, 1], evidence, options: { context: { objective: 'o' } },
    });
  });
});

describe('one field selects the strategy', () => {
  const template = 'T <curr_instructions> <inputs_outputs_feedback>';
  const propose = () => ({});

  test('by name, or selected by the hook given (as before the field existed)', () => {
    expect(REFLECTION_STRATEGY_NAMES).toEqual(['built-in', 'template', 'propose-new-texts', 'combined']);
    for (const name of REFLECTION_STRATEGY_NAMES) expect(reflectionStrategies[name].name).toBe(name);
    expect(chosenReflectionStrategy({})).toBe(builtInPrompt);
    expect(chosenReflectionStrategy({ reflectionPromptTemplate: template })).toBe(promptTemplate);
    expect(chosenReflectionStrategy({ proposeNewTexts: propose })).toBe(proposeNewTexts);
    expect(chosenReflectionStrategy({ reflectionStrategy: 'template', reflectionPromptTemplate: template })).toBe(promptTemplate);
  });

  test('a wrong value is refused with the allowed values; a strategy without what it needs, or a hook it would ignore, too', async ({ toyRun }) => {
    await expect(toyRun({ reflectionStrategy: 'combee' as never })).rejects.toThrow(
      new ConfigError(`invalid optimize config: reflectionStrategy: must be one of "built-in", "template", "propose-new-texts", "combined" or an object { name, ask, read } (got "combee")`),
    );
    await expect(toyRun({ reflectionStrategy: { name: 'half', ask: () => [] } as never })).rejects.toThrow(/reflectionStrategy: must be one of .* \(got \{"name":"half"\}\)/);
    await expect(toyRun({ reflectionStrategy: 'template' })).rejects.toThrow("reflectionStrategy: 'template' needs reflectionPromptTemplate");
    await expect(toyRun({ reflectionStrategy: 'propose-new-texts' })).rejects.toThrow("reflectionStrategy: 'propose-new-texts' needs proposeNewTexts");
    await expect(toyRun({ reflectionStrategy: 'built-in', reflectionPromptTemplate: template })).rejects.toThrow("reflectionPromptTemplate: has no effect with reflectionStrategy 'built-in'");
    await expect(toyRun({ reflectionStrategy: 'template', reflectionPromptTemplate: template, proposeNewTexts: propose })).rejects.toThrow('reflectionPromptTemplate: has no effect with proposeNewTexts');
  });
});

// A fourth strategy, as a user (or a new file of src/gepa/reflection/) writes one: two prompts per
// component, the built-in one and one that asks for brevity, and the shorter answer kept.
const BRIEF = '\nBe brief: the shortest text that says it.';
const shorterOfTwo: ReflectionStrategy = {
  name: 'shorter-of-two',
  ask: (input) =>
    input.components.flatMap((c) => {
      const prompt = buildReflectionPrompt(c, input.parent[c] ?? '', input.dataset[c] ?? []);
      return [{ kind: 'prompt' as const, component: c, prompt }, { kind: 'prompt' as const, component: c, prompt: prompt + BRIEF }];
    }),
  read: (replies, input) => {
    const texts: Record<string, string> = {};
    input.components.forEach((c, i) => {
      const answers = replies.slice(2 * i, 2 * i + 2).flatMap((r) => (r.ok && 'text' in r ? [extractInstruction(r.text)] : [])).filter((t): t is string => t !== null);
      const shortest = answers.sort((a, b) => a.length - b.length)[0];
      if (shortest !== undefined) texts[c] = shortest;
    });
    return { texts };
  },
};

/** The toy task's reflection (append a keyword the feedback asks for), padded unless the prompt asks for brevity. */
const padUnlessBrief: LanguageModel = async (prompt) => {
  const current = prompt.split('```')[1]?.trim() ?? '';
  const wanted = [...prompt.matchAll(/needs the word (\w+)/g)].map((m) => m[1]).find((w) => !current.includes(w as string));
  const text = `${current}${wanted ? ` ${wanted}` : ''}`;
  return fenced(prompt.endsWith(BRIEF) ? text : `${text} (and remember this)`);
};

describe('a fourth strategy: one object, given to the run', () => {
  for (const schedule of [{ kind: 'batched' as const }, { kind: 'async' as const, inFlight: 4 }]) {
    test(`${schedule.kind}: two prompts per component, the shorter answer becomes the child, through optimize()`, async ({ toyRun }) => {
      const events: RunEvent[] = [];
      const prompts: string[] = [];
      const reflectionLm: LanguageModel = (prompt, ctx) => {
        prompts.push(prompt);
        return padUnlessBrief(prompt, ctx);
      };
      const { result } = await toyRun({ reflectionStrategy: shorterOfTwo, reflectionLm, schedule, maxMetricCalls: 150, onEvent: (e) => events.push(e) });
      const reflected = events.filter((e) => e.type === 'reflection.started').length;
      expect(reflected).toBeGreaterThan(3);
      // Two reflection calls per reflection, half of them asking for brevity.
      expect(result.reflectionCalls).toBe(2 * reflected);
      expect(prompts.filter((p) => p.endsWith(BRIEF))).toHaveLength(reflected);
      // Only the brief answers became children, and the run improved on them.
      expect(result.candidates.length).toBeGreaterThan(2);
      for (const candidate of result.candidates) expect(candidate.instructions).not.toContain('remember');
      expect(result.bestScore).toBeGreaterThan(result.valScores[0] as number);
      // The report of each reflection names the first prompt sent per component.
      const ended = events.find((e) => e.type === 'reflection.ended');
      expect(ended).toMatchObject({ prompts: { instructions: expect.not.stringContaining(BRIEF) } });
    });
  }

  test("the run's perfectScore reaches a strategy's options only when it is not GEPA's 1", async ({ toyRun }) => {
    const seen: Array<ReflectionInput['options']> = [];
    const recording: ReflectionStrategy = { ...builtInPrompt, name: 'recording', ask: (input) => (seen.push(input.options), builtInPrompt.ask(input)) };
    await toyRun({ reflectionStrategy: recording, maxMetricCalls: 40, perfectScore: 2 });
    expect(seen.length).toBeGreaterThan(0);
    for (const options of seen) expect(options.perfectScore).toBe(2);
    seen.length = 0;
    await toyRun({ reflectionStrategy: recording, maxMetricCalls: 40 });
    expect(seen.length).toBeGreaterThan(0);
    for (const options of seen) expect(options).not.toHaveProperty('perfectScore');
  });

  test('batched: the same run whatever workers is and whichever reply comes first (each reply read in the place it was asked for)', async ({ toyRun }) => {
    // Keeps the second reply of each pair, the brief one, whatever order the replies came in.
    const secondOfTwo: ReflectionStrategy = {
      ...shorterOfTwo,
      name: 'second-of-two',
      read: (replies, input) => ({ texts: Object.fromEntries(input.components.map((c, i) => [c, extractInstruction((replies[2 * i + 1] as { text: string }).text) ?? ''])) }),
    };
    const runs = await Promise.all(
      [
        { workers: 1, latencySalt: 'a' },
        { workers: 8, latencySalt: 'b' },
      ].map((o) => toyRun({ ...o, reflectionStrategy: secondOfTwo, reflectionLm: padUnlessBrief, maxMetricCalls: 150 })),
    );
    for (const { result } of runs) for (const candidate of result.candidates) expect(candidate.instructions).not.toContain('remember');
    const [one, eight] = runs.map(({ result: r }) => ({ candidates: r.candidates, parents: r.parents, valScores: r.valScores, proposals: r.proposals, metricCalls: r.metricCalls }));
    expect(eight).toEqual(one);
  });
});
