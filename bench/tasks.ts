// The benchmark tasks by name. Every bench part runs any of them (`--task <name>`): a
// conclusion about a schedule or a mechanism must hold on more than one task's shape.
import { createDemoTask, type DemoTaskOptions } from '../src/demo/demoTask.js';
import { createHotelTask } from '../src/demo/hotel/hotelTask.js';
import { createBookkeepingTask } from '../src/demo/bookkeeping/bookkeepingTask.js';
import { createMultistepTask } from '../src/demo/multistep/multistepTask.js';
import type { Adapter, Candidate } from '../src/gepa/core/adapter.js';
import type { LanguageModel } from '../src/gepa/core/languageModel.js';
import { createSpamBenchTask, SPAM_WORKLOAD } from './spamTask.js';

/** What a bench run needs of a task: the run's inputs and a held-out testset. */
export interface BenchTask {
  seedCandidate: Candidate;
  trainset: unknown[];
  valset: unknown[];
  testset: unknown[];
  adapter: Adapter<unknown>;
  reflectionLm: LanguageModel;
}

export type BenchTaskFactory = (options: DemoTaskOptions) => BenchTask;

export const BENCH_TASKS: Record<string, BenchTaskFactory> = {
  demo: (options) => createDemoTask(options) as unknown as BenchTask,
  /** Two components (planner, answer), rules that build on each other or clash, partial credit. */
  multistep: (options) => createMultistepTask(options) as unknown as BenchTask,
  /** One prompt that must accumulate many independent facts (two a message, some far more asked about), and pays for listing too many. */
  hotel: (options) => createHotelTask(options) as unknown as BenchTask,
  /** Invoices that each need four of 24 house rules; its reflection fixes more rules the more failure kinds it is shown (up to four), and takes longer the longer its prompt. */
  bookkeeping: (options) => createBookkeepingTask(options) as unknown as BenchTask,
  /** Spam or ham on the SpamAssassin corpus with Gemma 3 270M run locally (bench/spamTask.ts; real time). */
  spam: (options) => createSpamBenchTask(options),
};

/** A task whose calls cost real seconds brings its own budget and sizes (bench/reference.ts uses them). */
export const TASK_WORKLOADS: Record<string, { budget: number; trainSize: number; valSize: number; testSize: number }> = {
  spam: { budget: SPAM_WORKLOAD.budget, ...SPAM_WORKLOAD.sizes },
};

export function benchTask(name: string): BenchTaskFactory {
  const factory = BENCH_TASKS[name];
  if (!factory) throw new Error(`unknown task '${name}' (known: ${Object.keys(BENCH_TASKS).join(', ')})`);
  return factory;
}
