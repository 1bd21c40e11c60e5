// The values of every enumerated run setting, each written once: the types (re-exported by
// the package entries: 'gepa-actors' and 'gepa-actors/settings') derive from these lists, and the config schema
// (src/config/runSettings.ts) validates against the same lists. Imports nothing.

/** Every RebaseGate, in one list: the config schema validates against it. */
export const REBASE_GATES = ['where-it-helped', 'whole-minibatch'] as const;
/**
 * Async with rebasing: where the rebased child must beat the candidate it was rebased onto before
 * a valset evaluation is paid for. 'where-it-helped' (default): on the minibatch examples where
 * the child beat its own parent, the ones its edit showed an effect on. 'whole-minibatch': on all
 * of its minibatch (see docs/schedules.md, and bench/README.md for the measurements).
 * @useDeclaredType
 */
export type RebaseGate = (typeof REBASE_GATES)[number];

/** Every RebaseWait, in one list: the config schema validates against it. */
export const REBASE_WAITS = ['launched-before', 'ahead-in-flight', 'valsets-in-flight', 'none'] as const;
/**
 * Async with rebasing: when a child that passed its minibatch gate is told whether to rebase.
 * 'launched-before' (the default): after every proposal launched before it that is still in
 * flight has finished, so children are decided in the order they were launched, each against a
 * pool that holds the outcome of every earlier proposal. 'none': at once. 'valsets-in-flight': after the valset evaluations in flight at that moment
 * have joined the pool, so a child is rebased onto a candidate that was about to join instead of
 * joining beside it. 'ahead-in-flight': after those and the rebase gates in flight (children
 * rebased a moment earlier, often with the same edit) (see docs/schedules.md, and
 * bench/README.md for the measurements).
 * @useDeclaredType
 */
export type RebaseWait = (typeof REBASE_WAITS)[number];

/** Every RebasePolicy, in one list: the config schema validates against it. */
export const REBASE_POLICIES = ['off', 'newest-descendant', 'best-descendant', 'best', 'pool-best'] as const;
/** Every HeldSlot, in one list: the config schema validates against it. */
export const HELD_SLOTS = ['keep', 'free', 'free-early'] as const;
/**
 * Async with `rebaseWait` other than 'none': what a child held by the wait does with its place
 * among the `inFlight` proposals. 'keep' (the default): it keeps it, so no new proposal starts
 * while it waits. 'free': it gives it up while it waits, so another proposal's reflection and
 * minibatch evaluation overlap the wait, up to twice `inFlight` proposals in all (see
 * bench/README.md, "A fifth round", for the measurements). 'free-early': 'free' while the calls
 * left still pay for enough generations of proposals at that doubled width, 'keep' from then on
 * (docs/async-launch-order.md; bench/README.md, "A sixth round").
 * @useDeclaredType
 */
export type HeldSlot = (typeof HELD_SLOTS)[number];

/** Every Speculation, in one list: the config schema validates against it. */
export const SPECULATIONS = ['none', 'rebase-gate'] as const;
/**
 * Async with rebasing and `rebaseWait: 'launched-before'`: work done ahead of a held child's
 * verdict. 'none' (the default): nothing. 'rebase-gate': while it waits for one older proposal
 * that is on its valset, its proposer evaluates both gates it may face: rebased onto that
 * proposal's child, and rebased onto the target it has now. The verdict, still decided in launch
 * order, asks for one of them (or neither), served from the run's evaluation cache; the other's
 * calls (at most twice the minibatch) were spent for nothing (bench/README.md, "A fifth round").
 * @useDeclaredType
 */
export type Speculation = (typeof SPECULATIONS)[number];

/**
 * Async: onto which newer candidate a stale child's edit is replayed, when candidates joined the
 * pool while it ran. 'best' (the default): the best-scoring of those that joined (unless it is
 * the child's own parent or an ancestor of it); 'newest-descendant' / 'best-descendant': the
 * newest / best of the parent's descendants among them; 'pool-best': the pool's best whenever
 * the parent is not it, joined meanwhile or not (also with one proposal in flight, so it changes
 * GEPA's selection, not only staleness); 'off': the child is judged as it is.
 * @useDeclaredType
 */
export type RebasePolicy = (typeof REBASE_POLICIES)[number];

/** Every ParentWeighting, in one list: the config schema validates against it. */
export const PARENT_WEIGHTINGS = ['front', 'in-flight'] as const;
/**
 * Async parent choice: 'front' draws as GEPA does (frequency-weighted Pareto sampling);
 * 'in-flight' divides each candidate's weight by 1 + its proposals in flight.
 * @useDeclaredType
 */
export type ParentWeighting = (typeof PARENT_WEIGHTINGS)[number];

/** Every FrontType, in one list: the config schema validates against it. */
export const FRONT_TYPES = ['instance', 'objective', 'hybrid', 'cartesian'] as const;
/**
 * What the Pareto fronts are kept over (gepa's frontier_type): 'instance', per valset example;
 * 'objective', per objective of Evaluation.objectives; 'hybrid', both; 'cartesian', per example
 * and objective.
 * @useDeclaredType
 */
export type FrontType = (typeof FRONT_TYPES)[number];

/** Every TieOrder, in one list: the config schema validates against it. */
export const TIE_ORDERS = ['reference', 'newest-survives', 'oldest-survives'] as const;
/**
 * Dominated removal tries candidates in ascending mean score; among equal means, which is tried
 * (and removed) first. 'reference' is gepa 0.1.4's exact order: the order the candidates are
 * first met scanning the fronts by valset example, each front in the order Python iterates its
 * set (nearly always the older first). 'newest-survives' tries the older first (so a child that
 * scores exactly like its parent replaces it on the fronts); 'oldest-survives' tries the newer
 * first (the parent stays).
 * Default: 'reference' for batched steps, 'oldest-survives' for async.
 * @useDeclaredType
 */
export type TieOrder = (typeof TIE_ORDERS)[number];

/** Every StepMinibatches, in one list: the config schema validates against it. */
export const STEP_MINIBATCHES = ['fresh', 'sliding'] as const;
/**
 * Which minibatches the tasks of one batched step reflect on. 'fresh': each task takes the next
 * chunk of the epoch order, so a P x N step moves P x N chunks on. 'sliding', the reference's
 * rule: the epoch moves one chunk a step and task j takes the j-th chunk after the step's first,
 * so consecutive steps share all but one minibatch.
 * Default: 'sliding' for batched steps, 'fresh' for async.
 * @useDeclaredType
 */
export type StepMinibatches = (typeof STEP_MINIBATCHES)[number];

/** Every ParentSelectionStrategy, in one list: the config schema validates against it. */
export const PARENT_SELECTIONS = ['pareto', 'current-best', 'epsilon-greedy'] as const;
/**
 * How a parent is drawn: 'pareto', frequency-weighted from the Pareto fronts (GEPA's rule);
 * 'current-best', the best mean; 'epsilon-greedy', the best except for a random pick now and then.
 * @useDeclaredType
 */
export type ParentSelectionStrategy = (typeof PARENT_SELECTIONS)[number];

/** Every ComponentSelectionStrategy, in one list: the config schema validates against it. */
export const COMPONENT_SELECTIONS = ['round-robin', 'all'] as const;
/**
 * Which components a proposal rewrites: 'round-robin', one at a time in turn per candidate; 'all', every one.
 * @useDeclaredType
 */
export type ComponentSelectionStrategy = (typeof COMPONENT_SELECTIONS)[number];

/** Every AcceptanceRule, in one list: the config schema validates against it. */
export const ACCEPTANCE_RULES = ['strict-improvement', 'improvement-or-equal'] as const;
/**
 * When a child passes its minibatch gate: its minibatch sum above the parent's ('strict-improvement'), or not below it.
 * @useDeclaredType
 */
export type AcceptanceRule = (typeof ACCEPTANCE_RULES)[number];

/** Every SlotPolicy, in one list (see machines/README.md): the config schema validates against it. */
export const SLOT_POLICIES = ['finish-first', 'start-first', 'fifo'] as const;
/**
 * Which queued work takes a free worker slot: 'finish-first' (default), work that unblocks a
 * decision (valset, child evaluations) first; 'start-first', work that leads to a long call (a
 * parent evaluation leads to a reflection) first; 'fifo', in arrival order.
 * @useDeclaredType
 */
export type SlotPolicy = (typeof SLOT_POLICIES)[number];

/** What the worker slots are kept busy with (docs/schedules.md). Default { kind: 'batched' }, 1 x 1: classic GEPA. */
export type Schedule =
  /** The paper's P x N (parents x perParent); 1 x 1 is classic GEPA. */
  | {
      /** Steps of P x N proposals folded at the step's end: the same result for a seed whatever `workers` is. */
      kind: 'batched';
      /** P, the parents drawn per step. Default 1. */
      parents?: number;
      /** N, the proposals per parent in a step. Default 1. */
      perParent?: number;
    }
  /**
   * K proposals always in flight, no step barrier. `rebase`: what a child whose parent moved on
   * while it ran is judged as (see docs/schedules.md).
   */
  | {
      /** No step barrier: each result is folded as it arrives and a new proposal takes its place. */
      kind: 'async';
      /** K, proposals in flight. */
      inFlight: number;
      /** Onto which newer candidate a stale child's edit is replayed. Default 'best'. */
      rebase?: RebasePolicy;
      /** How parents are drawn. Default 'front'. */
      parentWeighting?: ParentWeighting;
      /** Where a rebased child must beat its new base. Default 'where-it-helped'. */
      rebaseGate?: RebaseGate;
      /** When a rebase is decided. Default 'launched-before'. */
      rebaseWait?: RebaseWait;
      /** What a child held by the wait does with its place among the inFlight proposals. Default 'keep'. */
      heldSlot?: HeldSlot;
      /** Work done ahead of a held child's verdict. Default 'none'. */
      speculate?: Speculation;
      /**
       * N, the children made from one parent evaluation (docs/schedules.md, "Several children per
       * parent"): a launch draws one parent and minibatch, evaluates the parent once and reflects N
       * times on it; each child is its own proposal, counted against `inFlight`. Default 1.
       */
      perParent?: number;
    }
  /**
   * The runtime chooses the shape and adapts it as the run goes: an async schedule whose in-flight
   * count and held-slot rule follow src/runtimeModel/autoSchedule.ts from the worker slots, the
   * budget, the valset and the latencies it observes, and with slots to spare held children
   * evaluate their rebase gates ahead and, unless the config chooses how to reflect, reflections
   * read other proposals' failures (docs/schedules.md, "auto"). Every choice is a
   * `schedule.decided` run event and a line of the report.
   */
  | {
      /** The runtime chooses. */
      kind: 'auto';
    };

/** Which of a step's accepted proposals go on to the valset. */
export const PROPOSAL_SELECTIONS = ['all', 'best'] as const;
/**
 * Which of a step's accepted children go on to the valset: 'all' (default), 'best' (the best
 * accepted child of the step), or { topK } (the K best).
 * @useDeclaredType
 */
export type ProposalSelection =
  | (typeof PROPOSAL_SELECTIONS)[number]
  | {
      /** How many of the best accepted children go on. */
      topK: number;
    };

/**
 * How much of the valset an accepted child is evaluated on: all of it ('full', GEPA's rule), or a
 * race in chunks of `chunk` examples that stops once the child trails its parent by more than
 * `margin` and has beaten the pool's best on none of the examples seen (it then stays out of the pool).
 */
export type ValsetPolicy =
  | 'full'
  | {
      /** Evaluate in chunks and stop a child that trails its parent. */
      kind: 'race';
      /** Examples per chunk. */
      chunk: number;
      /** How far (mean score) the child may trail its parent before it is stopped. */
      margin: number;
    };

/** Every SearchMode, in one list. */
export const SEARCH_MODES = ['single-task', 'multi-task', 'generalization'] as const;
/**
 * optimizeAnything's mode, chosen from the data as gepa chooses it: 'single-task' (no dataset:
 * one task, the evaluator called without an example), 'multi-task' (a dataset, which is also the
 * valset), 'generalization' (a dataset and a valset). optimize() runs have none.
 * @useDeclaredType
 */
export type SearchMode = (typeof SEARCH_MODES)[number];

/** Every Schedule kind, in one list: the config schema refuses another naming them. */
export const SCHEDULE_KINDS = ['batched', 'async', 'auto'] as const satisfies ReadonlyArray<Schedule['kind']>;

/** Where metric calls may run (OptimizeConfig.executor's kind), in one list: the config schema refuses another naming them. */
export const EXECUTOR_KINDS = ['local', 'bullmq'] as const;

/** The caches cacheEvaluation names besides false (no reuse), in one list: the config schema refuses another naming them. */
export const CACHE_EVALUATIONS = ['memory', 'disk'] as const;
