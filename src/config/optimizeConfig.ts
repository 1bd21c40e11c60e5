// What optimize() takes: the data, the adapter and models, the stop conditions, the schedule, the
// algorithm's knobs and the hooks. Plain types; runSettings.ts validates a config and resolves its
// defaults. The root entry re-exports it.
import type { Clock } from '../clock.js';
import type { SlotInterval } from '../evaluation/workerSlots.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { RunEvent } from '../gepa/core/runEvent.js';
import type { GepaCallbacks } from '../gepa/core/callbacks.js';
import type { WorkJournal } from '../gepa/core/workJournal.js';
import type { ProposeNewTexts, ReflectionPromptTemplate, SampleMinibatch, SelectCandidate, SelectComponents } from '../gepa/strategies/hookSignatures.js';
import type { ReflectionStrategyName } from '../gepa/reflection/reflectionStrategies.js';
import type { ReflectionStrategy } from '../gepa/reflection/reflectionStrategy.js';
import type { LanguageModel } from '../gepa/core/languageModel.js';
import type { Stopper } from '../gepa/strategies/stoppers.js';
import type { AcceptanceRule, ComponentSelectionStrategy, FrontType, ParentSelectionStrategy, ProposalSelection, Schedule, SlotPolicy, StepMinibatches, TieOrder } from '../settingValues.js';

/**
 * What optimize() takes (and optimizerMachine's input): the data, the adapter and models, the stop
 * conditions, the schedule, the algorithm's knobs and the hooks. At least one stop condition is
 * required. Invalid values are a ConfigError naming the field.
 */
export interface OptimizeConfig<Example> {
  /** The candidate to start from: component name -> text (candidate 0). */
  seedCandidate: Candidate;
  /** The examples proposals reflect on (minibatches are drawn from it). */
  trainset: readonly Example[];
  /** Default: trainset. */
  valset?: readonly Example[];
  /**
   * A held-out selection set (gepa issues #261, #133): examples the search never sees. At the
   * end, the top 3 candidates of the Pareto front (by valset mean) are scored on it and the best
   * there is `bestCandidate` (`result.holdoutScore`, `result.holdout`). Their calls (3 x its size)
   * are held from `maxMetricCalls` from the start, so the budget is never exceeded. Not scored
   * when the run stops by time, dollars, a request or a failure.
   */
  holdout?: readonly Example[];
  /** Runs a candidate on one example and scores it. */
  adapter: Adapter<Example>;
  /** A function, `"openai:<model>"` or `"local:<path to a .gguf>"` (see LanguageModel). */
  reflectionLm: LanguageModel | string;
  // Stop conditions: at least one is required. Budgets are never exceeded.
  /** Stop before this many metric calls (adapter.evaluate calls, cache hits excluded) would be passed. */
  maxMetricCalls?: number;
  /** Stop before this many dollars would be passed (each call reserves its worst case first). */
  maxCostUsd?: number;
  /** Stop after this long on the run's clock, in ms. */
  timeoutMs?: number;
  /** Stop once the best valset mean reaches it. */
  targetScore?: number;
  /** Stop after this many steps (batched) or proposals (async) in a row added no better candidate. */
  maxStepsWithoutImprovement?: number;
  /**
   * Your own stop rules (gepa's stop_callbacks), asked after the seed's evaluation and after each
   * fold (a batched step, an async proposal) while the run goes on: `true` stops the run with
   * stopReason 'stopWhen', a string stops it with that string; proposals in flight finish first.
   * Built-ins: `stoppers` (docs/stopping.md). Counts as a stop condition. Not recorded in a run
   * directory beyond their names: pass them again when you resume.
   */
  stopWhen?: Stopper | Stopper[];
  /** Default { kind: 'batched' } (1 x 1). */
  schedule?: Schedule;
  /** Default 8: ONE capacity budget shared by every metric call and every LM call of the run. */
  workers?: number;
  /** Default 3. */
  reflectionMinibatchSize?: number;
  /** Default 0. */
  seed?: number;
  /** Persist and resume here. */
  runDir?: string;
  /** Abort = graceful stop with a result. */
  signal?: AbortSignal;
  /** Passed to XState's createActor inspect option. */
  inspect?: (inspectionEvent: unknown) => void;
  /** Default: metric calls run in this process. */
  executor?:
    | {
        /** In this process. */
        kind: 'local';
      }
    | {
        /** Every metric call a BullMQ job, served by `gepa-actors worker` processes. */
        kind: 'bullmq';
        /** A `redis://` or `rediss://` URL, or host and port. */
        connection:
          | string
          | {
              /** Redis host. */
              host: string;
              /** Redis port. */
              port: number;
            };
        /** The queue's name; the workers must serve the same one. */
        queue?: string;
        /** Tries per job before it is recorded as a failed call (score 0, the error). Default 3. */
        attempts?: number;
        /** First retry delay, doubled each retry. Default 500. */
        backoffMs?: number;
        /** Jobs waiting this long with none taken: a 'warning' event ("no worker on queue q"). Default 30,000. */
        noWorkerWarningMs?: number;
        /** Redis unreachable this long: the run stops with stopReason 'error' naming Redis (resumable: its calls in flight are made again). Default 300,000. */
        maxRedisDownMs?: number;
        /** A worker silent this long (no heartbeat; longer for one whose beats come with long gaps) is lost: its calls run again on others; half as long while the other workers beat on time. Default 500. */
        workerLostMs?: number;
        /** How a minibatch (or valset slice) travels, each example still its own metric call: 'auto' in jobs of at most the smallest live worker's `--concurrency` (its heartbeat says it; a job per call until one is known, or when it is 1), true as one job, false a job per example (docs/fleet.md). Default 'auto'. */
        batchJobs?: boolean | 'auto';
      };

  // Algorithm knobs; defaults follow the reference implementation.
  /** What the Pareto fronts are kept over (gepa's frontier_type). Default 'instance'. */
  frontType?: FrontType;
  /**
   * Which of two equal-mean candidates dominated removal keeps (see TieOrder). Default 'reference'
   * (batched), 'oldest-survives' (async): gepa 0.1.4's own order for the batched schedule, the parent
   * stays for async (bench/README.md, "The reference bridge").
   */
  tieOrder?: TieOrder;
  /**
   * Which minibatches a batched step's tasks reflect on (see StepMinibatches). Default 'sliding'
   * (batched), 'fresh' (async): the reference's rule for the batched schedule; an async proposal
   * takes the next chunk (bench/README.md, "The reference bridge").
   */
  stepMinibatches?: StepMinibatches;
  /** How a proposal's parent is drawn. Default 'pareto' (frequency-weighted from the fronts). */
  parentSelection?: ParentSelectionStrategy;
  /** Which components a proposal rewrites. Default 'round-robin'. */
  componentSelection?: ComponentSelectionStrategy;
  /** When a child passes its minibatch gate. Default 'strict-improvement' (its sum beats the parent's). */
  acceptance?: AcceptanceRule;
  /** Which of a step's accepted children go on to the valset. Default 'all'. */
  proposalSelection?: ProposalSelection;
  /**
   * Skip a proposal whose parent is already perfect on its minibatch, and stop the run
   * (stopReason 'perfectScore') once the best valset mean reaches perfectScore. Default true.
   */
  skipPerfectScore?: boolean;
  /** Default 1. */
  perfectScore?: number;
  /**
   * Spend the budget's last calls. A proposal normally starts only when `maxMetricCalls` left can
   * pay its worst case (the parent's and the child's minibatch evaluations and a valset
   * evaluation), so a run could end with up to that much unspent (a fifth of a budget of five
   * valsets). With this on, once no proposal could be paid in full even if every call in flight
   * came back, one more starts with a smaller minibatch when the calls left pay for it that way;
   * then proposals start with their minibatch evaluations paid (the last of them with its
   * minibatch cut to the calls left), and a selected child of one gets its valset evaluation only
   * when the calls other proposals give back pay for it (async: as they finish; batched: once the
   * rest of its step has finished, in task order), else it is denied. The budget is never
   * exceeded, and a run that ends on it leaves at most one call unspent. Measured in
   * bench/README.md ("The budget's last calls"). Default true (a run directory started with it
   * off, or before the option existed, resumes with it off when it is left unset).
   */
  spendLastCalls?: boolean;
  /** Merge (system-aware crossover): off by default. */
  merge?: {
    /** The most merge proposals of the run. Default 5. */
    maxMerges?: number;
  };
  /** Default 'finish-first'. */
  slotPolicy?: SlotPolicy;
  /** Default 'full'; a race's chunk defaults to 10 and its margin to 0. */
  valsetPolicy?:
    | 'full'
    | {
        /** Evaluate in chunks and stop a child that trails its parent. */
        kind: 'race';
        /** Examples per chunk. Default 10. */
        chunk?: number;
        /** How far (mean score) the child may trail its parent before it is stopped. Default 0. */
        margin?: number;
      };
  /** Injected clock; default the system clock. Tests pass steppingClock(new SimulatedClock()) and run it with runOnSimulatedClock. */
  clock?: Clock;
  /** Called with every runtime event (candidate accepted, budget updated, ...). */
  onEvent?: (event: RunEvent) => void;
  /**
   * gepa's callbacks (GEPACallback), camelCased: each object implements any of its methods
   * (`onOptimizationStart` ... `onError`), called with gepa's payload fields as the run goes
   * (docs/callbacks-and-cache.md maps each to when it fires). A method that throws, or returns a
   * promise that rejects, is reported once as an `error` event and never stops the run. Default: none.
   */
  callbacks?: Array<Partial<GepaCallbacks>>;
  /**
   * gepa's `cache_evaluation`: whether a (candidate, example) evaluation is served again instead
   * of calling the adapter. `'memory'` (the default): within this run, in-flight duplicates
   * shared; `'disk'`: also kept in `cacheDir` and served to later runs of the same adapter identity
   * (`runIdentity`), a hit costing no metric call; `false`: every evaluation is a metric call.
   */
  cacheEvaluation?: false | 'memory' | 'disk';
  /** The folder of the `'disk'` evaluation cache (required with it); created when missing. Runs may share it. */
  cacheDir?: string;
  /** Abort = stop gracefully: start nothing new, let what is in flight finish, return the result. */
  drainSignal?: AbortSignal;
  /** Called with every finished interval of work on a worker slot (timelines, reports). */
  onSlotInterval?: (interval: SlotInterval) => void;
  /**
   * OpenTelemetry spans (gepa.run > gepa.proposal > metric and LM calls) and metrics through
   * @opentelemetry/api's global providers: a no-op until the application registers one (before
   * the run starts: without one, the run feeds no telemetry at all). Default true; false creates
   * no span and records no metric.
   */
  telemetry?: boolean;
  /**
   * Raise on the first adapter exception instead of recording it as a failed call (gepa's
   * `raise_on_exception`): the run stops with stopReason 'error'. Default false.
   */
  failFast?: boolean;
  /**
   * Dollars already spent for this run before optimize() was called (the CLI's endpoint check
   * pings servers without /models): counted in costUsd and against maxCostUsd. Default 0.
   */
  preRunCostUsd?: number;
  /**
   * A run stops with stopReason 'error' after this many failed calls in a row with the same cause
   * (e.g. HTTP 404 for a wrong model name); also when every call of the seed's valset evaluation
   * failed. Default 10.
   */
  maxConsecutiveFailures?: number;
  /**
   * Durable runs: what identifies the function-valued parts of the config (the models, the
   * adapter), recorded in runDir/config.json and compared on resume field by field (a change is
   * a ConfigError naming the field). `reflectionLm` names a function reflection model: a run whose
   * reflection model is a function without that name cannot be resumed. Values must be JSON. The
   * CLI records taskModel, reflectionModel, metric, prices, temperature, maxTokens and component.
   */
  runIdentity?: {
    /** The name of a function reflection model (e.g. 'my-proxy/gpt-5-mini@2'). */
    reflectionLm?: string;
  } & Record<string, unknown>;
  /**
   * Records completed paid work and replays it on resume. optimize() sets it from runDir; set it
   * yourself only when embedding optimizerMachine with your own storage.
   */
  journal?: WorkJournal;

  // Strategy hooks: plain functions that replace one rule of GEPA (docs/hooks.md).
  /**
   * How a proposal asks for new texts (docs/hooks.md, "Reflection strategies"): `'built-in'` (the
   * built-in prompt per component), `'template'` (reflectionPromptTemplate), `'propose-new-texts'`
   * (proposeNewTexts), or a strategy object of your own (`ReflectionStrategy`). Default: the one
   * the hooks select: proposeNewTexts' when given, else the template's when given, else 'built-in'
   * (schedule 'auto' where it evaluates gates ahead: 'combined' made adaptive, docs/schedules.md).
   */
  reflectionStrategy?: ReflectionStrategyName | ReflectionStrategy;
  /**
   * The most characters (Unicode code points) a proposed component text may have (gepa issue #272).
   * A text over it is sent back to the reflection model once, with the limit stated; still over
   * it, the proposal is refused before its child is evaluated (no metric call is spent on it):
   * `ProposalRecord.tooLong`, `OptimizeResult.tooLong`. It applies to each component's text (with
   * optimizeAnything's string seed, the one text is the candidate), whatever the reflection
   * strategy; the seed is not checked. Default: no limit.
   */
  maxCandidateLength?: number;
  /** Default: the built-in prompt (buildReflectionPrompt). Giving it selects the 'template' strategy. */
  reflectionPromptTemplate?: ReflectionPromptTemplate;
  /** Replaces the reflection LM call of each proposal; runs in a worker slot as a reflection would. Giving it selects the 'propose-new-texts' strategy. */
  proposeNewTexts?: ProposeNewTexts;
  /** Replaces parentSelection. */
  selectCandidate?: SelectCandidate;
  /** Replaces componentSelection. */
  selectComponents?: SelectComponents;
  /** Replaces the epoch-shuffled minibatch sampler. */
  sampleMinibatch?: SampleMinibatch;
  /** Keep, per valset example, the outputs of the best candidates (result.bestOutputs). Default false. */
  trackBestOutputs?: boolean;
}
