// The values of every enumerated run setting, each written once: the types (re-exported by
// src/types.ts, the public vocabulary) derive from these lists, and the config schema
// (src/config/runSettings.ts) validates against the same lists. Imports nothing.

/**
 * Async with rebasing: where the rebased child must beat the candidate it was rebased onto before
 * a valset evaluation is paid for. 'where-it-helped' (default): on the minibatch examples where
 * the child beat its own parent, the ones its edit showed an effect on. 'whole-minibatch': on all
 * of its minibatch (see README, "Schedules", and bench/README.md for the measurements).
 */
export const REBASE_GATES = ['where-it-helped', 'whole-minibatch'] as const;
export type RebaseGate = (typeof REBASE_GATES)[number];

/**
 * Async with rebasing: when a child that passed its minibatch gate is told whether to rebase.
 * 'launched-before' (the default): after every proposal launched before it that is still in
 * flight has finished, so children are decided in the order they were launched, each against a
 * pool that holds the outcome of every earlier proposal. 'none': at once. 'valsets-in-flight': after the valset evaluations in flight at that moment
 * have joined the pool, so a child is rebased onto a candidate that was about to join instead of
 * joining beside it. 'ahead-in-flight': after those and the rebase gates in flight (children
 * rebased a moment earlier, often with the same edit) (see README, "Schedules", and
 * bench/README.md for the measurements).
 */
export const REBASE_WAITS = ['launched-before', 'ahead-in-flight', 'valsets-in-flight', 'none'] as const;
export type RebaseWait = (typeof REBASE_WAITS)[number];

/**
 * Async with `rebaseWait` other than 'none': what a child held by the wait does with its place
 * among the `inFlight` proposals. 'keep' (the default): it keeps it, so no new proposal starts
 * while it waits. 'free': it gives it up while it waits, so another proposal's reflection and
 * minibatch evaluation overlap the wait, up to twice `inFlight` proposals in all (see
 * bench/README.md, "A fifth round", for the measurements).
 */
export const HELD_SLOTS = ['keep', 'free'] as const;
export type HeldSlot = (typeof HELD_SLOTS)[number];

/**
 * Async with rebasing and `rebaseWait: 'launched-before'`: work done ahead of a held child's
 * verdict. 'none' (the default): nothing. 'rebase-gate': while it waits for one older proposal
 * that is on its valset, its proposer evaluates the gate it would face if rebased onto that
 * proposal's child; when the verdict, still decided in launch order, is that rebase, the gate is
 * served from the run's evaluation cache, else those calls (at most twice the minibatch) were
 * spent for nothing (see bench/README.md, "A fifth round").
 */
export const SPECULATIONS = ['none', 'rebase-gate'] as const;
export type Speculation = (typeof SPECULATIONS)[number];

/**
 * Async: onto which newer candidate a stale child's edit is replayed, when candidates joined the
 * pool while it ran. 'best' (the default): the best-scoring of those that joined (unless it is
 * the child's own parent or an ancestor of it); 'newest-descendant' / 'best-descendant': the
 * newest / best of the parent's descendants among them; 'pool-best': the pool's best whenever
 * the parent is not it, joined meanwhile or not (also with one proposal in flight, so it changes
 * GEPA's selection, not only staleness); 'off': the child is judged as it is.
 */
export const REBASE_POLICIES = ['off', 'newest-descendant', 'best-descendant', 'best', 'pool-best'] as const;
export type RebasePolicy = (typeof REBASE_POLICIES)[number];

/**
 * Async parent choice: 'front' draws as GEPA does (frequency-weighted Pareto sampling);
 * 'in-flight' divides each candidate's weight by 1 + its proposals in flight.
 */
export const PARENT_WEIGHTINGS = ['front', 'in-flight'] as const;
export type ParentWeighting = (typeof PARENT_WEIGHTINGS)[number];

export const FRONT_TYPES = ['instance', 'objective', 'hybrid', 'cartesian'] as const;
export type FrontType = (typeof FRONT_TYPES)[number];

/**
 * Dominated removal tries candidates in ascending mean score; among equal means, which is tried
 * (and removed) first. 'reference' is gepa 0.1.4's exact order: the order the candidates are
 * first met scanning the fronts by valset example, each front in the order Python iterates its
 * set (nearly always the older first). 'newest-survives' tries the older first (so a child that
 * scores exactly like its parent replaces it on the fronts); 'oldest-survives' tries the newer
 * first (the parent stays).
 */
export const TIE_ORDERS = ['reference', 'newest-survives', 'oldest-survives'] as const;
export type TieOrder = (typeof TIE_ORDERS)[number];

/**
 * Which minibatches the tasks of one batched step reflect on. 'fresh': each task takes the next
 * chunk of the epoch order, so a P x N step moves P x N chunks on. 'sliding', the reference's
 * rule: the epoch moves one chunk a step and task j takes the j-th chunk after the step's first,
 * so consecutive steps share all but one minibatch.
 */
export const STEP_MINIBATCHES = ['fresh', 'sliding'] as const;
export type StepMinibatches = (typeof STEP_MINIBATCHES)[number];

export const PARENT_SELECTIONS = ['pareto', 'current-best', 'epsilon-greedy'] as const;
export type ParentSelectionStrategy = (typeof PARENT_SELECTIONS)[number];

export const COMPONENT_SELECTIONS = ['round-robin', 'all'] as const;
export type ComponentSelectionStrategy = (typeof COMPONENT_SELECTIONS)[number];

export const ACCEPTANCE_RULES = ['strict-improvement', 'improvement-or-equal'] as const;
export type AcceptanceRule = (typeof ACCEPTANCE_RULES)[number];

/** Order in which queued work takes free worker slots (see machines/README.md). */
export const SLOT_POLICIES = ['finish-first', 'start-first', 'fifo'] as const;
export type SlotPolicy = (typeof SLOT_POLICIES)[number];

export type Schedule =
  /** The paper's P x N; default 1 x 1 = classic GEPA. */
  | { kind: 'batched'; parents?: number; perParent?: number }
  /**
   * K proposals always in flight, no step barrier. `rebase`: what a child whose parent moved on
   * while it ran is judged as (see README, "Schedules").
   */
  | { kind: 'async'; inFlight: number; rebase?: RebasePolicy; parentWeighting?: ParentWeighting; rebaseGate?: RebaseGate; rebaseWait?: RebaseWait; heldSlot?: HeldSlot; speculate?: Speculation };

/** Which of a step's accepted proposals go on to the valset. */
export const PROPOSAL_SELECTIONS = ['all', 'best'] as const;
export type ProposalSelection = (typeof PROPOSAL_SELECTIONS)[number] | { topK: number };

/**
 * How much of the valset an accepted child is evaluated on: all of it ('full', GEPA's rule), or a
 * race in chunks of `chunk` examples that stops once the child trails its parent by more than
 * `margin` and has beaten the pool's best on none of the examples seen (it then stays out of the pool).
 */
export type ValsetPolicy = 'full' | { kind: 'race'; chunk: number; margin: number };
