// Turns a user's OptimizeConfig into what the optimizer machine runs on: validated settings,
// the example table, the executor, the resolved reflection LM and the clock.
import { systemClock } from '../clock.js';
import { DollarGate } from '../budget/dollarGate.js';
import { resolveLanguageModel } from '../lm/resolveLanguageModel.js';
import type { SlotAwareLanguageModel, WorkJournal } from '../evaluation/evaluationService.js';
import { buildExampleTable, type ExampleTable } from '../gepa/core/exampleTable.js';
import { localExecutor } from '../executors/metricCallExecutor.js';
import { createBullmqExecutor, runIdForDirectory } from '../executors/bullmqExecutor.js';
import type { PricedExecutor } from '../evaluation/evaluationService.js';
import { buildReflectiveDataset } from '../gepa/proposer/reflectiveDataset.js';
import { ConfigError, resolveSettings, type RunSettings } from './runSettings.js';
import type { Adapter, Candidate, Clock, EvaluatedExample, OptimizeConfig, ReflectiveDataset, RunEvent } from '../types.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';

export interface PreparedRun {
  settings: RunSettings;
  table: ExampleTable<unknown>;
  executor: PricedExecutor<unknown>;
  reflectionLm: SlotAwareLanguageModel;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  clock: Clock;
  /** The caller's signal: abort = stop now with what was found. */
  signal?: AbortSignal;
  /** Abort = start nothing new, let what is in flight finish, then stop with the result. */
  drainSignal?: AbortSignal;
  onSlotInterval?: (interval: SlotInterval) => void;
  /** The run's event listener: proposers report their fine-grained events straight to it. */
  onEvent?: (event: RunEvent) => void;
  /** Durable runs: completed paid work is recorded here and replayed on resume. */
  journal?: WorkJournal;
  /** The dollar budget, reserved per call by the evaluator and read by the optimizer. */
  dollars: DollarGate;
}

function reflectionModel(lm: OptimizeConfig<unknown>['reflectionLm'], maxCostUsd: number | undefined): SlotAwareLanguageModel {
  let model: SlotAwareLanguageModel;
  try {
    model = resolveLanguageModel(lm);
  } catch (error) {
    throw new ConfigError(`reflectionLm: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (maxCostUsd !== undefined && typeof model.estimateMaxCostUsd !== 'function') {
    throw new ConfigError('reflectionLm: a dollar budget (maxCostUsd) needs a language model with a known price, so that each call can be reserved before it is made');
  }
  return model;
}

/** Validates the config (throws ConfigError naming the field) and prepares the run. */
export function prepareRun<Example>(config: OptimizeConfig<Example>): PreparedRun {
  const settings = resolveSettings(config);
  const adapter = config.adapter as Adapter<unknown>;
  return {
    settings,
    table: buildExampleTable<unknown>(config.trainset, config.valset ?? config.trainset),
    executor: executorFor(config, adapter),
    reflectionLm: reflectionModel(config.reflectionLm as OptimizeConfig<unknown>['reflectionLm'], settings.maxCostUsd),
    buildDataset: (candidate, results, components) => buildReflectiveDataset(adapter, candidate, results, components),
    clock: config.clock ?? systemClock,
    signal: config.signal,
    drainSignal: config.drainSignal,
    onSlotInterval: config.onSlotInterval,
    onEvent: config.onEvent,
    journal: config.journal,
    dollars: new DollarGate(settings.maxCostUsd),
  };
}

/** Where metric calls run: in this process, or as jobs on remote workers. */
function executorFor<Example>(config: OptimizeConfig<Example>, adapter: Adapter<unknown>): PricedExecutor<unknown> {
  const executor = config.executor ?? { kind: 'local' };
  const priced = adapter as Adapter<unknown> & { estimateMaxCostUsd?: (candidate: Candidate, example: unknown) => number };
  const estimateMaxCostUsd = priced.estimateMaxCostUsd?.bind(adapter);
  if (executor.kind === 'local') return { ...localExecutor(adapter), estimateMaxCostUsd };
  if (executor.kind === 'bullmq') {
    const remote = createBullmqExecutor({
      connection: executor.connection,
      queue: executor.queue,
      attempts: executor.attempts,
      backoffMs: executor.backoffMs,
      // A resumed run re-attaches to the jobs its earlier process submitted.
      runId: config.runDir === undefined ? undefined : runIdForDirectory(config.runDir),
    });
    return { ...remote, estimateMaxCostUsd };
  }
  throw new ConfigError(`executor: kind "${(executor as { kind: string }).kind}" is not available in this build`);
}
