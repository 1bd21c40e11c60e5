// What the optimizer machine runs on: a user's OptimizeConfig prepared once (prepareRun.ts, the
// assembly) into validated settings, the example table, the executor, the resolved reflection LM,
// the clock and the hooks; and what a caller learns after preparing it (amendPreparedRun). Types
// and marks only: the machines read a PreparedRun without pulling in what assembles one.
import type { PricedExecutor } from '../executors/metricCallExecutor.js';
import type { ExampleTable } from '../gepa/core/exampleTable.js';
import type { RunReflection } from '../gepa/reflection/reflectionRun.js';
import type { CallRecord } from '../evaluation/callRecord.js';
import type { Refinement } from '../evaluation/refinement.js';
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { Candidate, EvaluatedExample, ReflectiveDataset } from '../gepa/core/adapter.js';
import type { Clock } from '../clock.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { ProposeNewTexts } from '../gepa/strategies/hookSignatures.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import type { WorkJournal } from '../gepa/core/workJournal.js';
import type { DatasetFingerprints } from '../identity/contentHash.js';
import type { ExistingRun } from '../storage/runDirectory.js';
import type { RunSettings } from '../config/runSettings.js';
import type { RunCallbacks } from './runCallbacks.js';
import type { EvaluationCachePolicy } from '../evaluation/evaluationStore.js';

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
  /** How proposals ask for new texts: the reflection strategy (held here, by reference: it is functions) and the options it reads. */
  reflection: RunReflection;
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
  /** Abort = the run failed (a failing callback under failFast): stop now with stopReason 'error', the reason its message. */
  failSignal?: AbortSignal;
  onSlotInterval?: (interval: SlotInterval) => void;
  /** The run's event listener: proposers report their fine-grained events straight to it. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Set by optimize() when nobody can receive the optimizer's run events: no onEvent, no inspect,
   * and its actor is never handed out (so no `actor.on`). The optimizer then emits no per-proposal
   * events (each emit is an XState action resolved and executed for nobody, ~7% of a zero-latency
   * run's CPU). An embedded optimizerMachine never has it.
   */
  unheard?: true;
  /** How evaluations are reused (cacheEvaluation): within the run, not at all, or also from and into cacheDir. */
  evaluationCache: EvaluationCachePolicy;
  /** The user's gepa callbacks, which onEvent feeds; optimize() hands them the result. Absent without callbacks. */
  callbacks?: RunCallbacks;
  /** Every metric and LM call that ran (telemetry spans); absent with `telemetry: false`. */
  onCall?: (call: CallRecord) => void;
  /** Every failed call's error as it was thrown: optimize() keeps the first, a failed run's cause (RunFailedError). */
  onFailedCall?: (error: unknown) => void;
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

/** Marks assembled fields as a PreparedRun (prepareRun.ts, once it has validated them). */
export const markPrepared = (fields: Omit<PreparedRun, typeof PREPARED>): PreparedRun => ({ [PREPARED]: true, ...fields });

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
