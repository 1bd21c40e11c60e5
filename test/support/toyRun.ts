// The shared fixture of the runtime tests: optimize() on the toy task in simulated time, with
// latencies (and optionally failures) drawn from a hash of each call, so that a salt reshuffles
// which call finishes first without changing what any call returns. Tests take it through
// `test` (vitest's it.extend) and set only the knobs their behaviour depends on.
import { it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { optimize, type OptimizeConfig, type OptimizeResult } from '../../src/index.js';
import { runOnSimulatedClock, steppingClock, type SteppingClock } from '../../src/clock.js';
import { hashUnit, KEYWORDS, toyExamples, toyTask, type ToyExample } from './toyTask.js';

export interface ToyRunOptions extends Partial<Omit<OptimizeConfig<ToyExample>, 'clock'>> {
  /** The run's clock, when the test reads it while the run goes on (default a new one). */
  clock?: SteppingClock;
  /** Valset keywords (default the first 6). */
  valsetSize?: number;
  /** Reshuffles every latency (and, with failures, which calls fail when failureSalt is absent). */
  latencySalt?: string;
  /** Metric call latency base + spread * hash, ms. */
  evalMs?: [number, number];
  /** Reflection latency base + spread * hash, ms. */
  reflectMs?: [number, number];
  /** Share of (candidate, example) pairs whose metric call throws. */
  failureRate?: number;
  failureSalt?: string;
}

export interface ToyRun {
  result: OptimizeResult;
  task: ReturnType<typeof toyTask>;
  clock: SteppingClock;
  valset: ToyExample[];
}

const salted = (salt: string | undefined, ...parts: string[]) => (salt ? [salt, ...parts] : parts).join('|');

/** The toy run's config (not yet run), its task, clock and valset. */
export function toyRunConfig(options: ToyRunOptions = {}): Omit<ToyRun, 'result'> & { config: OptimizeConfig<ToyExample> } {
  const { valsetSize = 6, latencySalt, evalMs = [1, 50], reflectMs = [20, 200], failureRate, failureSalt, clock = steppingClock(new SimulatedClock()), ...config } = options;
  const task = toyTask({
    clock,
    evalMs: (c, e) => evalMs[0] + Math.floor(evalMs[1] * hashUnit(salted(latencySalt, c.instructions ?? '', e.id))),
    reflectMs: (p) => reflectMs[0] + Math.floor(reflectMs[1] * hashUnit(salted(latencySalt, p))),
    ...(failureRate ? { throwsOn: (c, e) => hashUnit(salted(failureSalt, c.instructions ?? '', e.id)) < failureRate } : {}),
  });
  const valset = toyExamples('v', KEYWORDS.slice(0, valsetSize));
  return {
    config: {
      seedCandidate: { instructions: 'Answer.' },
      trainset: toyExamples('t', KEYWORDS),
      valset,
      adapter: task.adapter,
      reflectionLm: task.reflectionLm,
      maxMetricCalls: 300,
      clock,
      ...config,
    },
    task,
    clock,
    valset,
  };
}

export async function toyRun(options: ToyRunOptions = {}): Promise<ToyRun> {
  const { config, task, clock, valset } = toyRunConfig(options);
  const result = await runOnSimulatedClock(clock, optimize(config));
  return { result, task, clock, valset };
}

export const test = it.extend<{ toyRun: typeof toyRun }>({
  // eslint-disable-next-line no-empty-pattern
  toyRun: async ({}, use) => {
    await use(toyRun);
  },
});
