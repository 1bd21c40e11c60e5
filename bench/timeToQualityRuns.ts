// The time-to-quality bench's settings and stored runs (issue 47): the slot counts and budgets it
// measures, the fixed schedules a user would try at each, the workload (metric call ~20 ms,
// reflection ~100 ms, each x U(0.5, 1.5); valset 30, trainset 60, testset 60; today's defaults
// otherwise), and one JSON file of per-seed figures per (task, configuration, schedule) under
// bench/results/time-to-quality/ (time-to-quality-real/ for real time).
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { benchRun, type BenchSetting, type Workload } from './benchTask.js';
import { bestSoFarSteps } from './bestSoFar.js';
import type { Schedule } from '../src/settingValues.js';

/** A measured configuration: worker slots and metric-call budget. */
export interface Configuration {
  slots: number;
  budget: number;
}

export const CONFIGURATIONS: readonly Configuration[] = [
  { slots: 16, budget: 1500 },
  { slots: 128, budget: 1500 },
  { slots: 512, budget: 1500 },
  { slots: 512, budget: 5000 },
];

export const configName = (c: Configuration): string => `w${c.slots}-b${c.budget}`;

export function parseConfiguration(name: string): Configuration {
  const m = /^w(\d+)-b(\d+)$/.exec(name);
  if (!m) throw new Error(`a configuration is w<slots>-b<budget>, e.g. w128-b1500; got '${name}'`);
  return { slots: Number(m[1]), budget: Number(m[2]) };
}

/** The bench tasks measured (spam runs a real model in real time and is left out). */
export const TTQ_TASKS = ['demo', 'multistep', 'hotel', 'bookkeeping'] as const;

export const SEQUENTIAL = 'sequential';

/** Schedule 'auto': measured beside the fixed schedules, never counted among them. */
export const AUTO = 'auto';

/** Every fixed schedule, and 'auto' last, by label; `minSlots`: measured only with at least that many slots (async K needs K <= W). */
export const FIXED_SCHEDULES: ReadonlyArray<{ label: string; schedule: Schedule; minSlots?: number; about: string }> = [
  { label: SEQUENTIAL, schedule: { kind: 'batched', parents: 1, perParent: 1 }, about: 'classic GEPA, one proposal at a time (batched 1 x 1)' },
  { label: '2x2', schedule: { kind: 'batched', parents: 2, perParent: 2 }, about: 'the paper, 2 parents x 2' },
  { label: '4x4', schedule: { kind: 'batched', parents: 4, perParent: 4 }, about: 'the paper, 4 parents x 4' },
  { label: '8x2', schedule: { kind: 'batched', parents: 8, perParent: 2 }, about: 'the paper, 8 parents x 2' },
  { label: '8x8', schedule: { kind: 'batched', parents: 8, perParent: 8 }, about: 'the paper, 8 parents x 8' },
  { label: 'async 4', schedule: { kind: 'async', inFlight: 4 }, about: 'async, 4 in flight, defaults' },
  { label: 'async 8', schedule: { kind: 'async', inFlight: 8 }, about: 'async, 8 in flight, defaults' },
  { label: 'async 16', schedule: { kind: 'async', inFlight: 16 }, about: 'async, 16 in flight, defaults' },
  { label: 'async 32', schedule: { kind: 'async', inFlight: 32 }, minSlots: 32, about: 'async, 32 in flight, defaults' },
  { label: 'async 64', schedule: { kind: 'async', inFlight: 64 }, minSlots: 64, about: 'async, 64 in flight, defaults' },
  { label: 'async 128', schedule: { kind: 'async', inFlight: 128 }, minSlots: 256, about: 'async, 128 in flight, defaults' },
  {
    label: 'async 16 fast',
    schedule: { kind: 'async', inFlight: 16, speculate: 'rebase-gate', heldSlot: 'free-early' },
    about: "async 16 with the launch order's fast options (speculate 'rebase-gate', heldSlot 'free-early')",
  },
  {
    label: 'async 32 fast',
    schedule: { kind: 'async', inFlight: 32, speculate: 'rebase-gate', heldSlot: 'free-early' },
    minSlots: 32,
    about: "async 32 with the launch order's fast options (speculate 'rebase-gate', heldSlot 'free-early')",
  },
  { label: AUTO, schedule: { kind: 'auto' }, about: "schedule 'auto': the runtime chooses and adapts the shape (src/runtimeModel/autoSchedule.ts)" },
];

export function schedulesFor(c: Configuration): typeof FIXED_SCHEDULES {
  return FIXED_SCHEDULES.filter((s) => (s.minSlots ?? 0) <= c.slots);
}

export function workloadFor(c: Configuration, task: string, real: boolean): Workload {
  return { metricCallMs: 20, reflectionMs: 100, workers: c.slots, budget: c.budget, trainSize: 60, valSize: 30, testSize: 60, simulated: !real, task };
}

/** What is stored of one run. */
export interface StoredRun {
  seed: number;
  wallClockMs: number;
  metricCalls: number;
  bestValScore: number;
  testScore: number;
  utilization: number;
  /** Generations from the seed to the best candidate. */
  depth: number;
  proposals: number;
  candidates: number;
  /** Best-so-far steps [ms, score]. */
  steps: Array<[number, number]>;
}

export interface StoredSetting {
  label: string;
  about: string;
  schedule: Schedule;
  task: string;
  configuration: Configuration;
  workload: Workload;
  runs: StoredRun[];
}

export const resultsDir = (real: boolean, folder = 'time-to-quality'): URL => new URL(`./results/${folder}${real ? '-real' : ''}/`, import.meta.url);
const fileOf = (real: boolean, task: string, c: Configuration, label: string, folder?: string) => new URL(`${task}/${configName(c)}/${label.replace(/[^A-Za-z0-9.-]/g, '_')}.json`, resultsDir(real, folder));

export function loadSetting(real: boolean, task: string, c: Configuration, label: string, folder?: string): StoredSetting | undefined {
  const file = fileOf(real, task, c, label, folder);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoredSetting) : undefined;
}

/** Runs one setting on the seeds it does not have yet, storing after each seed (so a stopped run resumes). */
export async function runSetting(
  setting: { label: string; schedule: Schedule; about: string; options?: BenchSetting['options']; wrapReflection?: BenchSetting['wrapReflection'] },
  task: string,
  c: Configuration,
  seeds: readonly number[],
  real: boolean,
  log: (line: string) => void,
  folder?: string,
): Promise<StoredSetting> {
  const workload = workloadFor(c, task, real);
  const stored = loadSetting(real, task, c, setting.label, folder) ?? { label: setting.label, about: setting.about, schedule: setting.schedule, task, configuration: c, workload, runs: [] };
  if (JSON.stringify(stored.schedule) !== JSON.stringify(setting.schedule)) {
    throw new Error(`${fileOf(real, task, c, setting.label, folder).pathname} holds runs of another schedule (${JSON.stringify(stored.schedule)}): remove it to rerun '${setting.label}'`);
  }
  const file = fileOf(real, task, c, setting.label, folder);
  mkdirSync(new URL('.', file), { recursive: true });
  for (const seed of seeds) {
    if (stored.runs.some((r) => r.seed === seed)) continue;
    const r = await benchRun({ label: setting.label, schedule: setting.schedule, ...(setting.options ? { options: setting.options } : {}), ...(setting.wrapReflection ? { wrapReflection: setting.wrapReflection } : {}) }, seed, workload);
    stored.runs.push({
      seed,
      wallClockMs: r.wallClockMs,
      metricCalls: r.metricCalls,
      bestValScore: r.bestValScore,
      testScore: r.testScore,
      utilization: r.utilization,
      depth: r.bestLineageDepth,
      proposals: r.proposals.length,
      candidates: r.candidates,
      steps: bestSoFarSteps(r.discoveries).map(([t, s]) => [Number(t.toFixed(3)), s]),
    });
    stored.runs.sort((a, b) => a.seed - b.seed);
    writeFileSync(file, `${JSON.stringify(stored)}\n`);
    log(`  ${task} ${configName(c)} ${setting.label} seed ${seed}: best ${r.bestValScore.toFixed(3)} test ${r.testScore.toFixed(3)} wall ${(r.wallClockMs / 1000).toFixed(2)} s`);
  }
  return stored;
}
