// One step's proposal tasks: P parents drawn with replacement from the frontier as it stands at
// the start of the step, N mutations each, every task with its own minibatch and components.
// All random draws of a step happen here, in a fixed order: parents first, then per task
// (parent-major) its minibatch, then its components. The user's hooks, when given, take the
// place of a rule at its turn in that order, never in completion order, so a hook drawing from
// the RNG it is handed keeps a batched run a function of its seed.
import { poolFronts, type CandidatePool } from '../core/candidatePool.js';
import { selectComponents } from './componentSelection.js';
import type { EpochShuffledSampler } from './minibatchSampler.js';
import { selectParent } from './parentSelection.js';
import { hookedComponents, hookedMinibatch, hookedParent, poolView, type HookAnswer, type PlanningHooks } from './strategyHooks.js';
import type { Rng } from '../core/rng.js';
import type { Candidate } from '../core/adapter.js';
import type { ComponentSelectionStrategy, FrontType, ParentSelectionStrategy, StepMinibatches, TieOrder } from '../../settingValues.js';

export interface StepShape {
  parents: number;
  perParent: number;
}

/** The paper's named shapes. */
export const stepShapes = {
  single: (): StepShape => ({ parents: 1, perParent: 1 }),
  sameParent: (n: number): StepShape => ({ parents: 1, perParent: n }),
  independent: (n: number): StepShape => ({ parents: n, perParent: 1 }),
  grid: (p: number, n: number): StepShape => ({ parents: p, perParent: n }),
};

export interface ProposalTask {
  task: number;
  parent: number;
  /** Trainset indices. */
  minibatch: number[];
  components: string[];
}

export interface StepPlanInput {
  pool: CandidatePool;
  shape: StepShape;
  /** At most this many tasks (what the budget can pay for); fewer parents are drawn if so. */
  maxTasks?: number;
  frontType: FrontType;
  tieOrder: TieOrder;
  /** Default 'fresh': every task takes the next chunk; 'sliding': the step moves the epoch on by one chunk. */
  stepMinibatches?: StepMinibatches;
  parentSelection: ParentSelectionStrategy;
  componentSelection: ComponentSelectionStrategy;
  componentNames: readonly string[];
  rng: Rng;
  sampler: EpochShuffledSampler;
  /** Proposals in flight per candidate (async, when parent choice weighs them); see selectParent. */
  busy?: ReadonlyArray<number>;
  /** The user's planning hooks, in place of parentSelection, the sampler, componentSelection. */
  hooks?: PlanningHooks;
  /** The step (or async proposal) number, which the hooks are told. */
  step?: number;
}

/** A task a hook could not plan: its parent when one was drawn, and why. */
export interface FailedTask {
  task: number;
  parent?: number;
  reason: string;
}

export interface StepPlan {
  tasks: ProposalTask[];
  failures: FailedTask[];
  /** The pool's component pointers after the step's choices (the pool's own array when none moved). */
  componentPointers: number[];
}

export function planStep(input: StepPlanInput): StepPlan {
  const { pool, shape, rng, hooks = {}, step = 0 } = input;
  const taskCount = Math.max(0, Math.min(shape.parents * shape.perParent, input.maxTasks ?? Infinity));
  const fronts = poolFronts(pool, input.frontType);
  const view = { fronts, meanScores: pool.valScores, tieOrder: input.tieOrder };
  const selectCandidate = hooks.selectCandidate;
  const hookView = selectCandidate && poolView(pool, fronts, step);
  const parents: Array<HookAnswer<number>> = [];
  for (let p = 0; p < Math.ceil(taskCount / shape.perParent); p++) {
    parents.push(selectCandidate && hookView ? hookedParent(selectCandidate, hookView, rng) : { ok: true, value: selectParent(input.parentSelection, view, rng, input.busy) });
  }
  // Sliding chunks are drawn for the whole step at once, before any task's own draws.
  const sliding = !hooks.sampleMinibatch && input.stepMinibatches === 'sliding' ? input.sampler.nextSliding(rng, taskCount) : undefined;
  // The pool's round-robin pointers, copied when the first of them moves: with one component (or
  // 'all') none does, and a proposal then copies no array of the pool's size.
  const pointers = { now: pool.componentPointers };
  const tasks: ProposalTask[] = [];
  const failures: FailedTask[] = [];
  for (let task = 0; task < taskCount; task++) {
    const drawn = parents[Math.floor(task / shape.perParent)] as HookAnswer<number>;
    if (!drawn.ok) {
      failures.push({ task, reason: drawn.reason });
      continue;
    }
    const parent = drawn.value;
    const minibatch = hooks.sampleMinibatch
      ? hookedMinibatch(hooks.sampleMinibatch, { trainsetSize: input.sampler.size, minibatchSize: input.sampler.batchSize, step, task }, rng)
      : { ok: true as const, value: sliding?.[task] ?? input.sampler.next(rng) };
    if (!minibatch.ok) {
      failures.push({ task, parent, reason: minibatch.reason });
      continue;
    }
    const components = chooseComponents(input, pointers, parent, step, task);
    if (components.ok) tasks.push({ task, parent, minibatch: minibatch.value, components: components.value });
    else failures.push({ task, parent, reason: components.reason });
  }
  return { tasks, failures, componentPointers: pointers.now };
}

/** The task's components: the hook's choice, or the strategy's (advancing the parent's round-robin pointer). */
function chooseComponents(input: StepPlanInput, pointers: { now: number[] }, parent: number, step: number, task: number): HookAnswer<string[]> {
  const hook = input.hooks?.selectComponents;
  if (hook) {
    const candidate = input.pool.candidates[parent] as Candidate;
    return hookedComponents(hook, { candidate, candidateIndex: parent, componentNames: input.componentNames, step, task }, input.rng);
  }
  const choice = selectComponents(input.componentSelection, input.componentNames, pointers.now[parent] ?? 0);
  if (pointers.now[parent] !== choice.nextPointer) {
    if (pointers.now === input.pool.componentPointers) pointers.now = [...pointers.now];
    pointers.now[parent] = choice.nextPointer;
  }
  return { ok: true, value: choice.components };
}
