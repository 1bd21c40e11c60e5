// The built-in offline demo task: support tickets of an online shop answered by a simulated task
// model whose accuracy depends on the conventions its system prompt states, plus a simulated
// reflection LM. Everything (data, answers, proposals, latencies) is a function of the seed.
// Room demo/: imported by the command and the entries ('gepa-actors/demo'), never by the library's run path.
import { systemClock } from '../clock.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { Clock } from '../clock.js';
import type { LanguageModel } from '../gepa/core/languageModel.js';
import { generateDemoDataset, type DemoExample } from './demoDataset.js';
import { createDemoReflectionModel } from './demoReflectionModel.js';
import { createDemoTaskModel } from './demoTaskModel.js';

export type { DemoExample } from './demoDataset.js';

/** Options of createDemoTask. */
export interface DemoTaskOptions {
  /** Default 0; the whole task (dataset and model behaviour) is a function of it. */
  seed?: number;
  /** Default 60. */
  trainSize?: number;
  /** Default 30. */
  valSize?: number;
  /** Default 60. */
  testSize?: number;
  /** Mean simulated latency of one task-model call; default 0 = no sleep at all. */
  metricCallMs?: number;
  /** Mean simulated latency of one reflection call; default 0. */
  reflectionMs?: number;
  /** Latency multiplier range, default [0.5, 1.5]. */
  jitter?: [number, number];
  /** Where latencies are scheduled; default systemClock. */
  clock?: Clock;
}

/** The demo task: spread it into optimize()'s config (`{ ...task, maxMetricCalls }`). */
export interface DemoTask {
  /** `{ system_prompt: DEMO_SEED_PROMPT }`. */
  seedCandidate: Candidate;
  /** The tickets proposals reflect on. */
  trainset: DemoExample[];
  /** The tickets candidates are scored on. */
  valset: DemoExample[];
  /** Held out: for scoring the best candidate after the run. */
  testset: DemoExample[];
  /** A simulated task model answering tickets, graded exactly. */
  adapter: Adapter<DemoExample>;
  /** A simulated reflection model that proposes the shop's conventions from the feedback. */
  reflectionLm: LanguageModel;
}

/** The demo's seed prompt: it knows none of the shop's conventions. */
export const DEMO_SEED_PROMPT = "You are a helpful assistant for an online shop. Answer the customer's question.";

/**
 * The offline demo task (the CLI's `demo`): support tickets of an online shop, a seed prompt that
 * knows none of its conventions, and simulated task and reflection models; no network, no key.
 * The whole task is a function of `options.seed`.
 */
export function createDemoTask(options: DemoTaskOptions = {}): DemoTask {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const jitter = options.jitter ?? [0.5, 1.5];
  const clock = options.clock ?? systemClock;
  const { trainset, valset, testset } = generateDemoDataset(seed, {
    trainSize: options.trainSize ?? 60,
    valSize: options.valSize ?? 30,
    testSize: options.testSize ?? 60,
  });
  return {
    seedCandidate: { system_prompt: DEMO_SEED_PROMPT },
    trainset,
    valset,
    testset,
    adapter: createDemoTaskModel({ seed, meanMs: options.metricCallMs ?? 0, jitter, clock }),
    reflectionLm: createDemoReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter, clock }),
  };
}
