// Run assembly: turns a user's OptimizeConfig into a PreparedRun (preparedRun.ts): validated
// settings (config/), the example table, the executor (local, or BullMQ jobs), the resolved
// reflection LM, the clock, telemetry and the hooks. A config is validated here once; only the
// edges call this (machines/optimize.ts, the CLI): the machines take the prepared run.
// Room run/: imported by the entry machines (optimize.ts, optimizeAnything.ts), report/ and the command; never by the other machines.
import { systemClock } from '../clock.js';
import { errorMessage } from '../errors/errorMessage.js';
import { createBullmqExecutor, runIdForDirectory } from '../executors/bullmqExecutor.js';
import { localExecutor } from '../executors/localExecutor.js';
import type { PricedExecutor } from '../executors/metricCallExecutor.js';
import { buildExampleTable, type ExampleTable } from '../gepa/core/exampleTable.js';
import { buildReflectiveDataset } from '../gepa/proposer/reflectiveDataset.js';
import { chosenReflectionStrategy } from '../gepa/reflection/reflectionStrategies.js';
import { autoCombinedFailures } from '../gepa/reflection/combinedFailures.js';
import type { RunReflection } from '../gepa/reflection/reflectionRun.js';
import { resolveLanguageModel } from '../lm/resolveLanguageModel.js';
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import { createRunTelemetry } from '../telemetry/runTelemetry.js';
import { ConfigError } from '../errors/configError.js';
import { datasetFingerprints, type InputHashes } from '../identity/contentHash.js';
import { resolveSettings, type RunSettings } from '../config/runSettings.js';
import { isPreparedRun, markPrepared, type PreparedRun } from './preparedRun.js';
import { createRunCallbacks } from './runCallbacks.js';
import type { EvaluationCachePolicy } from '../evaluation/evaluationStore.js';
import { evaluationCacheDir } from '../storage/evaluationCacheDir.js';

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
  const table = buildExampleTable<unknown>(config.trainset, config.valset ?? config.trainset, config.holdout ?? []);
  const listeners = both(config.onEvent, telemetry?.onEvent);
  // failFast: a failing callback stops the run as a failure, through the stop-signal actor.
  const callbackFailure = config.callbacks?.length && settings.failFast ? new AbortController() : undefined;
  const callbacks = config.callbacks?.length
    ? createRunCallbacks(config.callbacks, {
        seedCandidate: config.seedCandidate,
        table,
        // Through JSON: the settings that are data (the hooks are functions).
        config: JSON.parse(JSON.stringify({ ...settings, hooks: undefined })) as Record<string, unknown>,
        maxMetricCalls: settings.maxMetricCalls,
        ...(config.runDir === undefined ? {} : { runDir: config.runDir }),
        report: (event) => onEvent?.(event),
        ...(callbackFailure ? { fail: (message: string) => callbackFailure.abort(message) } : {}),
      })
    : undefined;
  // The user's listener and telemetry first, then the callbacks (a callback's failure reaches all of them).
  const onEvent = callbacks
    ? (event: RunEvent) => {
        listeners?.(event);
        callbacks.onEvent(event);
      }
    : listeners;
  return markPrepared({
    config: config as OptimizeConfig<unknown>,
    settings,
    table,
    evaluationCache: evaluationCachePolicy(config, settings, table),
    executor: executorFor(config, adapter),
    reflectionLm: reflectionModel(config.reflectionLm as OptimizeConfig<unknown>['reflectionLm'], settings.maxCostUsd),
    buildDataset: (candidate, results, components) => buildReflectiveDataset(adapter, candidate, results, components),
    reflection: runReflection(config, settings),
    ...(config.proposeNewTexts ? { proposeNewTexts: config.proposeNewTexts } : {}),
    clock,
    signal: config.signal,
    drainSignal: config.drainSignal,
    ...(callbackFailure ? { failSignal: callbackFailure.signal } : {}),
    onSlotInterval: both(config.onSlotInterval, telemetry?.onSlotInterval),
    onEvent,
    ...(callbacks ? { callbacks } : {}),
    ...(telemetry ? { onCall: telemetry.onCall } : {}),
    journal: config.journal,
    inspect: config.inspect,
    // Hashed once, after validation: a run directory's check and its record both use them.
    ...(config.runDir === undefined ? {} : { datasetFingerprints: hashes?.datasets ?? datasetFingerprints(config.trainset, config.valset) }),
  });
}

/** The reflection strategy the config selects (validated already) and the options every strategy reads. */
function runReflection(config: OptimizeConfig<unknown>, settings: RunSettings): RunReflection {
  const chosen = chosenReflectionStrategy(config);
  if ('problem' in chosen) throw new ConfigError(`invalid optimize config: ${chosen.problem}`);
  // Schedule 'auto' running wide reflects with its 'combined' unless the config chose how to reflect (resolveSchedule decided).
  const { schedule } = settings;
  const strategy = schedule.kind === 'async' && schedule.combinesFailures === true ? autoCombinedFailures : chosen;
  return {
    strategy,
    ...(config.reflectionPromptTemplate === undefined ? {} : { template: config.reflectionPromptTemplate }),
    ...(settings.maxCandidateLength === undefined ? {} : { maxCandidateLength: settings.maxCandidateLength }),
    // Only when it is not GEPA's 1, so that a default run's reflection options stay as they were.
    ...(settings.perfectScore === 1 ? {} : { perfectScore: settings.perfectScore }),
  };
}

/**
 * cacheEvaluation resolved (validated already; or, resumed, as the run directory recorded it):
 * 'disk' keeps evaluations in cacheDir for runs of the same adapter identity.
 */
export function evaluationCachePolicy(config: OptimizeConfig<unknown>, settings: Pick<RunSettings, 'cacheEvaluation' | 'cacheDir'>, table: ExampleTable<unknown>): EvaluationCachePolicy {
  const { cacheEvaluation: mode, cacheDir } = settings;
  if (mode !== 'disk' || cacheDir === undefined) return { reuse: mode !== false };
  const { reflectionLm: _lm, ...adapterIdentity } = config.runIdentity ?? {};
  return { reuse: true, store: evaluationCacheDir(cacheDir, adapterIdentity, table.examples) };
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
      workerLostMs: executor.workerLostMs,
      batchJobs: executor.batchJobs,
      onWarning: (message) => config.onEvent?.({ type: 'warning', message }),
      // A resumed run re-attaches to the jobs its earlier process submitted.
      runId: config.runDir === undefined ? undefined : runIdForDirectory(config.runDir),
    });
    return { ...remote, estimateMaxCostUsd };
  }
  throw new ConfigError(`executor: kind "${(executor as { kind: string }).kind}" is not available in this build`);
}
