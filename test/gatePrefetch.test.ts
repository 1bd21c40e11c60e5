// schedule.speculate 'rebase-gate': a held child waiting for one older proposal on its valset has
// the gates of both rebases it may face evaluated ahead (onto that proposal's child, and onto the
// target it has now), so that the gate its verdict asks for, decided in launch order as before, is
// served from the evaluation cache. Rule first, then runs on the demo task.
import { describe, expect, it } from 'vitest';
import { assign, createActor, fromCallback, sendTo, setup, SimulatedClock, spawnChild } from 'xstate';
import { proposerMachine, type ProposerInput } from '../machines/proposer.machine.js';
import type { EvaluatorRequest, ProposerDecision, ProposalUpdate } from '../machines/protocol.js';
import { openLedger, reserve } from '../src/budget/budgetLedger.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { addCandidate, emptyPool, type CandidatePool } from '../src/gepa/core/candidatePool.js';
import { candidateHash } from '../src/gepa/core/candidateHash.js';
import type { Proposal } from '../src/gepa/core/proposal.js';
import { gatePrefetches } from '../src/gepa/search/gatePrefetch.js';
import { optimize, type Candidate, type OptimizeResult, type RunEvent, type Schedule } from '../src/index.js';

function pool(rows: Array<[string, number[], number]>): CandidatePool {
  let p = emptyPool();
  for (const [text, parents, score] of rows) p = addCandidate(p, { candidate: { system: text }, parents, subscores: [score], metricCallsAtDiscovery: 0 }).pool;
  return p;
}

describe('gatePrefetches', () => {
  // 0 the seed; 1 joined while n (a child of 0, drawn when the pool held 1 candidate) ran; q is on its valset.
  const p = pool([
    ['Be kind.', [], 0.2],
    ['Be kind. Quote ids.', [0], 0.5],
  ]);
  const ledger = reserve(openLedger(100), 2 * 36)?.ledger as ReturnType<typeof openLedger>;
  const judged = { task: 0, status: 'judged', childHash: 'h', verdict: { accepted: true, parentSum: 1, childSum: 2, margin: 1 } } as const;
  const q: Proposal = { id: 'p1-0', step: 1, task: 0, kind: 'reflective', parents: [1], poolSizeAtStart: 2, reservation: { calls: 36 }, granted: true, outcome: judged, child: { system: 'Be kind. Quote ids. Use SI units.' } };
  const n: Proposal = { id: 'p2-0', step: 2, task: 0, kind: 'reflective', parents: [0], poolSizeAtStart: 1, reservation: { calls: 36 }, granted: false, outcome: judged, child: { system: 'Be kind. Be brief.' }, waitingFor: ['p1-0'] };
  const settings = { extraCalls: 6, gate: 'where-it-helped', policy: 'best' } as const;

  it("evaluates ahead both gates a held child may face, and enlarges its reservation by both gates' worst case", () => {
    const out = gatePrefetches({ proposals: { [q.id]: q, [n.id]: n }, pool: p, ledger }, settings);
    const onNewcomer = { system: 'Be kind. Quote ids. Use SI units. Be brief.' };
    const onNow = { system: 'Be kind. Quote ids. Be brief.' };
    expect(out.messages).toEqual([
      { id: 'p2-0', message: { type: 'rebase.prefetch', onto: q.child, ontoHash: candidateHash(q.child as never), child: onNewcomer, childHash: candidateHash(onNewcomer), gate: 'where-it-helped' } },
      { id: 'p2-0', message: { type: 'rebase.prefetch', onto: { system: 'Be kind. Quote ids.' }, ontoHash: p.hashes[1], child: onNow, childHash: candidateHash(onNow), gate: 'where-it-helped' } },
    ]);
    expect(out.proposals['p2-0']?.reservation).toEqual({ calls: 48 });
    expect(out.ledger.reservedCalls).toBe(72 + 12);
    expect(out.proposals['p2-0']?.gatePrefetched).toEqual([candidateHash(onNewcomer), candidateHash(onNow)]);
    // Once per child.
    expect(gatePrefetches({ proposals: out.proposals, pool: p, ledger: out.ledger }, settings).messages).toEqual([]);
  });

  it('waits while the proposal ahead is not on its valset, or more than one is ahead, or the budget cannot pay', () => {
    expect(gatePrefetches({ proposals: { [q.id]: { ...q, granted: false }, [n.id]: n }, pool: p, ledger }, settings).messages).toEqual([]);
    const r: Proposal = { ...q, id: 'p0-0', step: 0 };
    expect(gatePrefetches({ proposals: { [r.id]: r, [q.id]: q, [n.id]: { ...n, waitingFor: ['p0-0', 'p1-0'] } }, pool: p, ledger }, settings).messages).toEqual([]);
    expect(gatePrefetches({ proposals: { [q.id]: q, [n.id]: n }, pool: p, ledger: reserve(ledger, 100 - 72 - 11)?.ledger as typeof ledger }, settings).messages).toEqual([]);
  });
});

/** A demo run; per rebase gate, whether it was served at once (no simulated time between its start and its end). */
async function gatesServedAtOnce(speculate: 'rebase-gate' | 'none'): Promise<{ gates: number; atOnce: number; result: OptimizeResult }> {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: 4, metricCallMs: 20, reflectionMs: 100, clock });
  const { seedCandidate, trainset, valset, adapter, reflectionLm } = task;
  const judged = new Set<string>();
  const started = new Map<string, number>();
  let gates = 0;
  let atOnce = 0;
  const onEvent = (e: RunEvent) => {
    if (e.type === 'evaluation.started' && e.target === 'child' && judged.has(`${e.step}-${e.task}`)) started.set(`${e.step}-${e.task}`, clock.now());
    if (e.type === 'evaluation.ended' && e.target === 'child') {
      const id = `${e.step}-${e.task}`;
      const at = started.get(id);
      if (at !== undefined) {
        gates++;
        if (clock.now() === at) atOnce++;
        started.delete(id);
      }
      judged.add(id);
    }
  };
  const schedule: Schedule = { kind: 'async', inFlight: 8, rebaseWait: 'launched-before', speculate };
  const result = await runOnSimulatedClock(clock, optimize({ seedCandidate, trainset, valset, adapter, reflectionLm, schedule, workers: 16, maxMetricCalls: 600, seed: 4, clock, onEvent }));
  return { gates, atOnce, result };
}

describe("speculate 'rebase-gate' in a run", () => {
  it('serves rebase gates from what was evaluated ahead, within the budget; without it none is served at once', async () => {
    const ahead = await gatesServedAtOnce('rebase-gate');
    expect(ahead.gates).toBeGreaterThan(5);
    expect(ahead.atOnce).toBeGreaterThan(ahead.gates / 3);
    expect(ahead.result.metricCalls).toBeLessThanOrEqual(600);
    expect(ahead.result.stopReason).toBe('maxMetricCalls');
    const plain = await gatesServedAtOnce('none');
    expect(plain.gates).toBeGreaterThan(5);
    expect(plain.atOnce).toBe(0);
  });
});

/** Replies to each evaluation after 10 ms of simulated time, one paid call per example; a candidate scores 1 where its text is long. */
const stubEvaluator = fromCallback<EvaluatorRequest, { clock: SimulatedClock; requests: EvaluatorRequest[] }>(({ input, receive }) => {
  receive((request) => {
    input.requests.push(request);
    if (request.type === 'reflect') input.clock.setTimeout(() => request.replyTo.send({ type: 'reflected', requestId: request.requestId, ok: true, reply: { text: '```\nAnswer. Mind the units.\n```' }, costUsd: 0 }), 100);
    if (request.type !== 'evaluate') return;
    const evaluations = request.exampleIds.map((id) => ({ score: (request.candidate.instructions as string).length > 10 || id === 0 ? 1 : 0, feedback: 'ok' }));
    input.clock.setTimeout(() => request.replyTo.send({ type: 'evaluated', requestId: request.requestId, evaluations, paidCalls: evaluations.length, costUsd: 0 }), 10);
  });
});

/** A parent that answers the judged child with a prefetch and, at once, a denial. */
const prefetchThenDeny = setup({
  types: { context: {} as { reports: ProposalUpdate[]; prefetch: ProposerDecision; clock: SimulatedClock; requests: EvaluatorRequest[]; proposer: ProposerInput }, input: {} as { prefetch: ProposerDecision; clock: SimulatedClock; requests: EvaluatorRequest[]; proposer: ProposerInput }, events: {} as ProposalUpdate | { type: 'start' } },
  actors: { evaluator: stubEvaluator, proposer: proposerMachine },
}).createMachine({
  context: ({ input }) => ({ ...input, reports: [] }),
  invoke: { id: 'evaluator', systemId: 'evaluator', src: 'evaluator', input: ({ context }) => ({ clock: context.clock, requests: context.requests }) },
  on: {
    start: { actions: spawnChild('proposer', { id: 'proposer', input: ({ context }) => context.proposer }) },
    'proposal.judged': { actions: [assign({ reports: ({ context, event }) => [...context.reports, event] }), sendTo('proposer', ({ context }) => context.prefetch), sendTo('proposer', { type: 'valset.denied' })] },
    'proposal.finished': { actions: assign({ reports: ({ context, event }) => [...context.reports, event] }) },
  },
});

describe("a proposer told 'rebase.prefetch'", () => {
  it('evaluates both sides of the gate on its examples, and reports its end only once they are paid for', async () => {
    const clock = new SimulatedClock();
    const requests: EvaluatorRequest[] = [];
    const parent: Candidate = { instructions: 'Answer.' };
    const onto: Candidate = { instructions: 'Answer. Be kind.' };
    const child: Candidate = { instructions: 'Answer. Be kind. Mind the units.' };
    const proposer: ProposerInput = {
      id: 'proposer', step: 2, task: 0, parent, parentHash: candidateHash(parent), minibatch: [0, 1, 2], valIds: [3, 4], components: ['instructions'], examples: ['a', 'b', 'c', 'd', 'e'],
      acceptance: 'strict-improvement', skipPerfectScore: true, perfectScore: 1,
      buildDataset: async (_c, results, components) => Object.fromEntries(components.map((c) => [c, results.map((r) => ({ Inputs: r.example, Feedback: r.evaluation.feedback }))])),
    };
    const prefetch: ProposerDecision = { type: 'rebase.prefetch', onto, ontoHash: candidateHash(onto), child, childHash: candidateHash(child), gate: 'where-it-helped' };
    const actor = createActor(prefetchThenDeny, { clock, input: { prefetch, clock, requests, proposer } });
    actor.start();
    actor.send({ type: 'start' });
    clock.increment(10);
    await new Promise<void>((resolve) => setImmediate(resolve));
    clock.increment(100);
    clock.increment(10);
    // Judged (the child solves all three, the parent only id 0), told to prefetch, then denied.
    const gate = requests.slice(3);
    expect(gate).toEqual([
      expect.objectContaining({ type: 'evaluate', requestId: 5, kind: 'child', exampleIds: [1, 2], candidate: child, captureTraces: false }),
      expect.objectContaining({ type: 'evaluate', requestId: 6, kind: 'child', exampleIds: [1, 2], candidate: onto, captureTraces: false }),
    ]);
    expect(actor.getSnapshot().context.reports.map((r) => r.type)).toEqual(['proposal.judged']);
    expect(actor.getSnapshot().children.proposer?.getSnapshot().value).toBe('finished');
    clock.increment(10);
    const reports = actor.getSnapshot().context.reports;
    expect(reports.map((r) => r.type)).toEqual(['proposal.judged', 'proposal.finished']);
    // Parent 3, child 3, and the gate evaluated ahead: 2 x 2.
    expect(reports[1]).toMatchObject({ spend: { paidCalls: 10 } });
  });
});
