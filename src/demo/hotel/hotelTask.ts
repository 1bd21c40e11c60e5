// The built-in hotel front-desk bench task: guest messages that each ask about two of sixteen
// independent facts (a few asked about far more often than the rest), answered by a simulated
// model under one system prompt, graded half a point per fact given right minus a penalty per
// fact brought up unasked; plus a simulated reflection LM. The prompt has to accumulate many
// facts one at a time, and listing every one costs score. A function of the seed throughout.
import { systemClock } from '../../clock.js';
import type { Adapter, Candidate } from '../../gepa/core/adapter.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import type { DemoTaskOptions } from '../demoTask.js';
import { createFrontDeskModel, HOTEL_COMPONENT } from './frontDeskModel.js';
import { createFrontDeskReflectionModel } from './frontDeskReflection.js';
import { generateHotelDataset, type HotelExample } from './hotelDataset.js';

export type { HotelExample } from './hotelDataset.js';

export interface HotelTask {
  seedCandidate: Candidate;
  trainset: HotelExample[];
  valset: HotelExample[];
  testset: HotelExample[];
  adapter: Adapter<HotelExample>;
  reflectionLm: LanguageModel;
}

export const HOTEL_SEED_CANDIDATE: Readonly<Candidate> = {
  [HOTEL_COMPONENT]: "You are the front desk assistant of the Linden Hotel. Answer the guest's message.",
};

export function createHotelTask(options: DemoTaskOptions = {}): HotelTask {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const jitter = options.jitter ?? [0.5, 1.5];
  const clock = options.clock ?? systemClock;
  const { trainset, valset, testset } = generateHotelDataset(seed, {
    trainSize: options.trainSize ?? 60,
    valSize: options.valSize ?? 30,
    testSize: options.testSize ?? 60,
  });
  return {
    seedCandidate: { ...HOTEL_SEED_CANDIDATE },
    trainset,
    valset,
    testset,
    adapter: createFrontDeskModel({ seed, meanMs: options.metricCallMs ?? 0, jitter, clock }),
    reflectionLm: createFrontDeskReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter, clock }),
  };
}
