// Run assembly: turns a user's OptimizeConfig into what the optimizer machine runs on: validated
// settings (config/), the example table, the executor, the resolved reflection LM, the clock and
// the hooks. A config is validated here once; optimize(), the durable run and the machine all
// take the PreparedRun.
import { systemClock } from '../clock.js';
import { errorMessage } from '../errorMessage.js';
import { createBullmqExecutor, runIdForDirectory } from '../executors/bullmqExecutor.js';
import { localExecutor } from '../executors/localExecutor.js';
import type { PricedExecutor } from '../executors/metricCallExecutor.js';
import { buildExampleTable, type ExampleTable } from '../gepa/core/exampleTable.js';
import { buildReflectiveDataset } from '../gepa/proposer/reflectiveDataset.js';
import type { ReflectionStrategy } from '../gepa/proposer/reflectionStrategy.js';
import type { CallRecord } from '../evaluation/evaluationService.js';
import type { Refinement } from '../evaluation/refinement.js';
import { resolveLanguageModel } from '../lm/resolveLanguageModel.js';
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { Adapter, Candidate, Clock, EvaluatedExample, OptimizeConfig, ProposeNewTexts, ReflectiveDataset, RunEvent, SlotInterval, WorkJournal } from '../types.js';
import { createRunTelemetry } from '../telemetry/runTelemetry.js';
import { ConfigError } from '../configError.js';
import { datasetFingerprints, type DatasetFingerprints, type InputHashes } from '../contentHash.js';
import type { ExistingRun } from '../storage/runDirectory.js';
import { resolveSettings, type RunSettings } from '../config/runSettings.js';

// The machines read the settings through the prepared run: they never import config/.
export type { RunSettings };

const PREPARED = Symbol('gepa-actors prepared run');

export interface PreparedRun {
  readonly [PREPARED]: true;
  /** The config as the user gave it (the run directory records its serializable part). */
  config: OptimizeConfig<unknown>;
  settings: RunSettings;
  table: ExampleTable<unknown>;
  executor: PricedExecutor<unknown>;
  reflectionLm: SlotAwareLanguageModel;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  /** How proposals ask for new texts: the reflection prompt (template) or the user's proposer. */
  reflection: ReflectionStrategy;
  /** The user's custom candidate proposer, which the evaluator runs in a worker slot. */
  proposeNewTexts?: ProposeNewTexts;
  /**
   * A seedless run (optimizeAnything without a seedCandidate): the reflection model is asked this
   * prompt first, and its answer becomes the seed's one component (settings.seedCandidate is a placeholder until then).
   */
  seedless?: { prompt: string; component: string };
  /** optimizeAnything's refiner, which the evaluation service runs after each evaluation. */
  refinement?: Refinement;
  clock: Clock;
  /** The caller's signal: abort = stop now with what was found. */
  signal?: AbortSignal;
  /** Abort = start nothing new, let what is in flight finish, then stop with the result. */
  drainSignal?: AbortSignal;
  onSlotInterval?: (interval: SlotInterval) => void;
  /** The run's event listener: proposers report their fine-grained events straight to it. */
  onEvent?: (event: RunEvent) => void;
  /** Every metric and LM call that ran (telemetry spans); absent with `telemetry: false`. */
  onCall?: (call: CallRecord) => void;
  /** Durable runs: completed paid work is recorded here and replayed on resume. */
  journal?: WorkJournal;
  inspect?: (inspectionEvent: unknown) => void;
  /** With a runDir: the datasets' fingerprints, computed once (the run directory's record and a caller's check use them). */
  datasetFingerprints?: DatasetFingerprints;
  /**
   * The run directory as a caller already read it for this run (the CLI's check before the
   * endpoint is asked, amendPreparedRun): the durable run takes it instead of reading the log again.
   */
  runDirectory?: ExistingRun;
}

export function isPreparedRun(value: unknown): value is PreparedRun {
  return typeof value === 'object' && value !== null && (value as Partial<PreparedRun>)[PREPARED] === true;
}

function reflectionModel(lm: OptimizeConfig<unknown>['reflectionLm'], maxCostUsd: number | undefined): SlotAwareLanguageModel {
  let model: SlotAwareLanguageModel;
  try {
    model = resolveLanguageModel(lm);
  } catch (error) {
    throw new ConfigError(`reflectionLm: ${errorMessage(error)}`);
  }
  if (maxCostUsd !== undefined && typeof model.estimateMaxCostUsd !== 'function') {
    throw new ConfigError('reflectionLm: a dollar budget (maxCostUsd) needs a language model with a known price, so that each call can be reserved before it is made');
  }
  return model;
}

/**
 * Validates the config (throws ConfigError naming the field) and prepares the run; a PreparedRun
 * is returned as it is. `hashes`: the input hashes the caller already computed, not computed again.
 */
export function prepareRun<Example>(config: OptimizeConfig<Example> | PreparedRun, hashes?: InputHashes): PreparedRun {
  if (isPreparedRun(config)) return config;
  const settings = resolveSettings(config, hashes?.seedCandidate);
  const adapter = config.adapter as Adapter<unknown>;
  const clock = config.clock ?? systemClock;
  const telemetry = config.telemetry === false ? undefined : createRunTelemetry(clock);
  return {
    [PREPARED]: true,
    config: config as OptimizeConfig<unknown>,
    settings,
    table: buildExampleTable<unknown>(config.trainset, config.valset ?? config.trainset),
    executor: executorFor(config, adapter),
    reflectionLm: reflectionModel(config.reflectionLm as OptimizeConfig<unknown>['reflectionLm'], settings.maxCostUsd),
    buildDataset: (candidate, results, components) => buildReflectiveDataset(adapter, candidate, results, components),
    reflection: { customProposer: config.proposeNewTexts !== undefined, ...(config.reflectionPromptTemplate === undefined ? {} : { template: config.reflectionPromptTemplate }) },
    ...(config.proposeNewTexts ? { proposeNewTexts: config.proposeNewTexts } : {}),
    clock,
    signal: config.signal,
    drainSignal: config.drainSignal,
    onSlotInterval: both(config.onSlotInterval, telemetry?.onSlotInterval),
    onEvent: both(config.onEvent, telemetry?.onEvent),
    ...(telemetry ? { onCall: telemetry.onCall } : {}),
    journal: config.journal,
    inspect: config.inspect,
    // Hashed once, after validation: a run directory's check and its record both use them.
    ...(config.runDir === undefined ? {} : { datasetFingerprints: hashes?.datasets ?? datasetFingerprints(config.trainset, config.valset) }),
  };
}

/** What a caller learns once a run is prepared; none of it needs validating again. */
export interface RunAmendments {
  /** The run directory as read (ExistingRun): its resumed budgets become the run's, and it is not read again. */
  runDirectory?: ExistingRun;
  /** Dollars paid before the run (the CLI's endpoint check), counted in its cost. */
  preRunCostUsd?: number;
  /** The run directory, when it is chosen after validation (the demo's fresh one, never an existing run). */
  runDir?: string;
}

/**
 * The prepared run with what the caller learnt since: a resumed run's budgets (from its log: at
 * least the validated ones, so every check still holds), its pre-run cost, its directory.
 */
export function amendPreparedRun(prepared: PreparedRun, { runDirectory, preRunCostUsd, runDir }: RunAmendments): PreparedRun {
  const budgets = runDirectory?.budgets?.budgets;
  const resumed = budgets ? { maxMetricCalls: budgets.maxMetricCalls, maxCostUsd: budgets.maxCostUsd } : {};
  return {
    ...prepared,
    config: { ...prepared.config, ...resumed, ...(preRunCostUsd === undefined ? {} : { preRunCostUsd }), ...(runDir === undefined ? {} : { runDir }) },
    settings: { ...prepared.settings, ...resumed },
    ...(runDirectory ? { runDirectory } : {}),
  };
}

/** One listener that calls the user's, then telemetry's; either may be absent. */
function both<T>(first: ((value: T) => void) | undefined, second: ((value: T) => void) | undefined): ((value: T) => void) | undefined {
  if (!first || !second) return first ?? second;
  return (value) => {
    first(value);
    second(value);
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
      noWorkerWarningMs: executor.noWorkerWarningMs,
      maxRedisDownMs: executor.maxRedisDownMs,
      onWarning: (message) => config.onEvent?.({ type: 'warning', message }),
      // A resumed run re-attaches to the jobs its earlier process submitted.
      runId: config.runDir === undefined ? undefined : runIdForDirectory(config.runDir),
    });
    return { ...remote, estimateMaxCostUsd };
  }
  throw new ConfigError(`executor: kind "${(executor as { kind: string }).kind}" is not available in this build`);
}
