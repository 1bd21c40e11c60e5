// Validates an OptimizeConfig and resolves its defaults into the settings the runtime reads.
// Scalar fields go through a zod schema so every error names its field; the functions (adapter,
// language model, strategy hooks) are checked for shape.
// Room config/: imported by storage/, run/, report/, the command and adapters/ (the floors above and its own); executors/ and machines/ name only the OptimizeConfig type.
import { z } from 'zod';
import { candidateHash } from '../gepa/core/candidateHash.js';
import { defaultTieOrder } from '../gepa/core/paretoFront.js';
import { defaultStepMinibatches } from '../gepa/strategies/minibatchSampler.js';
import { templateProblem } from '../gepa/reflection/promptTemplate.js';
import { choosesReflection, chosenReflectionStrategy } from '../gepa/reflection/reflectionStrategies.js';
import type { PlanningHooks } from '../gepa/strategies/strategyHooks.js';
import type { Stopper } from '../gepa/strategies/stoppers.js';
import { closestName } from './closestName.js';
import { autoCombinesFailures, autoDecision, autoSpeculation } from '../runtimeModel/autoSchedule.js';
import { autoViewOf, startAutoWatch } from '../runtimeModel/autoWatch.js';
import { oneOf, refusingKinds, refusingValues } from './allowedValues.js';
import { ConfigError, formatZodError } from '../errors/configError.js';
import { DEFAULT_MAX_CONSECUTIVE_FAILURES } from '../evaluation/failureTally.js';
import { HOLDOUT_CANDIDATES, holdoutCalls } from '../gepa/search/holdoutSelection.js';
import type { Adapter, Candidate } from '../gepa/core/adapter.js';
import type { OptimizeConfig } from './optimizeConfig.js';
import type { ProposalSelection, Schedule, ValsetPolicy } from '../settingValues.js';
import {
  ACCEPTANCE_RULES,
  CACHE_EVALUATIONS,
  COMPONENT_SELECTIONS,
  EXECUTOR_KINDS,
  FRONT_TYPES,
  HELD_SLOTS,
  PARENT_SELECTIONS,
  PARENT_WEIGHTINGS,
  PROPOSAL_SELECTIONS,
  REBASE_GATES,
  REBASE_POLICIES,
  REBASE_WAITS,
  SCHEDULE_KINDS,
  SLOT_POLICIES,
  SPECULATIONS,
  STEP_MINIBATCHES,
  TIE_ORDERS,
  type AcceptanceRule,
  type ComponentSelectionStrategy,
  type FrontType,
  type HeldSlot,
  type ParentSelectionStrategy,
  type ParentWeighting,
  type RebaseGate,
  type RebasePolicy,
  type RebaseWait,
  type SearchMode,
  type SlotPolicy,
  type Speculation,
  type StepMinibatches,
  type TieOrder,
} from '../settingValues.js';

const positiveInt = z.number().int().positive();

/**
 * Upper bounds on concurrency: beyond them a run only allocates until it crashes (each slot and
 * each proposal in flight holds memory and sockets), so they are refused before anything is written.
 */
export const MAX_WORKERS = 1024;
export const MAX_IN_FLIGHT = 1024;

export const scheduleSchema = z.discriminatedUnion(
  'kind',
  [
  z.object({ kind: z.literal('batched'), parents: positiveInt.optional(), perParent: positiveInt.optional() }).strict(),
  z.object({ kind: z.literal('async'), inFlight: positiveInt.max(MAX_IN_FLIGHT), rebase: oneOf(REBASE_POLICIES).optional(), parentWeighting: oneOf(PARENT_WEIGHTINGS).optional(), rebaseGate: oneOf(REBASE_GATES).optional(), rebaseWait: oneOf(REBASE_WAITS).optional(), heldSlot: oneOf(HELD_SLOTS).optional(), speculate: oneOf(SPECULATIONS).optional(), perParent: positiveInt.max(MAX_IN_FLIGHT).optional() }).strict(),
  z.object({ kind: z.literal('auto') }).strict(),
  ],
  refusingKinds(SCHEDULE_KINDS),
);

/** Where metric calls run (OptimizeConfig's `executor`); a connection's details are checked when the executor is made. */
export const executorSchema = z.discriminatedUnion(
  'kind',
  [
  z.object({ kind: z.literal('local') }).strict(),
  z
    .object({
      kind: z.literal('bullmq'),
      connection: z.union([z.string().min(1, 'must be a redis:// URL'), z.object({ host: z.string().min(1), port: positiveInt }).strict()]),
      queue: z.string().min(1).optional(),
      attempts: positiveInt.optional(),
      backoffMs: positiveInt.optional(),
      noWorkerWarningMs: positiveInt.optional(),
      maxRedisDownMs: positiveInt.optional(),
      workerLostMs: positiveInt.optional(),
      batchJobs: z.union([z.boolean(), z.literal('auto')]).optional(),
    })
    .strict(),
  ],
  refusingKinds(EXECUTOR_KINDS),
);

const isStopper = (value: unknown): value is Stopper => typeof value === 'function';
const stopWhenSchema = z.custom<Stopper | Stopper[]>(
  (value) => isStopper(value) || (Array.isArray(value) && value.every(isStopper)),
  'must be a function (view) => boolean | string, or an array of them',
);

/** The checked fields of an OptimizeConfig, each naming itself in errors (the CLI's config file reuses them). */
export const settingsFields = {
  seedCandidate: z.record(z.string(), z.string()).refine((c) => Object.keys(c).length > 0, 'needs at least one component'),
  trainset: z.array(z.unknown()).min(1, 'must not be empty'),
  valset: z.array(z.unknown()).min(1, 'must not be empty').optional(),
  holdout: z.array(z.unknown()).min(1, 'must not be empty').optional(),
  maxMetricCalls: positiveInt.optional(),
  maxCostUsd: z.number().positive().optional(),
  timeoutMs: z.number().positive().optional(),
  targetScore: z.number().optional(),
  maxStepsWithoutImprovement: positiveInt.optional(),
  schedule: scheduleSchema.optional(),
  workers: positiveInt.max(MAX_WORKERS).optional(),
  reflectionMinibatchSize: positiveInt.optional(),
  seed: z.number().int().optional(),
  frontType: oneOf(FRONT_TYPES).optional(),
  tieOrder: oneOf(TIE_ORDERS).optional(),
  stepMinibatches: oneOf(STEP_MINIBATCHES).optional(),
  parentSelection: oneOf(PARENT_SELECTIONS).optional(),
  componentSelection: oneOf(COMPONENT_SELECTIONS).optional(),
  acceptance: oneOf(ACCEPTANCE_RULES).optional(),
  proposalSelection: z.union([z.enum(PROPOSAL_SELECTIONS), z.object({ topK: positiveInt }).strict()], refusingValues([...PROPOSAL_SELECTIONS, { shape: '{ topK: n }' }])).optional(),
  skipPerfectScore: z.boolean().optional(),
  spendLastCalls: z.boolean().optional(),
  perfectScore: z.number().optional(),
  merge: z.object({ maxMerges: z.number().int().nonnegative().optional() }).strict().optional(),
  slotPolicy: oneOf(SLOT_POLICIES).optional(),
  valsetPolicy: z
    .union(
      [z.literal('full'), z.object({ kind: z.literal('race'), chunk: positiveInt.optional(), margin: z.number().nonnegative().optional() }).strict()],
      refusingValues(['full', { shape: "{ kind: 'race', chunk?, margin? }" }]),
    )
    .optional(),
  runDir: z.string().min(1, 'must name a directory').optional(),
  failFast: z.boolean().optional(),
  maxConsecutiveFailures: positiveInt.optional(),
  preRunCostUsd: z.number().nonnegative().finite().optional(),
  trackBestOutputs: z.boolean().optional(),
  executor: executorSchema.optional(),
  telemetry: z.boolean().optional(),
  stopWhen: stopWhenSchema.optional(),
  cacheEvaluation: z.union([z.literal(false), z.enum(CACHE_EVALUATIONS)], refusingValues([false, ...CACHE_EVALUATIONS])).optional(),
  cacheDir: z.string().min(1, 'must name a directory').optional(),
  // A name or a strategy object: checked with the hooks (checkHooks), which lists the names.
  reflectionStrategy: z.custom<OptimizeConfig<unknown>['reflectionStrategy']>(() => true).optional(),
  maxCandidateLength: positiveInt.optional(),
};

/** The user's stoppers as a list ([] without any). */
const stopperList = (stopWhen: Stopper | Stopper[] | undefined): Stopper[] => (stopWhen === undefined ? [] : Array.isArray(stopWhen) ? [...stopWhen] : [stopWhen]);

const settingsSchema = z
  .object(settingsFields)
  .refine(
    (c) =>
      c.maxMetricCalls !== undefined ||
      c.maxCostUsd !== undefined ||
      c.timeoutMs !== undefined ||
      c.targetScore !== undefined ||
      c.maxStepsWithoutImprovement !== undefined ||
      stopperList(c.stopWhen).length > 0,
    { message: 'at least one stop condition is required: maxMetricCalls, maxCostUsd, timeoutMs, targetScore, maxStepsWithoutImprovement or stopWhen' },
  );

/**
 * OptimizeConfig's fields that settingsFields does not check: functions, signals, the clock and
 * values passed through. Typed by the fields of OptimizeConfig missing from settingsFields, so tsc
 * names a field added to OptimizeConfig that neither lists (and one a schema field now covers).
 */
const UNCHECKED_FIELDS: Record<Exclude<keyof OptimizeConfig<unknown>, keyof typeof settingsFields>, true> = {
  adapter: true,
  reflectionLm: true,
  signal: true,
  inspect: true,
  clock: true,
  onEvent: true,
  callbacks: true,
  drainSignal: true,
  onSlotInterval: true,
  runIdentity: true,
  journal: true,
  reflectionPromptTemplate: true,
  proposeNewTexts: true,
  selectCandidate: true,
  selectComponents: true,
  sampleMinibatch: true,
};

/** Every field optimize() takes: the schema's, and the unchecked ones. */
const KNOWN_FIELDS: readonly string[] = [...Object.keys(settingsFields), ...Object.keys(UNCHECKED_FIELDS)];

/**
 * A JavaScript caller gets no type check: a field optimize() does not know (a typo, an option of
 * another library) is refused with the nearest known name rather than silently ignored.
 */
function checkKnownFields(config: unknown): void {
  // Not an object at all: the schema says so, naming what it expected.
  if (typeof config !== 'object' || config === null) return;
  const unknown = Object.entries(config).filter(([key, value]) => value !== undefined && !KNOWN_FIELDS.includes(key));
  if (unknown.length === 0) return;
  const problems = unknown.map(([key]) => {
    const near = closestName(key, KNOWN_FIELDS);
    return `${key}: unknown option (${near ? `did you mean "${near}"?` : 'check its spelling'})`;
  });
  throw new ConfigError(`invalid optimize config: ${problems.join('; ')}`);
}

/** The async schedule's default for stale children (measured in bench/README.md). */
export const DEFAULT_REBASE: RebasePolicy = 'best';
export const DEFAULT_REBASE_GATE: RebaseGate = 'where-it-helped';
export const DEFAULT_REBASE_WAIT: RebaseWait = 'launched-before';
export const DEFAULT_HELD_SLOT: HeldSlot = 'keep';
export const DEFAULT_SPECULATION: Speculation = 'none';
export const DEFAULT_PARENT_WEIGHTING: ParentWeighting = 'front';

export interface RunSettings {
  seedCandidate: Candidate;
  /** candidateHash(seedCandidate), computed once. */
  seedHash: string;
  componentNames: string[];
  maxMetricCalls?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
  targetScore?: number;
  maxStepsWithoutImprovement?: number;
  /**
   * Schedule 'auto' resolves to async with `auto: true`: its first shape from the rule's priors, changed as the run observes
   * (src/runtimeModel/autoSchedule.ts); `combinesFailures` when its proposals reflect with auto's 'combined' (autoCombinesFailures,
   * the config choosing no reflection of its own). Both are recorded in a run directory, so a resume reflects as the run began.
   */
  schedule: { kind: 'batched'; parents: number; perParent: number } | { kind: 'async'; inFlight: number; rebase: RebasePolicy; parentWeighting: ParentWeighting; rebaseGate: RebaseGate; rebaseWait: RebaseWait; heldSlot: HeldSlot; speculate: Speculation; perParent?: number; auto?: true; combinesFailures?: true };
  workers: number;
  minibatchSize: number;
  seed: number;
  frontType: FrontType;
  tieOrder: TieOrder;
  stepMinibatches: StepMinibatches;
  parentSelection: ParentSelectionStrategy;
  componentSelection: ComponentSelectionStrategy;
  acceptance: AcceptanceRule;
  proposalSelection: ProposalSelection;
  skipPerfectScore: boolean;
  perfectScore: number;
  maxMerges: number;
  slotPolicy: SlotPolicy;
  valsetPolicy: ValsetPolicy;
  failFast: boolean;
  maxConsecutiveFailures: number;
  /** The user's planning hooks, only those given. */
  hooks: PlanningHooks;
  trackBestOutputs: boolean;
  /** The user's stoppers, in the order given ([] without any); a run directory records only their names. */
  stopWhen: Stopper[];
  /** optimizeAnything's mode (set by it after validation); absent for optimize() runs. */
  searchMode?: SearchMode;
  /**
   * How evaluations are reused (`cacheEvaluation`, default 'memory'). It changes what a run pays
   * for, so a run directory records it and a resume must match; with optimizeAnything and `false`
   * the planner reserves a child's valset evaluation in full (no cache hit to count on).
   */
  cacheEvaluation: false | 'memory' | 'disk';
  /** The held-out selection set's size (`holdout`): its examples' calls are held from the budget, HOLDOUT_CANDIDATES each. */
  holdoutSize?: number;
  /** The 'disk' cache's folder (`cacheDir`). Recorded in a run directory, not compared; a resume that leaves it unset keeps the recorded one. */
  cacheDir?: string;
  /** Metric calls one evaluation may make: 1 + maxRefinements with optimizeAnything's refiner; default 1. */
  metricCallsPerEvaluation?: number;
  spendLastCalls: boolean;
  /** The most characters a proposed component text may have (maxCandidateLength); absent: no limit. */
  maxCandidateLength?: number;
}

/** A race's defaults: chunks of 10 examples, stop as soon as the child trails its parent. */
function resolveValsetPolicy(policy: 'full' | { kind: 'race'; chunk?: number; margin?: number } | undefined): ValsetPolicy {
  if (policy === undefined || policy === 'full') return 'full';
  return { kind: 'race', chunk: policy.chunk ?? 10, margin: policy.margin ?? 0 };
}

const HOOK_NAMES = ['proposeNewTexts', 'selectCandidate', 'selectComponents', 'sampleMinibatch'] as const;

/** `callbacks` is an array of objects whose methods are functions. Throws ConfigError. */
function checkCallbacks(callbacks: unknown): void {
  if (callbacks === undefined) return;
  if (!Array.isArray(callbacks)) throw new ConfigError('invalid optimize config: callbacks: must be an array of objects with gepa callback methods (onIterationEnd, ...)');
  callbacks.forEach((callback: unknown, i) => {
    if (typeof callback !== 'object' || callback === null) throw new ConfigError(`invalid optimize config: callbacks[${i}]: must be an object with gepa callback methods (onIterationEnd, ...)`);
    for (const [name, value] of Object.entries(callback)) {
      if (name.startsWith('on') && typeof value !== 'function') throw new ConfigError(`invalid optimize config: callbacks[${i}].${name}: must be a function`);
    }
  });
}

/** `'disk'` needs its folder, and a folder means `'disk'`. Throws ConfigError. */
function checkCache(cacheEvaluation: false | 'memory' | 'disk' | undefined, cacheDir: string | undefined, runIdentity: OptimizeConfig<unknown>['runIdentity']): void {
  if (cacheEvaluation === 'disk' && cacheDir === undefined) throw new ConfigError("invalid optimize config: cacheDir: required with cacheEvaluation 'disk' (the folder that keeps the evaluations)");
  if (cacheDir !== undefined && cacheEvaluation !== 'disk') throw new ConfigError("invalid optimize config: cacheDir: only used with cacheEvaluation 'disk'");
  // Evaluations on disk are served to later runs: only to runs that say they evaluate the same way.
  const { reflectionLm: _lm, ...adapterIdentity } = runIdentity ?? {};
  if (cacheEvaluation === 'disk' && Object.keys(adapterIdentity).length === 0) {
    throw new ConfigError("invalid optimize config: runIdentity: cacheEvaluation 'disk' needs the adapter's identity, e.g. runIdentity: { adapter: 'my-task@v1' }: evaluations on disk are served only to runs with the same one");
  }
}

/** The strategy hooks are functions; a string template holds both placeholders; the reflection strategy is one the run can have. Throws ConfigError. */
function checkHooks<Example>(config: OptimizeConfig<Example>): PlanningHooks {
  for (const name of HOOK_NAMES) {
    if (config[name] !== undefined && typeof config[name] !== 'function') throw new ConfigError(`invalid optimize config: ${name}: must be a function`);
  }
  const template: unknown = config.reflectionPromptTemplate;
  if (template !== undefined) {
    if (typeof template !== 'string' && typeof template !== 'function') throw new ConfigError('invalid optimize config: reflectionPromptTemplate: must be a string or a function');
    const problem = typeof template === 'string' ? templateProblem(template) : null;
    if (problem !== null) throw new ConfigError(`invalid optimize config: reflectionPromptTemplate: ${problem}`);
  }
  const strategy = chosenReflectionStrategy(config);
  if ('problem' in strategy) throw new ConfigError(`invalid optimize config: ${strategy.problem}`);
  const { selectCandidate, selectComponents, sampleMinibatch } = config;
  return { ...(selectCandidate ? { selectCandidate } : {}), ...(selectComponents ? { selectComponents } : {}), ...(sampleMinibatch ? { sampleMinibatch } : {}) };
}

/**
 * The schedule with its defaults. 'auto' is an async schedule at the async defaults whose first
 * shape and speculation are the rule's choice before anything is observed (autoDecision and
 * autoSpeculation from the slots, the budget and the valset; the run changes the shape as it observes).
 */
export function resolveSchedule(schedule: Schedule, run: { workers: number; budget?: number; valsetSize: number; minibatchSize: number; ownReflection?: boolean }): RunSettings['schedule'] {
  if (schedule.kind === 'batched') return { kind: 'batched', parents: schedule.parents ?? 1, perParent: schedule.perParent ?? 1 };
  const asyncDefaults = { rebase: DEFAULT_REBASE, parentWeighting: DEFAULT_PARENT_WEIGHTING, rebaseGate: DEFAULT_REBASE_GATE, rebaseWait: DEFAULT_REBASE_WAIT, heldSlot: DEFAULT_HELD_SLOT, speculate: DEFAULT_SPECULATION };
  if (schedule.kind === 'auto') {
    const view = autoViewOf(startAutoWatch(), run);
    const speculate = autoSpeculation(view);
    const { shape } = autoDecision({ ...view, speculate });
    const combines = autoCombinesFailures(speculate) && run.ownReflection !== true;
    return { kind: 'async', ...asyncDefaults, inFlight: shape.inFlight, heldSlot: shape.heldSlot, speculate, auto: true, ...(combines ? { combinesFailures: true as const } : {}) };
  }
  return {
    kind: 'async',
    inFlight: schedule.inFlight,
    rebase: schedule.rebase ?? asyncDefaults.rebase,
    parentWeighting: schedule.parentWeighting ?? asyncDefaults.parentWeighting,
    rebaseGate: schedule.rebaseGate ?? asyncDefaults.rebaseGate,
    rebaseWait: schedule.rebaseWait ?? asyncDefaults.rebaseWait,
    heldSlot: schedule.heldSlot ?? asyncDefaults.heldSlot,
    speculate: schedule.speculate ?? asyncDefaults.speculate,
    // Absent at 1 (the default): a run directory's recorded schedule stays as it was before N existed.
    ...(schedule.perParent !== undefined && schedule.perParent > 1 ? { perParent: schedule.perParent } : {}),
  };
}

/** `seedHash`: candidateHash(config.seedCandidate) when the caller has it already. */
export function resolveSettings<Example>(config: OptimizeConfig<Example>, seedHash?: string): RunSettings {
  checkKnownFields(config);
  const parsed = settingsSchema.safeParse(config);
  if (!parsed.success) throw new ConfigError(`invalid optimize config: ${formatZodError(parsed.error)}`);
  const adapter = config.adapter as Adapter<Example> | undefined;
  if (!adapter || typeof adapter.evaluate !== 'function') throw new ConfigError('invalid optimize config: adapter: must have an evaluate(candidate, example, ctx) function');
  if (typeof config.reflectionLm !== 'function' && typeof config.reflectionLm !== 'string') {
    throw new ConfigError('invalid optimize config: reflectionLm: must be a function, an "openai:<model>" or a "local:<path to a .gguf>" string');
  }
  const hooks = checkHooks(config);
  checkCallbacks(config.callbacks);
  const c = parsed.data;
  checkCache(c.cacheEvaluation, c.cacheDir, config.runIdentity);
  const schedule = c.schedule ?? { kind: 'batched' as const };
  const valsetSize = (config.valset ?? config.trainset).length;
  const workers = c.workers ?? 8;
  const minibatchSize = c.reflectionMinibatchSize ?? 3;
  if (c.maxMetricCalls !== undefined && c.maxMetricCalls < valsetSize) {
    throw new ConfigError(`invalid optimize config: maxMetricCalls: ${c.maxMetricCalls} cannot pay for evaluating the seed on the valset (${valsetSize} examples)`);
  }
  const held = c.holdout === undefined ? 0 : holdoutCalls(c.holdout.length);
  if (c.maxMetricCalls !== undefined && c.maxMetricCalls < valsetSize + held) {
    throw new ConfigError(
      `invalid optimize config: holdout: maxMetricCalls ${c.maxMetricCalls} cannot pay for the seed's valset evaluation (${valsetSize} calls) and scoring ${HOLDOUT_CANDIDATES} candidates on the holdout set (${held} calls)`,
    );
  }
  return {
    seedCandidate: config.seedCandidate,
    seedHash: seedHash ?? candidateHash(config.seedCandidate),
    componentNames: Object.keys(config.seedCandidate),
    maxMetricCalls: c.maxMetricCalls,
    maxCostUsd: c.maxCostUsd,
    timeoutMs: c.timeoutMs,
    targetScore: c.targetScore,
    maxStepsWithoutImprovement: c.maxStepsWithoutImprovement,
    schedule: resolveSchedule(schedule, { workers, budget: c.maxMetricCalls, valsetSize, minibatchSize, ownReflection: choosesReflection(config) }),
    workers,
    minibatchSize,
    seed: c.seed ?? 0,
    frontType: c.frontType ?? 'instance',
    tieOrder: c.tieOrder ?? defaultTieOrder(schedule.kind === 'auto' ? 'async' : schedule.kind),
    stepMinibatches: c.stepMinibatches ?? defaultStepMinibatches(schedule.kind === 'auto' ? 'async' : schedule.kind),
    parentSelection: c.parentSelection ?? 'pareto',
    componentSelection: c.componentSelection ?? 'round-robin',
    acceptance: c.acceptance ?? 'strict-improvement',
    proposalSelection: c.proposalSelection ?? 'all',
    skipPerfectScore: c.skipPerfectScore ?? true,
    perfectScore: c.perfectScore ?? 1,
    maxMerges: c.merge ? (c.merge.maxMerges ?? 5) : 0,
    slotPolicy: c.slotPolicy ?? 'finish-first',
    valsetPolicy: resolveValsetPolicy(c.valsetPolicy),
    failFast: c.failFast ?? false,
    maxConsecutiveFailures: c.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_FAILURES,
    hooks,
    trackBestOutputs: c.trackBestOutputs ?? false,
    stopWhen: stopperList(c.stopWhen),
    spendLastCalls: c.spendLastCalls ?? true,
    cacheEvaluation: c.cacheEvaluation ?? 'memory',
    ...(c.cacheDir !== undefined ? { cacheDir: c.cacheDir } : {}),
    ...(c.holdout !== undefined ? { holdoutSize: c.holdout.length } : {}),
    ...(c.maxCandidateLength === undefined ? {} : { maxCandidateLength: c.maxCandidateLength }),
  };
}
