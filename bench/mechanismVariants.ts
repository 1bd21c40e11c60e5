// The async issue's variants, by name (one table read by bench/mechanisms.ts and
// bench/promptAnatomy.ts), and the real-time workload they run on in simulated time.
import type { BenchSetting, Workload } from './benchTask.js';
import { windowedMinibatches } from './windowedMinibatches.js';

// The tie order and a batched step's minibatches are pinned to what every stored run was measured
// with: the batched defaults became 'newest-survives' (the reference issue), then 'reference' and
// 'sliding' (issue 32) after them; the async defaults are still these.
export const WORKLOAD: Workload = { metricCallMs: 20, reflectionMs: 100, workers: 16, budget: 1500, trainSize: 60, valSize: 30, testSize: 60, simulated: true, tieOrder: 'oldest-survives', stepMinibatches: 'fresh' };

const race = { valsetPolicy: { kind: 'race', chunk: 10, margin: 0 } } as const;

/** Every variant tried, by name: the reference schedules and each mechanism alone and combined. */
/**
 * Every variant fixes its rebase gate and its wait: those measured before the 'where-it-helped'
 * gate existed judged a rebased child on its whole minibatch, and those measured before
 * `schedule.rebaseWait` existed decided a rebase at once ('none').
 */
export const VARIANTS: Record<string, Omit<BenchSetting, 'label'> & { about: string }> = {
  single: { schedule: { kind: 'batched', parents: 1, perParent: 1 }, about: 'classic GEPA, one proposal at a time' },
  '2x1': { schedule: { kind: 'batched', parents: 2, perParent: 1 }, about: 'the paper, 2 parents x 1' },
  '2x2': { schedule: { kind: 'batched', parents: 2, perParent: 2 }, about: 'the paper, 2 parents x 2' },
  '4x1': { schedule: { kind: 'batched', parents: 4, perParent: 1 }, about: 'the paper, 4 parents x 1' },
  '2x4': { schedule: { kind: 'batched', parents: 2, perParent: 4 }, about: 'the paper, 2 parents x 4' },
  '8x1': { schedule: { kind: 'batched', parents: 8, perParent: 1 }, about: 'the paper, 8 parents x 1' },
  '4x4': { schedule: { kind: 'batched', parents: 4, perParent: 4 }, about: 'the paper, 4 parents x 4' },
  'async 8': { schedule: { kind: 'async', inFlight: 8, rebase: 'off', rebaseWait: 'none' }, about: 'no mechanism' },
  'async 8 rebase newest-descendant': { schedule: { kind: 'async', inFlight: 8, rebase: 'newest-descendant', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: "rebase onto the parent's newest descendant" },
  'async 8 rebase best-descendant': { schedule: { kind: 'async', inFlight: 8, rebase: 'best-descendant', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: "rebase onto the parent's best descendant" },
  'async 8 rebase best': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: 'rebase onto the best of the candidates that joined since the parent was drawn' },
  'async 4 rebase best': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: 'the same, K = 4' },
  'async 16 rebase best': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: 'the same, K = 16' },
  'async 8 rebase best current-best': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { parentSelection: 'current-best' }, about: 'rebase onto the best, parents drawn as the current best (not from the Pareto front)' },
  'single current-best': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { parentSelection: 'current-best' }, about: 'classic GEPA with current-best parents' },
  'async 8 rebase best epsilon-greedy': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { parentSelection: 'epsilon-greedy' }, about: 'rebase onto the best, epsilon-greedy parents' },
  'single epsilon-greedy': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { parentSelection: 'epsilon-greedy' }, about: 'classic GEPA with epsilon-greedy parents' },
  'async 8 rebase best b4': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { reflectionMinibatchSize: 4 }, about: 'rebase onto the best, reflection minibatch of 4 (spare slots spent inside proposals)' },
  'async 8 rebase best b5': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { reflectionMinibatchSize: 5 }, about: 'rebase onto the best, reflection minibatch of 5 (spare slots spent inside proposals)' },
  'async 8 rebase best b6': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { reflectionMinibatchSize: 6 }, about: 'rebase onto the best, reflection minibatch of 6 (spare slots spent inside proposals)' },
  'async 4 rebase best b6': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { reflectionMinibatchSize: 6 }, about: 'K = 4 with a reflection minibatch of 6' },
  'async 8 rebase pool-best': { schedule: { kind: 'async', inFlight: 8, rebase: 'pool-best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: "rebase every child whose parent is not the pool's best onto that best, whether it joined while the child ran or not" },
  'async 8 rebase best where-it-helped': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: 'rebase onto the best; the rebase gate only on the minibatch examples where the child beat its own parent' },
  'async 4 rebase best where-it-helped': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: 'the rebase gate where it helped, K = 4' },
  'async 16 rebase best where-it-helped': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: 'the rebase gate where it helped, K = 16' },
  'async 8 rebase pool-best where-it-helped': { schedule: { kind: 'async', inFlight: 8, rebase: 'pool-best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: "rebase onto the pool's best, the gate where it helped" },
  'async 8 rebase best where-it-helped in-flight': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', parentWeighting: 'in-flight', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: 'the rebase gate where it helped, and in-flight parent weights' },
  'async 8 rebase best where-it-helped race': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, options: race, about: 'the rebase gate where it helped, and the valset race' },
  'async 8 rebase best-descendant where-it-helped': { schedule: { kind: 'async', inFlight: 8, rebase: 'best-descendant', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: "rebase onto the parent's best descendant, the gate where it helped" },
  'async 1 rebase pool-best where-it-helped': { schedule: { kind: 'async', inFlight: 1, rebase: 'pool-best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, about: "the sequential loop with every child of a non-best parent rebased onto the pool's best, the gate where it helped" },
  'async 8 rebase best 1580 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: { maxMetricCalls: 1580 }, about: "the whole-minibatch gate given the 80 calls a run's 'where-it-helped' gates save: is the gain the calls or the verdict?" },
  'async 1': { schedule: { kind: 'async', inFlight: 1, rebase: 'off', rebaseWait: 'none' }, about: 'one proposal in flight: the sequential loop run by the async schedule' },
  'async 1 rebase pool-best': { schedule: { kind: 'async', inFlight: 1, rebase: 'pool-best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: "the sequential loop with every child of a non-best parent rebased onto the pool's best: is pool-best a staleness fix or a selection rule?" },
  'single 1350 calls': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { maxMetricCalls: 1350 }, about: 'classic GEPA with 10% less budget: what 150 calls are worth' },
  'single 1650 calls': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { maxMetricCalls: 1650 }, about: 'classic GEPA with 10% more budget' },
  'async 8 in-flight': { schedule: { kind: 'async', inFlight: 8, rebase: 'off', parentWeighting: 'in-flight', rebaseWait: 'none' }, about: 'parent weight 1 / (1 + children in flight)' },
  'async 8 rebase best in-flight': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', parentWeighting: 'in-flight', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, about: 'rebase onto the best, and in-flight parent weighting' },
  'single race': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: race, about: 'valset race (chunks of 10, margin 0)' },
  '4x1 race': { schedule: { kind: 'batched', parents: 4, perParent: 1 }, options: race, about: 'valset race' },
  'async 8 race': { schedule: { kind: 'async', inFlight: 8, rebase: 'off', rebaseWait: 'none' }, options: race, about: 'valset race alone' },
  'single newest-survives': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { tieOrder: 'newest-survives' }, about: "classic GEPA, dominated removal's ties as the reference breaks them (the reference issue)" },
  'async 8 rebase best where-it-helped newest-survives': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, options: { tieOrder: 'newest-survives' }, about: "the async default, dominated removal's ties as the reference breaks them" },
  'single 750 calls': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { maxMetricCalls: 750 }, about: 'classic GEPA with half the budget: a search still climbing when it ends' },
  'async 8 rebase best where-it-helped 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, options: { maxMetricCalls: 750 }, about: 'the async default with half the budget' },
  'async 4 rebase best where-it-helped 750 calls': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, options: { maxMetricCalls: 750 }, about: 'the async default at K = 4 with half the budget' },
  'async 8 rebase best where-it-helped wait': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'valsets-in-flight' }, about: 'the async default, and a child that passed its gate waits for the valset evaluations in flight before its rebase is decided' },
  'async 8 rebase best where-it-helped wait 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'valsets-in-flight' }, options: { maxMetricCalls: 750 }, about: 'the wait for valsets in flight, half the budget' },
  'async 8 rebase best where-it-helped wait-ahead': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, about: 'the async default; a child that passed its gate waits for the valset evaluations and rebase gates in flight' },
  'async 8 rebase best where-it-helped wait-ahead 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, options: { maxMetricCalls: 750 }, about: 'the same, half the budget' },
  'async 4 rebase best where-it-helped wait-ahead': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, about: 'the wait for the valsets and rebase gates in flight, K = 4' },
  'async 16 rebase best where-it-helped wait-ahead': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, about: 'the wait for the valsets and rebase gates in flight, K = 16' },
  'async 16 rebase best where-it-helped wait-ahead 750 calls': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, options: { maxMetricCalls: 750 }, about: 'the same, K = 16, half the budget' },
  'async 8 rebase best where-it-helped wait-launched': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, about: 'a child that passed its gate waits for every proposal launched before it that is still in flight: decisions in launch order' },
  'async 8 rebase best where-it-helped wait-launched 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 750 }, about: 'the same, half the budget' },
  'async 4 rebase best where-it-helped wait-ahead 750 calls': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, options: { maxMetricCalls: 750 }, about: 'the wait for the valsets and rebase gates in flight, K = 4, half the budget' },
  'single 500 calls': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { maxMetricCalls: 500 }, about: 'classic GEPA with a third of the budget' },
  'async 8 rebase best where-it-helped wait-ahead 500 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, options: { maxMetricCalls: 500 }, about: 'the async default, a third of the budget' },
  'async 4 rebase best where-it-helped wait-ahead 500 calls': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'ahead-in-flight' }, options: { maxMetricCalls: 500 }, about: 'the async default at K = 4, a third of the budget' },
  'async 4 rebase best where-it-helped wait-launched': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, about: 'decisions in launch order, K = 4' },
  'async 16 rebase best where-it-helped wait-launched': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, about: 'decisions in launch order, K = 16' },
  'async 16 rebase best where-it-helped wait-launched 750 calls': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 750 }, about: 'decisions in launch order, K = 16, half the budget' },
  'async 8 rebase best where-it-helped wait-launched 500 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 500 }, about: 'decisions in launch order, a third of the budget' },
  'async 16 rebase best where-it-helped wait-launched 500 calls': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 500 }, about: 'decisions in launch order, K = 16, a third of the budget' },
  'single 300 calls': { schedule: { kind: 'batched', parents: 1, perParent: 1 }, options: { maxMetricCalls: 300 }, about: 'classic GEPA with a fifth of the budget' },
  'async 8 rebase best where-it-helped wait-launched 300 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 300 }, about: 'decisions in launch order, a fifth of the budget' },
  'async 4 rebase best where-it-helped wait-launched 300 calls': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' }, options: { maxMetricCalls: 300 }, about: 'decisions in launch order, K = 4, a fifth of the budget' },
  'async 8 rebase best where-it-helped windowed': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'none' }, options: { sampleMinibatch: windowedMinibatches(8) }, about: "the async default with the closest equivalent of sliding minibatches: windows of K = 8 proposals, proposal j of window w on chunk w + j (issue 32)" },
  'async 8 wait-launched free-slot': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, about: "decisions in launch order; a held child gives its place to a new proposal (heldSlot 'free', at most 2K in flight)" },
  'async 8 wait-launched free-slot ceiling 4': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, about: "heldSlot 'free' with a ceiling of 4 x inFlight (HELD_SLOT_CEILING set to 4 for this run)" },
  'async 8 wait-launched free-slot ceiling 1.5': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, about: "heldSlot 'free' with a ceiling of 1.5 x inFlight (HELD_SLOT_CEILING set to 1.5 for this run)" },
  'async 8 wait-launched free-slot at finish': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, about: "heldSlot 'free', the freed places filled only when a proposal finishes, not when a child starts waiting (the launch after a verdict switched off for this run)" },
  'async 8 wait-launched free-slot 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, options: { maxMetricCalls: 750 }, about: "heldSlot 'free', 750 calls" },
  'async 8 wait-launched free-slot 300 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, options: { maxMetricCalls: 300 }, about: "heldSlot 'free', 300 calls" },
  'async 8 wait-launched free-slot ceiling 1.5 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', heldSlot: 'free' }, options: { maxMetricCalls: 750 }, about: "heldSlot 'free' with a ceiling of 1.5 x inFlight (HELD_SLOT_CEILING set to 1.5 for this run), 750 calls" },
  'async 8 wait-launched gate-ahead': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, about: "decisions in launch order; a held child waiting on one valset evaluation evaluates ahead the gate of a rebase onto that child (speculate 'rebase-gate')" },
  'async 8 wait-launched gate-ahead 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, options: { maxMetricCalls: 750 }, about: "decisions in launch order; a held child waiting on one valset evaluation evaluates ahead the gate of a rebase onto that child (speculate 'rebase-gate')" },
  'async 8 wait-launched gate-ahead free-slot': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate', heldSlot: 'free' }, about: "gates evaluated ahead, and held children's places freed" },
  'async 8 wait-launched gate-ahead newcomer-only': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, about: "the first version of speculate 'rebase-gate': only the gate onto the awaited proposal's child evaluated ahead (no longer in the code)" },
  'async 8 wait-launched gate-ahead newcomer-only 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, options: { maxMetricCalls: 750 }, about: "the first version of speculate 'rebase-gate': only the gate onto the awaited proposal's child evaluated ahead (no longer in the code)" },
  'async 8 wait-launched gate-ahead newcomer-only free-slot': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate', heldSlot: 'free' }, about: "the first version of speculate 'rebase-gate': only the gate onto the awaited proposal's child evaluated ahead (no longer in the code)" },
  'async 8 wait-launched gate-ahead free-slot 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate', heldSlot: 'free' }, options: { maxMetricCalls: 750 }, about: "gates evaluated ahead, and held children's places freed, 750 calls" },
  'async 4 wait-launched gate-ahead': { schedule: { kind: 'async', inFlight: 4, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, about: "decisions in launch order, gates evaluated ahead, K = 4" },
  'async 16 wait-launched gate-ahead': { schedule: { kind: 'async', inFlight: 16, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, about: "decisions in launch order, gates evaluated ahead, K = 16" },
  'async 8 wait-launched gate-ahead predicted': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, about: "speculate 'rebase-gate' evaluating one gate ahead: onto the awaited child when it was built on the child's present target (or there is none), else onto that target (a rule tried, not kept)" },
  'async 8 wait-launched gate-ahead predicted 750 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, options: { maxMetricCalls: 750 }, about: "speculate 'rebase-gate' evaluating one gate ahead: onto the awaited child when it was built on the child's present target (or there is none), else onto that target (a rule tried, not kept)" },
  'async 8 wait-launched gate-ahead 300 calls': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before', speculate: 'rebase-gate' }, options: { maxMetricCalls: 300 }, about: "gates evaluated ahead, 300 calls" },
  // A sixth round (issue 39): held children free their places only early in a run, while the calls left pay for enough generations at the doubled width.
  ...sixthRound(),
  'async 8 rebase best race': { schedule: { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'whole-minibatch', rebaseWait: 'none' }, options: race, about: 'rebase onto the best, and the valset race' },
};

/**
 * The sixth round's variants at 1,500 and 750 calls: gates ahead with places freed early
 * (FREE_EARLY_GENERATIONS 16, and 8, 24 and 32 set in heldSlots.ts for the runs so named), places
 * freed early without gates ahead, and gates ahead given the calls their unasked gates cost
 * (about 4 proposals of 85: a ceiling on what a cheaper second gate could recover).
 */
function sixthRound(): Record<string, Omit<BenchSetting, 'label'> & { about: string }> {
  const launchOrder = { kind: 'async', inFlight: 8, rebase: 'best', rebaseGate: 'where-it-helped', rebaseWait: 'launched-before' } as const;
  const out: Record<string, Omit<BenchSetting, 'label'> & { about: string }> = {};
  for (const budget of [1500, 750]) {
    const tail = budget === WORKLOAD.budget ? '' : ` ${budget} calls`;
    const options = budget === WORKLOAD.budget ? {} : { options: { maxMetricCalls: budget } };
    out[`async 8 wait-launched gate-ahead free-early${tail}`] = { schedule: { ...launchOrder, speculate: 'rebase-gate', heldSlot: 'free-early' }, ...options, about: "gates ahead; held children free their places while the calls left pay for 16 generations at width 2K / 8 (heldSlot 'free-early')" };
    for (const g of [8, 24, 32]) out[`async 8 wait-launched gate-ahead free-early ${g}${tail}`] = { schedule: { ...launchOrder, speculate: 'rebase-gate', heldSlot: 'free-early' }, ...options, about: `heldSlot 'free-early' with FREE_EARLY_GENERATIONS set to ${g} for this run` };
    out[`async 8 wait-launched free-early${tail}`] = { schedule: { ...launchOrder, heldSlot: 'free-early' }, ...options, about: "held children free their places early (heldSlot 'free-early'), no gates ahead" };
    out[`async 8 wait-launched gate-ahead plus unasked calls${tail}`] = { schedule: { ...launchOrder, speculate: 'rebase-gate' }, options: { maxMetricCalls: Math.round(budget * 1.05) }, about: `gates ahead with 5% more calls (${Math.round(budget * 1.05)}): what the unasked gates cost, given back (not a mechanism: the ceiling of a cheaper second gate)` };
  }
  out['async 8 wait-launched gate-ahead free-early 300 calls'] = { schedule: { ...launchOrder, speculate: 'rebase-gate', heldSlot: 'free-early' }, options: { maxMetricCalls: 300 }, about: 'gates ahead, places freed early, 300 calls' };
  for (const k of [4, 16]) out[`async ${k} wait-launched gate-ahead free-early`] = { schedule: { ...launchOrder, inFlight: k, speculate: 'rebase-gate', heldSlot: 'free-early' }, about: `gates ahead, places freed early, K = ${k}` };
  return out;
}
