// The dispatch timeline of one 2 x 2 step with fixed latencies, computed by hand, and the
// proof that a proposal's child evaluation starts when its own reflection returns.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize } from '../src/index.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { toyExamples, toyTask } from './support/toyTask.js';

describe('a 2 x 2 step on 4 workers', () => {
  it('dispatches exactly the hand-computed timeline', async () => {
    const clock = steppingClock(new SimulatedClock());
    // Reflection takes 100 ms, except for the proposal whose minibatch is the slow example.
    const task = toyTask({ clock, evalMs: () => 10, reflectMs: (p) => (p.includes('slowword') ? 200 : 100) });
    const trainset = toyExamples('t', ['alpha', 'beta', 'gamma', 'slowword']);
    const valset = toyExamples('v', ['alpha', 'beta']);
    const result = await runOnSimulatedClock(
      clock,
      optimize({
        seedCandidate: { instructions: 'Answer.' },
        trainset,
        valset,
        adapter: task.adapter,
        reflectionLm: task.reflectionLm,
        schedule: { kind: 'batched', parents: 2, perParent: 2 },
        workers: 4,
        reflectionMinibatchSize: 1,
        // The seed (2) and one step of 4 proposals at worst 1 + 1 + 2 calls each.
        maxMetricCalls: 18,
        clock,
      }),
    );
    const timeline = task.calls
      .map((c) => `${c.kind === 'reflect' ? 'reflect' : c.label.split('|')[1]?.startsWith('v') ? 'val' : 'train'} ${c.start}-${c.end}`)
      .sort();
    // By hand (finish-first priorities, 4 slots):
    //   0-10    seed on v0, v1
    //   10-20   4 parent evaluations
    //   20-120  3 reflections; 20-220 the slow one (it holds a slot for 200 ms)
    //   120-130 3 child evaluations (they do not wait for the slow reflection)
    //   130-150 6 valset calls of 3 children on the 3 free slots
    //   220-230 the last child; 230-240 its 2 valset calls
    const expected = [
      ...Array(2).fill('val 0-10'),
      ...Array(4).fill('train 10-20'),
      ...Array(3).fill('reflect 20-120'),
      'reflect 20-220',
      ...Array(3).fill('train 120-130'),
      ...Array(3).fill('val 130-140'),
      ...Array(3).fill('val 140-150'),
      'train 220-230',
      ...Array(2).fill('val 230-240'),
    ].sort();
    expect(timeline).toEqual(expected);
    expect(result.elapsedMs).toBe(240);
    expect(result.metricCalls).toBe(18);
    expect(result.candidates[0]).toEqual({ instructions: 'Answer.' });
    // The four children join in task order (the seeded minibatch order), one per keyword.
    expect(result.candidates.slice(1).map((c) => c.instructions).sort()).toEqual([
      'Answer. alpha',
      'Answer. beta',
      'Answer. gamma',
      'Answer. slowword',
    ]);
    expect(result.parents).toEqual([[], [0], [0], [0], [0]]);
    expect(result.stopReason).toBe('maxMetricCalls');
    // Busy slot-ms: 18 calls x 10 + 3 x 100 + 200 = 680 over 4 x 240.
    expect(result.workerUtilization).toBeCloseTo(680 / 960, 10);
  });
});
