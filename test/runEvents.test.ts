// The run reports, as events, everything the reference reports through callbacks, in an order
// that makes sense: each proposal starts before it ends, candidates are announced in index order.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize, type RunEvent } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

describe('run events', () => {
  it('cover the whole vocabulary of a run', async () => {
    const clock = steppingClock(new SimulatedClock());
    const task = toyTask({ clock, evalMs: () => 10, reflectMs: () => 50 });
    const events: RunEvent[] = [];
    const result = await runOnSimulatedClock(
      clock,
      optimize({
        seedCandidate: { instructions: 'Answer.' },
        trainset: toyExamples('t', KEYWORDS.slice(0, 6)),
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        schedule: { kind: 'batched', parents: 2, perParent: 2 },
        maxMetricCalls: 300,
        clock,
        onEvent: (e) => events.push(e),
      }),
    );
    const types = new Set(events.map((e) => e.type));
    for (const type of [
      'run.started',
      'step.started',
      'candidate.selected',
      'minibatch.sampled',
      'proposal.started',
      'evaluation.started',
      'evaluation.ended',
      'evaluation.skipped',
      'proposal.ended',
      'candidate.accepted',
      'candidate.rejected',
      'front.updated',
      'budget.updated',
      'run.ended',
    ]) {
      expect(types, type).toContain(type);
    }
    expect(events[0]?.type).toBe('run.started');
    expect(events.at(-1)).toEqual({ type: 'run.ended', stopReason: result.stopReason });
    const accepted = events.filter((e) => e.type === 'candidate.accepted').map((e) => (e as { index: number }).index);
    expect(accepted).toEqual(result.candidates.slice(1).map((_, i) => i + 1));
    const ended = events.filter((e) => e.type === 'proposal.ended');
    expect(ended).toHaveLength(result.proposals.length);
    const started = events.filter((e) => e.type === 'proposal.started');
    expect(started).toHaveLength(result.proposals.length);
    const lastBudget = events.filter((e) => e.type === 'budget.updated').at(-1) as { metricCalls: number };
    expect(lastBudget.metricCalls).toBe(result.metricCalls);
  });
});
