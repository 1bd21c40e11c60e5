// A run asks for each reflective proposal's parent evaluation from the optimizer and spawns a
// proposer only when the proposal goes on, so a proposal skipped on a perfect parent costs no
// actor (the runtime's cost, issues 39 and 48): async, and in a batched step. What a user sees must not change: the same run
// events in the same order, the same result, as when every proposal has its proposer (the path
// a replaced proposer takes, which is forced here by providing a copy of the built-in one).
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, toPromise, type CallbackActorLogic } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { PARENT_PERFECT } from '../src/gepa/proposer/proposalSkips.js';
import { optimizerMachine, type OptimizeConfig, type OptimizeResult, type RunEvent } from '../src/index.js';
import { proposerMachine } from '../machines/proposer.machine.js';
import type { ProposerDecision, ProposerInput } from '../machines/protocol.js';

interface Observed {
  result: OptimizeResult;
  /** Run events in arrival order, from both channels (the actor's emitted events and onEvent). */
  events: RunEvent[];
  /** The proposals whose proposer actors the run spawned (their systemIds). */
  proposers: string[];
  /** The most proposers among the optimizer's children at once (a finished one is stopped). */
  mostProposerChildren: number;
}

/** How a run ends besides its metric-call budget: the caller's signal at a time, or a dollar budget (each metric call $0.01, reflections free); and its schedule (async 4 unless given). */
type Ending = { abortAtMs?: number; maxCostUsd?: number; schedule?: OptimizeConfig<unknown>['schedule'] };

async function run(machine: typeof optimizerMachine, ending: Ending = {}): Promise<Observed> {
  const clock = steppingClock(new SimulatedClock());
  const { testset: _heldOut, ...demo } = createDemoTask({ seed: 3, metricCallMs: 20, reflectionMs: 100, clock });
  const priced = {
    evaluate: async (...args: Parameters<typeof demo.adapter.evaluate>) => ({ ...(await demo.adapter.evaluate(...args)), costUsd: 0.01 }),
    estimateMaxCostUsd: () => 0.01,
  };
  // Reflections are free but priced (a dollar budget needs every model's worst case).
  const reflectionLm = Object.assign((...args: Parameters<typeof demo.reflectionLm>) => demo.reflectionLm(...args), { estimateMaxCostUsd: () => 0 });
  const task = ending.maxCostUsd === undefined ? demo : { ...demo, adapter: { ...demo.adapter, ...priced }, reflectionLm };
  const controller = new AbortController();
  if (ending.abortAtMs !== undefined) clock.setTimeout(() => controller.abort(), ending.abortAtMs);
  const events: RunEvent[] = [];
  const proposers: string[] = [];
  let mostProposerChildren = 0;
  const config: OptimizeConfig<unknown> = {
    ...(task as Omit<OptimizeConfig<unknown>, 'maxMetricCalls'>),
    schedule: ending.schedule ?? { kind: 'async', inFlight: 4 },
    workers: 8,
    maxMetricCalls: 900,
    seed: 3,
    clock,
    telemetry: false,
    ...(ending.maxCostUsd === undefined ? {} : { maxCostUsd: ending.maxCostUsd }),
    ...(ending.abortAtMs === undefined ? {} : { signal: controller.signal }),
    // The proposers' fine-grained events come here; the optimizer's through actor.on below.
    onEvent: (event) => events.push(event),
  };
  const actor = createActor(machine, {
    input: config,
    clock,
    inspect: (e) => {
      // A proposer is spawned under a reused actor id with its proposal's id as its systemId
      // (machines/proposerActorIds.ts); '@xstate.actor' comes before the actor sets its systemId.
      const systemId = (e.actorRef as { options?: { systemId?: string } }).options?.systemId ?? '';
      if (e.type === '@xstate.actor' && /^(p\d+-\d+|merge-\d+)$/.test(systemId)) proposers.push(systemId);
      if (e.type === '@xstate.snapshot' && e.actorRef.sessionId === e.rootId) {
        const children = Object.keys((e.snapshot as { children?: Record<string, unknown> }).children ?? {});
        mostProposerChildren = Math.max(mostProposerChildren, children.filter((c) => /^proposer-\d+$/.test(c)).length);
      }
    },
  });
  actor.on('*', (event) => events.push(event as RunEvent));
  const done = toPromise(actor);
  actor.start();
  return { result: await runOnSimulatedClock(clock, done), events, proposers, mostProposerChildren };
}

describe('proposals skipped on their parent need no proposer', () => {
  it('spawns a proposer only for proposals whose parent evaluation said go on', async () => {
    const { result, proposers } = await run(optimizerMachine);
    const perfectParent = result.proposals.filter((p) => p.outcome === 'skipped' && p.reason === PARENT_PERFECT);
    expect(perfectParent.length).toBeGreaterThan(0);
    expect(proposers).toHaveLength(result.proposals.length - perfectParent.length);
    const skippedIds = new Set(perfectParent.map((p) => `p${p.step}-${p.task}`));
    expect(proposers.filter((id) => skippedIds.has(id))).toEqual([]);
  });

  it('stops each proposer as its proposal finishes: never more among the children than proposals in flight', async () => {
    const { proposers, mostProposerChildren } = await run(optimizerMachine);
    expect(proposers.length).toBeGreaterThan(4);
    expect(mostProposerChildren).toBeGreaterThan(0);
    expect(mostProposerChildren).toBeLessThanOrEqual(4);
  });

  // A copy of the built-in proposer counts as a replacement: every proposal gets its actor.
  const copy = proposerMachine.provide({}) as unknown as CallbackActorLogic<ProposerDecision, ProposerInput>;
  const everyProposalMachine = optimizerMachine.provide({ actors: { proposer: copy } }) as typeof optimizerMachine;

  it.each<[string, Ending]>([
    ['to the metric-call budget', {}],
    ["stopped by the caller's signal mid-run", { abortAtMs: 1_500 }],
    ['to a dollar budget that refuses calls', { maxCostUsd: 4 }],
  ])('changes nothing a user sees, run %s: the same events in the same order and the same result as with a proposer for every proposal', async (_, ending) => {
    const parentFirst = await run(optimizerMachine, ending);
    const everyProposal = await run(everyProposalMachine, ending);
    expect(everyProposal.proposers).toHaveLength(everyProposal.result.proposals.length);
    expect(parentFirst.proposers.length).toBeLessThan(everyProposal.proposers.length);
    expect(parentFirst.events).toEqual(everyProposal.events);
    expect(parentFirst.result).toEqual(everyProposal.result);
  });

  it.each<[string, Ending]>([
    ['to the metric-call budget', { schedule: { kind: 'batched', parents: 2, perParent: 2 } }],
    ["stopped by the caller's signal mid-run", { schedule: { kind: 'batched', parents: 2, perParent: 2 }, abortAtMs: 1_500 }],
  ])('batched, run %s: a proposer only for proposals that go on, and the same events in the same order and the same result as with a proposer for every proposal', async (_, ending) => {
    const parentFirst = await run(optimizerMachine, ending);
    const everyProposal = await run(everyProposalMachine, ending);
    const perfectParent = parentFirst.result.proposals.filter((p) => p.outcome === 'skipped' && p.reason === PARENT_PERFECT);
    expect(perfectParent.length).toBeGreaterThan(0);
    // At most (a proposal cut short before its parent's answer has none).
    expect(parentFirst.proposers.length).toBeLessThanOrEqual(parentFirst.result.proposals.length - perfectParent.length);
    expect(everyProposal.proposers).toHaveLength(everyProposal.result.proposals.length);
    expect(parentFirst.events).toEqual(everyProposal.events);
    expect(parentFirst.result).toEqual(everyProposal.result);
  });

  it('the endings above are reached as described', async () => {
    expect((await run(optimizerMachine, { abortAtMs: 1_500 })).result.stopReason).toBe('aborted');
    const dollars = await run(optimizerMachine, { maxCostUsd: 4 });
    expect(dollars.result.stopReason).toBe('maxCostUsd');
    expect(dollars.events.some((e) => e.type === 'error' && /dollar/i.test(e.message))).toBe(true);
  });
});
