// The built-in two-stage benchmark task: multi-step word problems solved by a planner prompt
// (which quantities, in what order) and an answer prompt (compute and format), evaluated together
// in one metric call with partial credit; plus a simulated reflection LM. A different shape from
// the demo: two components, rules that only pay off once another is in place, clashing rules,
// clutter past ~8 sentences. Everything (data, answers, proposals, latencies) is a function of the seed.
import { systemClock } from '../../clock.js';
import type { Adapter, Candidate } from '../../gepa/core/adapter.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import type { DemoTaskOptions } from '../demoTask.js';
import { generateMultistepDataset, type MultistepExample } from './multistepDataset.js';
import { createTwoStageModel } from './twoStageModel.js';
import { createTwoStageReflectionModel } from './twoStageReflection.js';

export type { MultistepExample } from './multistepDataset.js';

export interface MultistepTask {
  seedCandidate: Candidate;
  trainset: MultistepExample[];
  valset: MultistepExample[];
  testset: MultistepExample[];
  adapter: Adapter<MultistepExample>;
  reflectionLm: LanguageModel;
}

export const MULTISTEP_SEED_CANDIDATE: Readonly<Candidate> = {
  planner: 'Work out the steps needed to solve the problem.',
  answer: 'Compute the final answer from the plan.',
};

export function createMultistepTask(options: DemoTaskOptions = {}): MultistepTask {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const jitter = options.jitter ?? [0.5, 1.5];
  const clock = options.clock ?? systemClock;
  const { trainset, valset, testset } = generateMultistepDataset(seed, {
    trainSize: options.trainSize ?? 60,
    valSize: options.valSize ?? 30,
    testSize: options.testSize ?? 60,
  });
  return {
    seedCandidate: { ...MULTISTEP_SEED_CANDIDATE },
    trainset,
    valset,
    testset,
    adapter: createTwoStageModel({ seed, meanMs: options.metricCallMs ?? 0, jitter, clock }),
    reflectionLm: createTwoStageReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter, clock }),
  };
}
