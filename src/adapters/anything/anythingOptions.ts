// What optimizeAnything() takes, and how it becomes an optimize() config: the options checked at
// the edge (a ConfigError naming the field, before any call), the search mode chosen once as gepa
// chooses it (no dataset: single-task; a dataset: multi-task; a dataset and a valset:
// generalization), a string seed as one component, and gepa's defaults where they differ from
// optimize()'s (the reflection minibatch, the front, perfect scores).
import { ConfigError } from '../../errors/configError.js';
import type { ReflectionContext } from '../../gepa/proposer/reflectionPrompt.js';
import type { Candidate } from '../../gepa/core/adapter.js';
import type { LanguageModel } from '../../gepa/core/languageModel.js';
import type { OptimizeConfig } from '../../config/optimizeConfig.js';
import type { SearchMode } from '../../settingValues.js';
import type { EvaluatorResult, SideInfo } from './sideInfo.js';

/** One earlier evaluation, as the evaluator's `ctx.state` lists them. */
export interface PastEvaluation {
  /** The score the evaluator returned. */
  score: number;
  /** The side information it returned, its `log()` lines included. */
  sideInfo: SideInfo;
}

/**
 * gepa's `opt_state`: what the run has learnt about this example (in single-task search, about the
 * task) so far, for warm starts. `bestEvaluations` holds the best evaluations finished before this
 * call started, best first (at most 30). Which ones have finished depends on timing when calls run
 * at once: an evaluator that uses it makes a run depend on `workers`.
 */
export interface EvaluatorState {
  /** The best evaluations finished before this call started, best first (at most 30). */
  bestEvaluations: readonly PastEvaluation[];
}

/** What an evaluator is handed besides the candidate and the example. */
export interface EvaluatorContext {
  /** Aborted when the run stops at once (the caller's signal, a timeout): give up the call. */
  signal: AbortSignal;
  /** gepa's `opt_state`: the best evaluations so far, for warm starts. */
  state: EvaluatorState;
}

/**
 * The user's evaluator: scores a candidate (on one example with a dataset; without one, in
 * single-task search, `example` is `undefined`). Returns a number or `{ score, sideInfo }`
 * (higher is better); `log()` inside it adds lines to the side information.
 */
export type Evaluator<C, Example> = (candidate: C, example: Example, ctx: EvaluatorContext) => EvaluatorResult | Promise<EvaluatorResult>;

/** What a batchEvaluator is handed besides the candidate and the examples. */
export interface BatchEvaluatorContext {
  /** Aborted when the run stops at once (the caller's signal, a timeout): give up the call. */
  signal: AbortSignal;
  /** gepa's `opt_state` per example, in the order of `examples`: the best evaluations so far. */
  states: readonly EvaluatorState[];
}

/**
 * A user's evaluator that scores a candidate on many examples in one call (a harness that runs a
 * batch at once): returns one number or `{ score, sideInfo }` per example, in their order. Each
 * example is still a metric call of its own (budget, log, cache, events); a batch has at most
 * `workers` examples (a minibatch, or a slice of the valset).
 */
export type BatchEvaluator<C, Example> = (candidate: C, examples: readonly Example[], ctx: BatchEvaluatorContext) => readonly EvaluatorResult[] | Promise<readonly EvaluatorResult[]>;

/** gepa's RefinerConfig: after each evaluation, a model proposes a refined candidate from the side information. */
export interface RefinerOptions {
  /** Default: the reflection model. */
  refinerLm?: LanguageModel | string;
  /** Refinements tried per evaluation (each one metric call more). Default 1. */
  maxRefinements?: number;
}

/** The optimize() options optimizeAnything takes as they are (dataset, evaluator and the seed replace the rest). */
export type SharedOptions<Example> = Omit<OptimizeConfig<Example>, 'seedCandidate' | 'trainset' | 'valset' | 'adapter'>;

/**
 * optimizeAnything's options: the seed (a string or named texts; none, and the reflection model
 * writes it from the objective), the evaluator, the data that chooses the mode, the task's framing,
 * the refiner, and every option of optimize() that applies.
 */
export interface OptimizeAnythingOptions<C extends string | Candidate, Example = undefined> extends SharedOptions<Example> {
  /** A string (one component; candidates come back as strings) or named texts. Absent: seedless (`objective` required). */
  seedCandidate?: C;
  /** Scores a candidate (on one example, or on none in single-task search): a number or `{ score, sideInfo }`. Give it or `batchEvaluator`. */
  evaluator?: Evaluator<C, Example>;
  /**
   * Instead of `evaluator`: scores a candidate on many examples in one call, one number or
   * `{ score, sideInfo }` per example; needs `dataset`. Counted as one metric call per example.
   * Local executor only for now.
   */
  batchEvaluator?: BatchEvaluator<C, Example>;
  /** The tasks (multi-task search), or the training examples (with `valset`: generalization). Absent: single-task search. */
  dataset?: readonly Example[];
  /** Examples the candidates must generalize to; needs `dataset`. */
  valset?: readonly Example[];
  /** Examples a reflection reads. Default 1 in single-task search, else 3 (gepa's). */
  reflectionMinibatchSize?: number;
  /** Default 'hybrid' (gepa's): instance fronts, and objective fronts from `sideInfo.scores`. */
  frontType?: OptimizeConfig<Example>['frontType'];
  /**
   * Skip a proposal whose parent is perfect on its minibatch and stop once the best reaches
   * perfectScore. Default false (gepa's): an evaluator's scores need not top out at 1.
   */
  skipPerfectScore?: boolean;
  /** What the artifact is for, in natural language: in the reflection prompt and the seedless prompt. */
  objective?: string;
  /** Domain knowledge and constraints: in the reflection prompt and the seedless prompt. */
  background?: string;
  /** gepa's RefinerConfig: refine each evaluated candidate from its side information, keep the better. Absent: no refiner. */
  refiner?: RefinerOptions;
  /**
   * The evaluator puts images in side information (`image()`): the reflection model and the
   * refiner's must accept images, checked before any call (a ConfigError names the one that does
   * not). Without it, a prompt with images sent to a model that cannot take them is a failed call.
   */
  images?: boolean;
  /**
   * gepa's capture_stdio: what the evaluator prints during one call (console.log, info, debug,
   * warn, error; process.stdout.write, process.stderr.write) becomes that call's side
   * information, under `stdout` and `stderr` (`_gepa_stdout`, `_gepa_stderr` when it has those
   * keys), never mixed between calls in flight, and is not printed. Console and the streams are
   * patched while the run goes on and restored when it ends, also when it fails. Default false.
   */
  captureStdio?: boolean;
}


/** The one component a string seed becomes. */
export const STRING_COMPONENT = 'candidate';

/** How many earlier evaluations ctx.state keeps per example (gepa's best_example_evals_k). */
export const BEST_EVALUATIONS_KEPT = 30;

const fail = (field: string, problem: string): never => {
  throw new ConfigError(`invalid optimizeAnything options: ${field}: ${problem}`);
};

const blank = (text: string | undefined): boolean => text === undefined || text.trim() === '';

/** The options checked, in the order a reader meets them; throws a ConfigError naming the field. */
export function checkAnythingOptions(options: OptimizeAnythingOptions<string | Candidate, unknown>): void {
  const o = options as unknown as Record<string, unknown>;
  for (const field of ['trainset', 'adapter'] as const) {
    if (o[field] !== undefined) fail(field, `optimizeAnything takes ${field === 'trainset' ? '`dataset`' : '`evaluator`'} instead (optimize() takes ${field})`);
  }
  if (options.evaluator !== undefined && options.batchEvaluator !== undefined) {
    fail('batchEvaluator', 'cannot be given with evaluator: give one of them (evaluator scores one example per call, batchEvaluator many)');
  }
  if (options.batchEvaluator === undefined) {
    if (typeof options.evaluator !== 'function') fail('evaluator', `must be a function (candidate, example, ctx) => number | { score, sideInfo }${options.evaluator === undefined ? ', or give batchEvaluator instead' : ''}`);
  } else {
    if (typeof options.batchEvaluator !== 'function') fail('batchEvaluator', 'must be a function (candidate, examples, ctx) => one number or { score, sideInfo } per example');
    if (options.dataset === undefined) fail('batchEvaluator', 'needs a dataset: single-task search calls the evaluator without an example, so there is no batch of examples (give evaluator instead)');
    if (options.executor !== undefined && options.executor.kind !== 'local') {
      fail('batchEvaluator', `cannot run on the ${options.executor.kind} executor yet (its workers score one example per job): use the local executor, or give evaluator instead`);
    }
  }
  const seed: unknown = options.seedCandidate;
  if (seed !== undefined && typeof seed !== 'string') {
    if (typeof seed !== 'object' || seed === null || Array.isArray(seed)) fail('seedCandidate', 'must be a string or a record of named texts');
    const entries = Object.entries(seed as object);
    if (entries.length === 0) fail('seedCandidate', 'needs at least one component');
    const bad = entries.find(([, text]) => typeof text !== 'string');
    if (bad) fail(`seedCandidate.${bad[0]}`, 'must be a string');
  }
  if (options.images !== undefined && typeof options.images !== 'boolean') fail('images', 'must be true or false');
  if (options.captureStdio !== undefined && typeof options.captureStdio !== 'boolean') fail('captureStdio', 'must be true or false');
  for (const field of ['objective', 'background'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'string') fail(field, 'must be a string');
  }
  if (seed === undefined && blank(options.objective)) fail('objective', 'is required without a seedCandidate: the reflection model writes the first candidate from it');
  for (const field of ['dataset', 'valset'] as const) {
    const data: unknown = options[field];
    if (data === undefined) continue;
    if (!Array.isArray(data)) fail(field, 'must be an array');
    if ((data as unknown[]).length === 0) fail(field, `must not be empty (leave it out${field === 'dataset' ? ' for single-task search' : ''})`);
  }
  if (options.valset !== undefined && options.dataset === undefined) fail('valset', 'needs a dataset (a valset alone is no mode: give dataset, or dataset and valset)');
  if (options.holdout !== undefined && options.dataset === undefined) {
    fail('holdout', 'needs a dataset: single-task search calls the evaluator without an example, so no example can be held out');
  }
  if (options.reflectionPromptTemplate !== undefined && !(blank(options.objective) && blank(options.background))) {
    fail('reflectionPromptTemplate', 'cannot be combined with objective or background, which the built-in prompt states (give one or the other)');
  }
  const refiner: unknown = options.refiner;
  if (refiner !== undefined) {
    if (typeof refiner !== 'object' || refiner === null || Array.isArray(refiner)) fail('refiner', 'must be { refinerLm?, maxRefinements? }');
    const { refinerLm, maxRefinements, ...rest } = refiner as RefinerOptions;
    const stray = Object.keys(rest)[0];
    if (stray !== undefined) fail(`refiner.${stray}`, 'is not an option (refinerLm, maxRefinements)');
    if (refinerLm !== undefined && typeof refinerLm !== 'function' && typeof refinerLm !== 'string') fail('refiner.refinerLm', 'must be a function or a model string');
    if (maxRefinements !== undefined && !(Number.isInteger(maxRefinements) && maxRefinements >= 1)) fail('refiner.maxRefinements', 'must be a positive integer');
  }
}

/** The mode the data chooses (the options checked first). */
export function searchModeOf(options: { dataset?: readonly unknown[]; valset?: readonly unknown[] }): SearchMode {
  if (options.dataset === undefined) return 'single-task';
  return options.valset === undefined ? 'multi-task' : 'generalization';
}

/** The objective and background the reflection prompt states. */
export function reflectionContextOf(options: { objective?: string; background?: string }): ReflectionContext {
  return { ...(blank(options.objective) ? {} : { objective: options.objective }), ...(blank(options.background) ? {} : { background: options.background }) };
}

/** A seed as named texts: a string is the one component `candidate`. */
export function seedAsCandidate(seed: string | Candidate): Candidate {
  return typeof seed === 'string' ? { [STRING_COMPONENT]: seed } : seed;
}

/**
 * The examples optimize() runs on: single-task search has one, `undefined` (the evaluator is
 * called without an example); otherwise the dataset, and the valset when given.
 */
export function examplesOf<Example>(mode: SearchMode, options: { dataset?: readonly Example[]; valset?: readonly Example[] }): { trainset: readonly (Example | undefined)[]; valset?: readonly Example[] } {
  if (mode === 'single-task') return { trainset: [undefined] };
  return { trainset: options.dataset as readonly Example[], ...(mode === 'generalization' ? { valset: options.valset as readonly Example[] } : {}) };
}

/** gepa's defaults for optimize_anything where they differ from optimize()'s; the user's options win. */
export function anythingDefaults(mode: SearchMode): Pick<OptimizeConfig<unknown>, 'reflectionMinibatchSize' | 'frontType' | 'skipPerfectScore'> {
  // One example in single-task search; scores need not be in [0, 1], so no perfect score stops a run.
  return { reflectionMinibatchSize: mode === 'single-task' ? 1 : 3, frontType: 'hybrid', skipPerfectScore: false };
}
