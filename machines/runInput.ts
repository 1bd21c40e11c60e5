// Turns a user's OptimizeConfig into what the optimizer machine runs on: validated settings,
// the example table, the executor, the resolved reflection LM and the clock.
import { systemClock } from '../src/clock.js';
import type { SlotAwareLanguageModel } from '../src/evaluationService.js';
import { buildExampleTable, type ExampleTable } from '../src/exampleTable.js';
import { localExecutor, type MetricCallExecutor } from '../src/executor.js';
import { buildReflectiveDataset } from '../src/reflectiveDataset.js';
import { ConfigError, resolveSettings, type RunSettings } from '../src/runSettings.js';
import type { Adapter, Candidate, Clock, EvaluatedExample, OptimizeConfig, ReflectiveDataset } from '../src/types.js';

export interface PreparedRun {
  settings: RunSettings;
  table: ExampleTable<unknown>;
  executor: MetricCallExecutor<unknown>;
  reflectionLm: SlotAwareLanguageModel;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  clock: Clock;
  /** The caller's signal: abort = stop now with what was found. */
  signal?: AbortSignal;
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
    executor: localExecutor(adapter),
    reflectionLm: typeof config.reflectionLm === 'string' ? resolveNamedModel(config.reflectionLm) : config.reflectionLm,
    buildDataset: (candidate, results, components) => buildReflectiveDataset(adapter, candidate, results, components),
    clock: config.clock ?? systemClock,
    signal: config.signal,
  };
}
