// Turns a user's OptimizeConfig into what the optimizer machine runs on: validated settings,
// the example table, the executor, the resolved reflection LM and the clock.
import { systemClock } from '../src/clock.js';
import type { SlotAwareLanguageModel, WorkJournal } from '../src/evaluationService.js';
import { buildExampleTable, type ExampleTable } from '../src/exampleTable.js';
import { localExecutor, type MetricCallExecutor } from '../src/executor.js';
import { buildReflectiveDataset } from '../src/reflectiveDataset.js';
import { ConfigError, resolveSettings, type RunSettings } from '../src/runSettings.js';
import type { Adapter, Candidate, Clock, EvaluatedExample, OptimizeConfig, ReflectiveDataset } from '../src/types.js';
import type { SlotInterval } from '../src/workerSlots.js';

export interface PreparedRun {
  settings: RunSettings;
  table: ExampleTable<unknown>;
  executor: MetricCallExecutor<unknown>;
  reflectionLm: SlotAwareLanguageModel;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  clock: Clock;
  /** The caller's signal: abort = stop now with what was found. */
  signal?: AbortSignal;
  /** Abort = start nothing new, let what is in flight finish, then stop with the result. */
  drainSignal?: AbortSignal;
  onSlotInterval?: (interval: SlotInterval) => void;
  /** Durable runs: completed paid work is recorded here and replayed on resume. */
  journal?: WorkJournal;
}

/** Resolves `openai:<model>` strings; a function passes through. */
export type LanguageModelResolver = (lm: string) => SlotAwareLanguageModel;

let resolveNamedModel: LanguageModelResolver = (lm) => {
  throw new ConfigError(`reflectionLm: cannot resolve "${lm}": no resolver for named language models is registered`);
};

export function registerLanguageModelResolver(resolver: LanguageModelResolver): void {
  resolveNamedModel = resolver;
}

/** Validates the config (throws ConfigError naming the field) and prepares the run. */
export function prepareRun<Example>(config: OptimizeConfig<Example>): PreparedRun {
  const settings = resolveSettings(config);
  const adapter = config.adapter as Adapter<unknown>;
  return {
    settings,
    table: buildExampleTable<unknown>(config.trainset, config.valset ?? config.trainset),
    executor: executorFor(config, adapter),
    reflectionLm: typeof config.reflectionLm === 'string' ? resolveNamedModel(config.reflectionLm) : config.reflectionLm,
    buildDataset: (candidate, results, components) => buildReflectiveDataset(adapter, candidate, results, components),
    clock: config.clock ?? systemClock,
    signal: config.signal,
    drainSignal: config.drainSignal,
    onSlotInterval: config.onSlotInterval,
  };
}

/** Where metric calls run: in this process, or as jobs on remote workers. */
function executorFor<Example>(config: OptimizeConfig<Example>, adapter: Adapter<unknown>): MetricCallExecutor<unknown> {
  const executor = config.executor ?? { kind: 'local' };
  if (executor.kind === 'local') return localExecutor(adapter);
  throw new ConfigError(`executor: kind "${executor.kind}" is not available in this build`);
}
