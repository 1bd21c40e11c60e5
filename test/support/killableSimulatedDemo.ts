// The demo task on a simulated clock, killed at a chosen instant: an abort at `abortAtMs` of
// simulated time stops the run at once, as kill -9 would, with the calls in flight lost. The
// resume tests build their run on it and resume in the same run directory.
import { SimulatedClock } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../../src/clock.js';
import { createDemoTask } from '../../src/demo/demoTask.js';

/** The clock, the demo task of `taskSeed` (metric calls 20 ms, reflections 80 ms), the kill's signal, and `run` to drive a run on the clock. */
export function killableSimulatedDemo(taskSeed: number, abortAtMs: number | undefined) {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: taskSeed, metricCallMs: 20, reflectionMs: 80, clock });
  const abort = new AbortController();
  if (abortAtMs !== undefined) clock.setTimeout(() => abort.abort(new Error('killed')), abortAtMs);
  return { clock, task, signal: abort.signal, run: <T>(work: Promise<T>) => runOnSimulatedClock(clock, work) };
}
