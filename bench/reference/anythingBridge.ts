// The optimize_anything bridge: gepa 0.1.4's gepa.optimize_anything (gepaAnythingBridge.py) run on
// an optimizeAnything bench task (bench/anythingTasks.ts) with the task's own evaluator and
// simulated reflection model, the same budget and seeds as our runs. gepa decides everything else
// (its mode, its reflection prompt around the objective and background, its minibatch size).
// The run's wall-clock is simulated: each call's latency is what the task would sleep, recorded
// by a clock that does not wait; gepa's batches are marked, and a batch is charged the makespan
// of its calls on as many threads as our runs have worker slots (gepa's thread pool,
// parallel=True, max_workers = W), reflections one after another as gepa makes them.
import type { Clock } from '../../src/clock.js';
import { lineageDepth } from '../benchTask.js';
import { anythingBenchTask, ANYTHING_WORKERS, heldOutScore } from '../anythingTasks.js';
import { runPythonBridge } from './pythonBridge.js';
import { SHAPES } from './bridge.js';

export interface AnythingRun {
  seed: number;
  metricCalls: number;
  bestValScore: number;
  /** The best candidate's mean on the held-out testset (generalization only). */
  testScore?: number;
  /** The best among candidates whose valset score was paid for within the budget (gepa may overshoot). */
  withinBudget: { bestValScore: number; testScore?: number };
  candidates: number;
  bestLineageDepth: number;
  /** Simulated wall-clock, ms. */
  wallClockMs: number;
  reflectionCalls: number;
}

interface Result {
  candidates: string[];
  parents: number[][];
  valScores: number[];
  bestIndex: number;
  metricCalls: number;
  discoveryMetricCalls: number[];
}

type Ref = { split: 'train' | 'val'; i: number };

/** A clock whose timers fire at once; it adds up what it was asked to wait. */
function recordingClock(): Clock & { take(): number } {
  let waited = 0;
  return {
    now: () => 0,
    setTimeout(fn, ms) {
      waited += ms;
      return setImmediate(fn);
    },
    clearTimeout: (id) => clearImmediate(id as ReturnType<typeof setImmediate>),
    take() {
      const t = waited;
      waited = 0;
      return t;
    },
  };
}

/** When the last of `durations` ends, each started in order on the first of `slots` free. */
export function makespan(durations: readonly number[], slots: number): number {
  const free = Array<number>(Math.min(slots, durations.length)).fill(0);
  for (const d of durations) {
    const i = free.indexOf(Math.min(...free));
    free[i] = (free[i] as number) + d;
  }
  return free.length === 0 ? 0 : Math.max(...free);
}

export async function referenceAnythingRun(taskName: string, shapeName: string, seed: number): Promise<AnythingRun> {
  const bench = anythingBenchTask(taskName);
  const shape = SHAPES[shapeName];
  if (!shape) throw new Error(`unknown shape '${shapeName}' (known: ${Object.keys(SHAPES).join(', ')})`);
  const clock = recordingClock();
  const task = bench.create({ seed, ...bench.sizes, ...bench.latency, clock });
  const signal = new AbortController().signal;
  const splits = { train: task.dataset ?? [], val: task.valset ?? [] };
  let calls = 0;
  let reflections = 0;
  let wallClockMs = 0;
  let batch: number[] = [];
  const endBatch = () => {
    wallClockMs += makespan(batch, ANYTHING_WORKERS);
    batch = [];
  };
  let result: Result | undefined;
  await runPythonBridge('gepaAnythingBridge.py', async (request) => {
    switch (request.op) {
      case 'setup':
        return {
          seedCandidate: task.seedCandidate,
          dataset: task.dataset?.map((_, i) => ({ split: 'train', i })),
          valset: task.valset?.map((_, i) => ({ split: 'val', i })),
          objective: task.objective,
          background: task.background,
          maxMetricCalls: bench.budget,
          shape,
          seed,
        };
      case 'batch':
        endBatch();
        return { ok: true };
      case 'evaluate': {
        const ref = request.example as Ref | null;
        const example = ref === null ? undefined : splits[ref.split][ref.i];
        const evaluation = await task.evaluate(request.candidate as string, example, { signal });
        calls++;
        batch.push(clock.take());
        return evaluation;
      }
      case 'reflect': {
        const reply = await task.reflectionLm(request.prompt as string, { signal });
        reflections++;
        endBatch();
        wallClockMs += clock.take();
        return { text: typeof reply === 'string' ? reply : reply.text };
      }
      case 'result':
        result = request as unknown as Result;
        return { ok: true };
      default:
        throw new Error(`unknown request '${request.op}'`);
    }
  });
  if (!result) throw new Error('the optimize_anything bridge ended without a result');
  if (result.metricCalls !== calls) throw new Error(`gepa counted ${result.metricCalls} metric calls, the bridge served ${calls}`);
  endBatch();
  const r = result;
  const valSize = task.valset?.length ?? task.dataset?.length ?? 1;
  const knownBy = (i: number) => (i === 0 ? 0 : r.discoveryMetricCalls[i] ?? Infinity) + valSize;
  const within = r.valScores.map((s, i) => (knownBy(i) <= bench.budget ? s : -Infinity));
  const bestWithin = within.indexOf(Math.max(...within));
  return {
    seed,
    metricCalls: r.metricCalls,
    bestValScore: r.valScores[r.bestIndex] as number,
    testScore: await heldOutScore(bench, seed, r.candidates[r.bestIndex] as string),
    withinBudget: { bestValScore: r.valScores[bestWithin] as number, testScore: await heldOutScore(bench, seed, r.candidates[bestWithin] as string) },
    candidates: r.candidates.length,
    bestLineageDepth: lineageDepth(r.parents, r.bestIndex),
    wallClockMs,
    reflectionCalls: reflections,
  };
}
