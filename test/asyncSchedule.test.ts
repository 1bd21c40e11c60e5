// The async schedule's invariants, in simulated time: K proposals in flight whenever the budget
// can pay for another, the metric-call budget exact, and every proposal ending accepted,
// rejected or skipped with a reason; its staleness is recorded.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize, type RunEvent } from '../src/index.js';
import { DEFAULT_REBASE } from '../src/config/runSettings.js';
import type { Schedule, ValsetPolicy } from '../src/settingValues.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { test } from './support/toyRun.js';
import { toyExamples, toyTask } from './support/toyTask.js';

describe('async schedule', () => {
  const variants: Array<{ inFlight: number; mechanisms?: Pick<Extract<Schedule, { kind: 'async' }>, 'rebase' | 'parentWeighting'>; valsetPolicy?: ValsetPolicy }> = [
    { inFlight: 1 },
    { inFlight: 4 },
    { inFlight: 8 },
    { inFlight: 8, mechanisms: { rebase: 'off' } },
    { inFlight: 8, mechanisms: { rebase: 'best', parentWeighting: 'in-flight' }, valsetPolicy: { kind: 'race', chunk: 2, margin: 0 } },
  ];
  for (const { inFlight, mechanisms = {}, valsetPolicy = 'full' } of variants) {
    const named = Object.keys(mechanisms).length === 0 ? '' : ` (${JSON.stringify(mechanisms)}, valset ${JSON.stringify(valsetPolicy)})`;
    test(`keeps ${inFlight} in flight while the budget lasts, and spends it exactly${named}`, async ({ toyRun }) => {
      const clock = steppingClock(new SimulatedClock());
      const rebasing = (mechanisms.rebase ?? DEFAULT_REBASE) !== 'off';
      const perProposal = 2 * 3 + 6;
      const maxMetricCalls = 400;
      // In flight after each instant's events, with the budget left at that moment.
      let running = 0;
      let spent = 0;
      let reserved = 0;
      const samples: Array<{ at: number; running: number; room: number }> = [];
      const onEvent = (e: RunEvent) => {
        if (e.type === 'proposal.started') running++;
        if (e.type === 'proposal.ended') running--;
        if (e.type === 'budget.updated') [spent, reserved] = [e.metricCalls, e.reserved];
        const last = samples.at(-1);
        const sample = { at: clock.now(), running, room: maxMetricCalls - spent - reserved };
        if (last && last.at === sample.at) samples[samples.length - 1] = sample;
        else samples.push(sample);
      };
      const { result, task } = await toyRun({
        clock,
        evalMs: [5, 30],
        reflectMs: [40, 120],
        failureRate: 0.05,
        failureSalt: 'x',
        schedule: { kind: 'async', inFlight, ...mechanisms },
        valsetPolicy,
        workers: 6,
        maxMetricCalls,
        // Spending the budget exactly is the point: a perfect best must not end the run first.
        skipPerfectScore: false,
        onEvent,
      });
      expect(task.evaluateCalls).toBeLessThanOrEqual(maxMetricCalls);
      expect(result.metricCalls).toBe(task.evaluateCalls);
      expect(maxMetricCalls - result.metricCalls).toBeLessThan(perProposal);
      expect(Math.max(...samples.map((s) => s.running))).toBe(inFlight);
      // Whenever fewer than K were in flight at the end of an instant, the budget could not pay
      // for another proposal (or the run was over).
      for (const s of samples.slice(1, -1)) {
        if (s.running < inFlight) expect(s.room, `at ${s.at} ms`).toBeLessThan(perProposal);
      }
      for (const p of result.proposals) {
        expect(['accepted', 'rejected', 'skipped']).toContain(p.outcome);
        expect(p.reason.length).toBeGreaterThan(0);
        expect(p.staleness).toBeGreaterThanOrEqual(0);
      }
      expect(result.proposals.filter((p) => p.outcome === 'accepted')).toHaveLength(result.candidates.length - 1);
      if (inFlight === 1) expect(result.proposals.every((p) => p.staleness === 0)).toBe(true);
      if (inFlight === 8) expect(result.proposals.some((p) => p.staleness > 0)).toBe(true);
      // Rebasing did act: some stale child was replayed onto a newer candidate.
      if (rebasing && inFlight === 8) expect(result.proposals.some((p) => p.rebasedFrom !== undefined)).toBe(true);
    });
  }

  it('adds a candidate to the pool the moment its valset evaluation lands', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10, reflectMs: (p) => (p.includes('slowword') ? 500 : 100) });
    const accepted: Array<{ at: number; index: number }> = [];
    const result = await runOnSimulatedClock(
      clock,
      optimize({
        seedCandidate: { instructions: 'Answer.' },
        trainset: toyExamples('t', ['alpha', 'slowword', 'beta', 'gamma']),
        valset: toyExamples('v', ['alpha', 'beta']),
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        schedule: { kind: 'async', inFlight: 2 },
        workers: 8,
        reflectionMinibatchSize: 1,
        maxMetricCalls: 2 + 2 * 4,
        clock,
        onEvent: (e) => {
          if (e.type === 'candidate.accepted') accepted.push({ at: clock.now(), index: e.index });
        },
      }),
    );
    // Seed 0-10; two proposals start at 10: parents 10-20, reflections 20-120 and 20-520.
    // The fast one's child is judged 120-130 and valset-evaluated 130-140: it joins at 140,
    // while the slow one is still reflecting (a batched step would wait until 540).
    expect(accepted[0]).toEqual({ at: 140, index: 1 });
    expect(result.candidates.length).toBeGreaterThanOrEqual(2);
  });
});
