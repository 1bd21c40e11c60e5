// The built-in bookkeeping bench task, where a reflection can fix more than one thing when it sees
// more failures: supplier invoices that each need four of 24 independent house rules (a few
// needed by most invoices, many by few), booked by a simulated model under one system prompt and
// graded by the share of the invoice's rules the entry follows, the grader naming each rule it
// broke; plus a simulated reflection LM whose fixes per edit grow with the square root of the
// failure kinds its prompt shows (at most four), whose fixes come out generic once a prompt holds
// too many examples, and whose latency grows with the prompt's tokens (bookkeepingReflection.ts says
// what each of these rests on). It sits beside the demo, multistep and hotel tasks, whose
// reflections fix about one thing whatever they are shown. A function of the seed throughout.
import { systemClock } from '../../clock.js';
import type { Adapter, Candidate } from '../../gepa/core/adapter.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import type { DemoTaskOptions } from '../demoTask.js';
import { createBookkeeperModel, BOOKKEEPING_COMPONENT } from './bookkeeperModel.js';
import { generateInvoiceDataset, type InvoiceExample } from './invoiceDataset.js';
import { createBookkeepingReflectionModel } from './bookkeepingReflection.js';

export type { InvoiceExample } from './invoiceDataset.js';

export interface BookkeepingTask {
  seedCandidate: Candidate;
  trainset: InvoiceExample[];
  valset: InvoiceExample[];
  testset: InvoiceExample[];
  adapter: Adapter<InvoiceExample>;
  reflectionLm: LanguageModel;
}

export const BOOKKEEPING_SEED_CANDIDATE: Readonly<Candidate> = {
  [BOOKKEEPING_COMPONENT]: 'You are the bookkeeping assistant of Linden Trading GmbH. Turn the supplier invoice into a ledger entry.',
};

export function createBookkeepingTask(options: DemoTaskOptions = {}): BookkeepingTask {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  const jitter = options.jitter ?? [0.5, 1.5];
  const clock = options.clock ?? systemClock;
  const { trainset, valset, testset } = generateInvoiceDataset(seed, {
    trainSize: options.trainSize ?? 60,
    valSize: options.valSize ?? 30,
    testSize: options.testSize ?? 60,
  });
  return {
    seedCandidate: { ...BOOKKEEPING_SEED_CANDIDATE },
    trainset,
    valset,
    testset,
    adapter: createBookkeeperModel({ seed, meanMs: options.metricCallMs ?? 0, jitter, clock }),
    reflectionLm: createBookkeepingReflectionModel({ seed, meanMs: options.reflectionMs ?? 0, jitter, clock }),
  };
}
