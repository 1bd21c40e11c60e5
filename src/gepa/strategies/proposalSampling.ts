// One step's proposal tasks: P parents drawn with replacement from the frontier as it stands at
// the start of the step, N mutations each, every task with its own minibatch and components.
// All random draws of a step happen here, in a fixed order: parents first, then per task
// (parent-major) its minibatch.
import { poolFronts, type CandidatePool } from '../core/candidatePool.js';
import { selectComponents } from './componentSelection.js';
import type { EpochShuffledSampler } from './minibatchSampler.js';
import { selectParent } from './parentSelection.js';
import type { Rng } from '../core/rng.js';
import type { ComponentSelectionStrategy, FrontType, ParentSelectionStrategy, TieOrder } from '../../types.js';

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
  parentSelection: ParentSelectionStrategy;
  componentSelection: ComponentSelectionStrategy;
  componentNames: readonly string[];
  rng: Rng;
  sampler: EpochShuffledSampler;
  /** Proposals in flight per candidate (async, when parent choice weighs them); see selectParent. */
  busy?: ReadonlyArray<number>;
}

export interface StepPlan {
  tasks: ProposalTask[];
  /** The pool's component pointers after the step's choices. */
  componentPointers: number[];
}

export function planStep(input: StepPlanInput): StepPlan {
  const { pool, shape, rng } = input;
  const taskCount = Math.max(0, Math.min(shape.parents * shape.perParent, input.maxTasks ?? Infinity));
  const view = { fronts: poolFronts(pool, input.frontType), meanScores: pool.valScores, tieOrder: input.tieOrder };
  const parents: number[] = [];
  for (let p = 0; p < Math.ceil(taskCount / shape.perParent); p++) parents.push(selectParent(input.parentSelection, view, rng, input.busy));
  const pointers = [...pool.componentPointers];
  const tasks: ProposalTask[] = [];
  for (let task = 0; task < taskCount; task++) {
    const parent = parents[Math.floor(task / shape.perParent)] as number;
    const minibatch = input.sampler.next(rng);
    const choice = selectComponents(input.componentSelection, input.componentNames, pointers[parent] ?? 0);
    pointers[parent] = choice.nextPointer;
    tasks.push({ task, parent, minibatch, components: choice.components });
  }
  return { tasks, componentPointers: pointers };
}
