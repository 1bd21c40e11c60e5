// proposerMachine on its own, as XState's own tests drive a machine: the smallest parent that
// spawns it (and answers its verdict the way the test says), a stub evaluator registered under
// systemId 'evaluator' that replies after fixed latencies on a SimulatedClock, and assertions on
// the proposer's snapshot and on every message it sends and receives.
import { describe, expect, it } from 'vitest';
import { assign, createActor, fromCallback, sendTo, setup, SimulatedClock, spawnChild } from 'xstate';
import { proposerMachine, type ProposerInput } from '../machines/proposer.machine.js';
import type { EvaluatorRequest, ProposerDecision, ProposalUpdate } from '../machines/protocol.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import { planValsetRace, type ValsetRace } from '../src/gepa/strategies/valsetPolicy.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { ReflectionStrategy } from '../src/gepa/reflection/reflectionStrategy.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';

const EVAL_MS = 10;
const REFLECT_MS = 100;

interface StubInput {
  clock: SimulatedClock;
  /** The score of a candidate on an example id. */
  score: (candidate: Candidate, id: number) => number;
  /** The reflection's reply to a prompt; a thrown Error becomes a failed reflection. */
  reflect: (prompt: string) => string;
  /** Requests of these kinds fail (as an abort or a refused dollar reservation would). */
  failKinds?: string[];
  /** Metric calls of these kinds fail one by one (the evaluation carries the failure). */
  failCallKinds?: string[];
  requests: EvaluatorRequest[];
}

/** Replies to each request after its latency on the simulated clock; every metric call costs $0.001. */
const stubEvaluator = fromCallback<EvaluatorRequest, StubInput>(({ input, receive }) => {
  receive((request) => {
    input.requests.push(request);
    if (request.type === 'stats' || request.type === 'propose') return;
    const ms = request.type === 'reflect' ? REFLECT_MS : EVAL_MS;
    input.clock.setTimeout(() => {
      if (request.type === 'reflect') {
        try {
          request.replyTo.send({ type: 'reflected', requestId: request.requestId, ok: true, reply: { text: input.reflect(request.prompt) }, costUsd: 0.01 });
        } catch (error) {
          request.replyTo.send({ type: 'reflected', requestId: request.requestId, ok: false, error: (error as Error).message, costUsd: 0 });
        }
      } else if (input.failKinds?.includes(request.kind)) {
        request.replyTo.send({ type: 'evaluator.failed', requestId: request.requestId, error: 'refused', paidCalls: 0, costUsd: 0 });
      } else {
        const failure = input.failCallKinds?.includes(request.kind) ? { failure: { kind: 'timeout' as const, message: 'slow' } } : {};
        const evaluations = request.exampleIds.map((id) => ({ score: input.score(request.candidate, id), feedback: `feedback on ${id}`, ...failure }));
        request.replyTo.send({ type: 'evaluated', requestId: request.requestId, evaluations, paidCalls: evaluations.length, costUsd: 0.001 * evaluations.length });
      }
    }, ms);
  });
});

interface HarnessInput {
  stub: StubInput;
  proposer: ProposerInput;
  /** How the parent answers an accepted child. */
  grant: boolean;
  /** When set, the first accepted child is told to rebase instead (the async schedule's answer to a stale child). */
  rebase?: Extract<ProposerDecision, { type: 'rebase' }>;
  /** When set, the grant is a valset race. */
  race?: ValsetRace;
}

/** The parent: spawns one proposer, records what it reports, grants (or denies) an accepted child. */
const harness = setup({
  types: {
    context: {} as HarnessInput & { reports: ProposalUpdate[]; rebased: boolean },
    input: {} as HarnessInput,
    events: {} as ProposalUpdate | { type: 'start' },
    children: {} as { evaluator: 'evaluator'; proposer: 'proposer' },
  },
  actors: { evaluator: stubEvaluator, proposer: proposerMachine },
}).createMachine({
  context: ({ input }) => ({ ...input, reports: [], rebased: false }),
  invoke: { id: 'evaluator', systemId: 'evaluator', src: 'evaluator', input: ({ context }) => context.stub },
  on: {
    // Spawned once the evaluator runs (invoked actors start after the entry actions).
    start: { actions: spawnChild('proposer', { id: 'proposer', input: ({ context }) => context.proposer }) },
    'proposal.judged': {
      actions: [
        assign({ reports: ({ context, event }) => [...context.reports, event] }),
        sendTo('proposer', ({ context }): ProposerDecision => (context.rebase && !context.rebased ? context.rebase : context.grant ? { type: 'valset.granted', ...(context.race ? { race: context.race } : {}) } : { type: 'valset.denied' })),
        assign({ rebased: ({ context }) => context.rebase !== undefined }),
      ],
    },
    'proposal.finished': { actions: assign({ reports: ({ context, event }) => [...context.reports, event] }) },
  },
});

const PARENT: Candidate = { instructions: 'Answer.' };
const BETTER = 'Answer. Mind the units.';
/** Example ids: 0-2 the minibatch, 3-6 the valset. The better text solves everything; the parent only id 0. */
const score = (candidate: Candidate, id: number) => (candidate.instructions === BETTER || id === 0 ? 1 : 0);

function start(options: { grant?: boolean; race?: ValsetRace; buildDataset?: ProposerInput['buildDataset']; reflection?: ProposerInput['reflection']; evidence?: ProposerInput['evidence']; rebase?: HarnessInput['rebase']; reflect?: (prompt: string) => string; score?: StubInput['score']; merge?: ProposerInput['merge']; failKinds?: string[]; failCallKinds?: string[] } = {}) {
  const clock = new SimulatedClock();
  const requests: EvaluatorRequest[] = [];
  const events: RunEvent[] = [];
  const proposer: ProposerInput = {
    id: 'proposer',
    step: 4,
    task: 1,
    parent: PARENT,
    parentHash: candidateHash(PARENT),
    minibatch: [0, 1, 2],
    valIds: [3, 4, 5, 6],
    components: ['instructions'],
    examples: ['q0', 'q1', 'q2', 'v3', 'v4', 'v5', 'v6'],
    acceptance: 'strict-improvement',
    skipPerfectScore: true,
    perfectScore: 1,
    buildDataset: async (_candidate, results, components) => Object.fromEntries(components.map((c) => [c, results.map((r) => ({ Inputs: r.example, Feedback: r.evaluation.feedback }))])),
    onEvent: (event) => events.push(event),
    ...(options.merge ? { merge: options.merge } : {}),
    ...(options.buildDataset ? { buildDataset: options.buildDataset } : {}),
    ...(options.reflection ? { reflection: options.reflection } : {}),
    ...(options.evidence ? { evidence: options.evidence } : {}),
  };
  const stub: StubInput = { clock, score: options.score ?? score, reflect: options.reflect ?? (() => `\`\`\`\n${BETTER}\n\`\`\``), requests, ...(options.failKinds ? { failKinds: options.failKinds } : {}), ...(options.failCallKinds ? { failCallKinds: options.failCallKinds } : {}) };
  const actor = createActor(harness, { clock, input: { stub, proposer, grant: options.grant ?? true, ...(options.rebase ? { rebase: options.rebase } : {}), ...(options.race ? { race: options.race } : {}) } });
  actor.start();
  actor.send({ type: 'start' });
  const state = () => actor.getSnapshot().children.proposer?.getSnapshot().value;
  /** Lets the dataset builder's promise settle (it reports back with an event). */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return { actor, clock, requests, events, state, settle, reports: () => actor.getSnapshot().context.reports };
}

describe('proposerMachine, alone with a stub evaluator', () => {
  it('a reflective proposal: parent with traces, reflection, child, verdict, valset once granted', async () => {
    const t = start();
    expect(t.state()).toBe('evaluatingParent');
    expect(t.requests).toEqual([expect.objectContaining({ type: 'evaluate', kind: 'parent', exampleIds: [0, 1, 2], captureTraces: true, hash: candidateHash(PARENT) })]);

    t.clock.increment(EVAL_MS);
    await t.settle();
    expect(t.state()).toBe('reflecting');
    const reflect = t.requests[1] as Extract<EvaluatorRequest, { type: 'reflect' }>;
    expect(reflect.type).toBe('reflect');
    // The prompt carries the current text and the records the dataset builder made.
    expect(reflect.prompt).toContain('Answer.');
    expect(reflect.prompt).toContain('feedback on 2');

    t.clock.increment(REFLECT_MS);
    expect(t.state()).toBe('evaluatingChild');
    expect(t.requests[2]).toEqual(expect.objectContaining({ kind: 'child', exampleIds: [0, 1, 2], captureTraces: false, candidate: { instructions: BETTER } }));

    t.clock.increment(EVAL_MS);
    // Accepted (3 > 1): judged, granted by the parent, now on the valset.
    expect(t.state()).toBe('evaluatingValset');
    const verdict = { accepted: true, parentSum: 1, childSum: 3, margin: 2 };
    expect(t.reports()).toEqual([
      { type: 'proposal.judged', id: 'proposer', outcome: { task: 1, status: 'judged', childHash: candidateHash({ instructions: BETTER }), verdict }, child: { instructions: BETTER } },
    ]);
    expect(t.requests[3]).toEqual(expect.objectContaining({ kind: 'valset', exampleIds: [3, 4, 5, 6] }));

    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.reports()[1]).toEqual({
      type: 'proposal.finished',
      id: 'proposer',
      spend: { paidCalls: 10, reflectionCalls: 1, reflectionCostUsd: 0.01, costUsd: expect.closeTo(0.02, 12) },
      outcome: expect.objectContaining({ status: 'judged' }),
      child: { instructions: BETTER },
      valset: { subscores: [1, 1, 1, 1], objectives: [null, null, null, null], outputs: [undefined, undefined, undefined, undefined] },
    });
    expect(t.events.map((e) => (e.type === 'evaluation.started' || e.type === 'evaluation.ended' ? `${e.type} ${e.target}` : e.type))).toEqual([
      'evaluation.started parent',
      'evaluation.ended parent',
      'reflection.started',
      'reflection.ended',
      'evaluation.started child',
      'evaluation.ended child',
      'evaluation.started valset',
    ]);
    // What gepa's callbacks read: the evaluations, the dataset, the new text and its prompt.
    const byType = <T extends RunEvent['type']>(type: T) => t.events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
    expect(byType('evaluation.ended').map((e) => e.evaluations?.length)).toEqual([3, 3]);
    expect(byType('reflection.started')[0]?.components).toEqual(['instructions']);
    expect(byType('reflection.ended')[0]).toMatchObject({ newTexts: { instructions: BETTER }, prompts: { instructions: expect.stringContaining('instructions') } });
  });

  it("a strategy's rounds: each round's requests at once, the evidence handed over in its input, its state in the snapshot between rounds", async () => {
    const evidence = [{ candidate: { instructions: 'Other.' }, role: 'child' as const, dataset: { instructions: [{ Feedback: 'other failure' }] }, scores: [0], proposal: 'p3-0' }];
    // Two drafts from the parent's and the other proposal's failures, then one prompt that merges them.
    const mergeDrafts: ReflectionStrategy = {
      name: 'merge-drafts',
      ask: (input) => [
        { kind: 'prompt', component: 'instructions', prompt: `draft from ${JSON.stringify(input.dataset.instructions?.[0])}` },
        { kind: 'prompt', prompt: `draft from ${JSON.stringify(input.evidence[0]?.dataset.instructions?.[0])}` },
      ],
      read: (replies, _input, round) => {
        const texts = replies.map((r) => (r.ok && 'text' in r ? r.text : ''));
        return round.index === 0 ? { ask: [{ kind: 'prompt', prompt: `merge ${texts.join(' + ')}` }], state: { drafts: texts } } : { texts: { instructions: texts[0] as string } };
      },
    };
    const t = start({ reflection: { strategy: mergeDrafts }, evidence, reflect: (prompt) => (prompt.startsWith('merge') ? BETTER : prompt.includes('other failure') ? 'B' : 'A') });
    t.clock.increment(EVAL_MS);
    await t.settle();
    const prompts = () => t.requests.flatMap((r) => (r.type === 'reflect' ? [r.prompt] : []));
    expect(prompts()).toEqual([expect.stringContaining('feedback on 0'), 'draft from {"Feedback":"other failure"}']);
    t.clock.increment(REFLECT_MS);
    expect(t.state()).toBe('reflecting');
    expect(prompts()[2]).toBe('merge A + B');
    // Between rounds the proposer's snapshot holds the round as plain data (the strategy object is not in it).
    const snapshot = JSON.parse(JSON.stringify(t.actor.getSnapshot().children.proposer?.getSnapshot())) as { context: { reflecting: unknown } };
    expect(snapshot.context.reflecting).toEqual({ round: 1, asks: [{ kind: 'prompt', prompt: 'merge A + B' }], replies: [null], state: { drafts: ['A', 'B'] }, prompts: { instructions: expect.stringContaining('draft from') } });
    t.clock.increment(REFLECT_MS);
    expect(t.state()).toBe('evaluatingChild');
    expect(t.events.filter((e) => e.type === 'reflection.started')).toHaveLength(1);
    t.clock.increment(EVAL_MS);
    t.clock.increment(EVAL_MS);
    expect(t.reports()[1]).toMatchObject({ type: 'proposal.finished', child: { instructions: BETTER }, spend: { reflectionCalls: 3 } });
  });

  it('a denied child finishes without a valset evaluation', async () => {
    const t = start({ grant: false });
    t.clock.increment(EVAL_MS);
    await t.settle();
    t.clock.increment(REFLECT_MS);
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.requests.map((r) => (r.type === 'evaluate' ? r.kind : r.type))).toEqual(['parent', 'reflect', 'child']);
    expect(t.reports().map((r) => r.type)).toEqual(['proposal.judged', 'proposal.finished']);
    expect(t.reports()[1]).toMatchObject({ spend: { paidCalls: 6, reflectionCalls: 1 }, valset: undefined });
  });

  it('a rejected child sends no judged message: its verdict travels in finished', async () => {
    const t = start({ reflect: () => '```\nAnswer, please.\n```' });
    t.clock.increment(EVAL_MS);
    await t.settle();
    t.clock.increment(REFLECT_MS);
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.reports()).toEqual([
      expect.objectContaining({ type: 'proposal.finished', outcome: expect.objectContaining({ status: 'judged', verdict: { accepted: false, parentSum: 1, childSum: 1, margin: 0 } }) }),
    ]);
  });

  it('a rebased child is judged against its new base where its edit helped (or on the whole minibatch), then goes to the valset', async () => {
    const onto: Candidate = { instructions: 'Answer. Be kind.' };
    const rebasedChild: Candidate = { instructions: 'Answer. Be kind. Mind the units.' };
    // The parent solves id 0 only; its child solves all three, so its edit helped on ids 1 and 2.
    // The new base solves ids 0 and 1; the rebased child solves everything.
    const solvesAll = [BETTER, rebasedChild.instructions];
    const scores = (candidate: Candidate, id: number) => (solvesAll.includes(candidate.instructions as string) || id === 0 || (candidate.instructions === onto.instructions && id === 1) ? 1 : 0);
    for (const [gate, exampleIds, verdict] of [
      ['where-it-helped', [1, 2], { accepted: true, parentSum: 1, childSum: 2, margin: 1 }],
      ['whole-minibatch', [0, 1, 2], { accepted: true, parentSum: 2, childSum: 3, margin: 1 }],
    ] as const) {
      const rebase = { type: 'rebase' as const, onto, ontoHash: candidateHash(onto), child: rebasedChild, childHash: candidateHash(rebasedChild), gate };
      const t = start({ score: scores, rebase });
      t.clock.increment(EVAL_MS);
      await t.settle();
      t.clock.increment(REFLECT_MS);
      t.clock.increment(EVAL_MS);
      expect(t.state(), gate).toBe('evaluatingRebase');
      const gateRequests = t.requests.slice(3);
      expect(gateRequests, gate).toEqual([
        expect.objectContaining({ kind: 'child', exampleIds, candidate: rebasedChild }),
        expect.objectContaining({ kind: 'child', exampleIds, candidate: onto }),
      ]);
      t.clock.increment(EVAL_MS);
      expect(t.state(), gate).toBe('evaluatingValset');
      expect(t.reports()[1], gate).toEqual(expect.objectContaining({ type: 'proposal.judged', outcome: expect.objectContaining({ verdict }), child: rebasedChild }));
      t.clock.increment(EVAL_MS);
      // Paid: parent 3, child 3, the gate 2 x its examples, valset 4.
      expect(t.reports()[2], gate).toMatchObject({ type: 'proposal.finished', spend: { paidCalls: 10 + 2 * exampleIds.length }, rebaseGateExamples: exampleIds.length });
    }
  });

  it('a parent perfect on its minibatch is skipped before any reflection', () => {
    const t = start({ score: () => 1 });
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.requests).toHaveLength(1);
    expect(t.reports()).toEqual([expect.objectContaining({ outcome: { task: 1, status: 'skipped', reason: 'parent is perfect on its minibatch' }, spend: expect.objectContaining({ paidCalls: 3 }) })]);
    expect(t.events.at(-1)).toEqual({ type: 'evaluation.skipped', step: 4, task: 1, reason: 'parent is perfect on its minibatch', scores: [1, 1, 1] });
  });

  it('a reflection that changes nothing, or fails, makes no child, with the reason per component', async () => {
    for (const [reflect, note] of [
      [() => '```\nAnswer.\n```', 'unchanged text'],
      [() => '```\n\n```', 'empty reply'],
      [
        () => {
          throw new Error('HTTP 500');
        },
        'reflection failed: HTTP 500',
      ],
    ] as const) {
      const t = start({ reflect });
      t.clock.increment(EVAL_MS);
      await t.settle();
      t.clock.increment(REFLECT_MS);
      expect(t.state()).toBe('finished');
      expect(t.reports()[0]).toMatchObject({ outcome: { status: 'skipped', reason: `reflection proposed no new text (instructions: ${note})` } });
    }
  });

  it('a merge starts from its ready child, judged against the better parent on the subsample', () => {
    const merged = { instructions: BETTER };
    const t = start({ merge: { child: merged, parentSums: [2, 1] } });
    expect(t.state()).toBe('evaluatingChild');
    expect(t.requests).toEqual([expect.objectContaining({ kind: 'merge', candidate: merged, exampleIds: [0, 1, 2] })]);
    t.clock.increment(EVAL_MS);
    expect(t.reports()[0]).toMatchObject({ type: 'proposal.judged', outcome: { verdict: { accepted: true, parentSum: 2, childSum: 3 } } });
    expect(t.state()).toBe('evaluatingValset');
  });

  it('an evaluation the evaluator cannot serve ends the proposal with no verdict and an error event', () => {
    const t = start({ failKinds: ['parent'] });
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.reports()).toEqual([{ type: 'proposal.finished', id: 'proposer', spend: { paidCalls: 0, reflectionCalls: 0, reflectionCostUsd: 0, costUsd: 0 }, outcome: undefined, child: undefined, valset: undefined }]);
    expect(t.events.at(-1)).toEqual({ type: 'error', message: 'task 4/1: refused' });
  });

  it('a valset race asks for each chunk by example id and completes with the scores in valset order', async () => {
    // Valset positions 0-3 are ids 3-6; the parent scores 0 on all of them, so the better child never trails.
    const race = planValsetRace({ kind: 'race', chunk: 3, margin: 0 }, [0, 0, 0, 0], [0, 0, 0, 0], 2) as ValsetRace;
    const t = start({ race });
    t.clock.increment(EVAL_MS);
    await t.settle();
    t.clock.increment(REFLECT_MS);
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('racingValset');
    expect(t.requests.slice(3)).toEqual([expect.objectContaining({ kind: 'valset', exampleIds: [5, 6, 3], requestId: 2 })]);
    t.clock.increment(EVAL_MS);
    expect(t.requests.slice(4)).toEqual([expect.objectContaining({ kind: 'valset', exampleIds: [4] })]);
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.reports()[1]).toMatchObject({ type: 'proposal.finished', spend: { paidCalls: 10 }, valset: { subscores: [1, 1, 1, 1] } });
    expect(t.reports()[1]).not.toHaveProperty('valsetStop');
    expect(t.events.filter((e) => e.type === 'evaluation.started').map((e) => (e as { target: string }).target)).toEqual(['parent', 'child', 'valset']);
  });

  it('a child that trails its parent on the first chunk of its race stops there, with the reason and no valset scores', async () => {
    // A child better on the minibatch (ids 0-2) but worse than its parent on the valset (ids 3-6).
    const scores = (candidate: Candidate, id: number) => (candidate.instructions === BETTER ? (id < 3 ? 1 : 0) : id === 0 || id >= 3 ? 1 : 0);
    const race = planValsetRace({ kind: 'race', chunk: 2, margin: 0 }, [1, 1, 1, 1], [1, 1, 1, 1], 0) as ValsetRace;
    const t = start({ race, score: scores });
    t.clock.increment(EVAL_MS);
    await t.settle();
    t.clock.increment(REFLECT_MS);
    t.clock.increment(EVAL_MS);
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.requests.slice(3)).toEqual([expect.objectContaining({ kind: 'valset', exampleIds: [3, 4] })]);
    expect(t.reports()[1]).toMatchObject({ spend: { paidCalls: 8 }, valset: undefined, valsetStop: "lost its valset race: 0 vs its parent's 2 on the first 2 of 4 examples" });
  });

  it('a parent whose every call failed, or a dataset builder that throws, ends the proposal skipped with why', async () => {
    const t = start({ failCallKinds: ['parent'] });
    t.clock.increment(EVAL_MS);
    expect(t.state()).toBe('finished');
    expect(t.requests).toHaveLength(1);
    expect(t.reports()).toEqual([expect.objectContaining({ outcome: { task: 1, status: 'skipped', reason: "every metric call of the parent's minibatch failed" }, spend: expect.objectContaining({ paidCalls: 3 }) })]);
    expect(t.events.map((e) => e.type)).toEqual(['evaluation.started', 'evaluation.skipped']);
    const failing = start({ buildDataset: async () => Promise.reject(new Error('no traces')) });
    failing.clock.increment(EVAL_MS);
    await failing.settle();
    expect(failing.state()).toBe('finished');
    expect(failing.requests).toHaveLength(1);
    expect(failing.reports()).toEqual([expect.objectContaining({ outcome: { task: 1, status: 'skipped', reason: 'building the reflective dataset failed: no traces' } })]);
  });
});
