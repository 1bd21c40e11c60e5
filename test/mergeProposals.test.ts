// Merge proposals in the runtime: two lineages that improved different components are combined
// by a merge proposer, scored on the merge subsample, and joined to the pool with two parents.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { mergeExamples, mergeTask } from './support/mergeTask.js';

describe('merge proposals', () => {
  it('combine two lineages that changed different components', async () => {
    const clock = steppingClock(new SimulatedClock());
    const { adapter, reflectionLm } = mergeTask(clock);
    const events: string[] = [];
    const result = await runOnSimulatedClock(
      clock,
      optimize({
        seedCandidate: { content: 'Say:', format: 'Use:' },
        trainset: mergeExamples,
        adapter,
        reflectionLm,
        maxMetricCalls: 400,
        // Two mutations of one parent per step: round-robin gives them different components, so
        // siblings improve different things and both stay on the front.
        schedule: { kind: 'batched', parents: 1, perParent: 2 },
        merge: { maxMerges: 3 },
        seed: 1,
        clock,
        onEvent: (e) => {
          if (e.type === 'candidate.accepted' && e.parents.length === 2) events.push(`merged ${e.parents.join('+')} -> ${e.index}`);
        },
      }),
    );
    const merges = result.proposals.filter((p) => p.kind === 'merge');
    expect(merges.length).toBeGreaterThan(0);
    const accepted = merges.filter((p) => p.outcome === 'accepted');
    expect(accepted.length).toBeGreaterThan(0);
    for (const m of accepted) {
      const child = result.candidates[m.candidateIndex as number];
      const [a, b] = m.parents.map((i) => result.candidates[i]);
      // Each component comes from one of the two parents.
      for (const name of ['content', 'format'] as const) expect([a?.[name], b?.[name]]).toContain(child?.[name]);
      expect(result.parents[m.candidateIndex as number]).toEqual(m.parents);
    }
    expect(events.length).toBe(accepted.length);
    expect(result.metricCalls).toBeLessThanOrEqual(400);
  });
});
