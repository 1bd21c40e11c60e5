// The launch rules: what starts in the schedule's free places now. Batched, the next P x N step;
// async, proposals one at a time until the shape's K are in flight, where the held-slot rule
// (heldSlots.ts) says how many places the proposals in flight take (after a verdict, something
// starts only while held children give their places up), the budget's last calls start small
// proposals (proposalPlanner.ts), and, parent-first, the optimizer asks for a reflective
// proposal's parent evaluation itself instead of spawning its proposer. Pure: the run, the shape
// and the moment in; what the run records, announces and starts out. The optimizer's `launch`
// action calls it and does what it answers, in its order.
import type { SpendingLimits } from '../../budget/budgetLedger.js';
import type { ExampleTable } from '../core/exampleTable.js';
import type { RunEvent } from '../core/runEvent.js';
import { heldSlotOfRun, occupiedSlots } from './heldSlots.js';
import type { LaunchShape } from './launchShape.js';
import { planAsyncProposals, planBatchedStep, type Launch, type Plan, type PlanInput, type PlannerSettings } from './proposalPlanner.js';
import { budgetEvent, launchPlan, type SearchRun } from './searchRun.js';

/** The run as the launch rules read it: the search run, and the launches whose parent evaluation the optimizer asked for. */
export interface LaunchRun extends SearchRun {
  /** With the built-in proposer: the optimizer asks for each reflective proposal's parent evaluation itself. */
  parentFirst: boolean;
  /** The launches whose parent evaluation is asked for and not yet answered. */
  parentsAsked: readonly Launch[];
}

/** Places for a step's tasks in a parent evaluation's request id (a batched step's proposals share their step). */
const TASKS_A_STEP = 65_536;

/**
 * The request id of a proposal's parent evaluation that the optimizer asks for: its step and task
 * (an async proposal is a step of one task), above the optimizer's own ids (the seed's -1, the
 * holdout's below it).
 */
export function parentRequestId(proposal: { step: number; task: number }): number {
  if (proposal.task >= TASKS_A_STEP) throw new RangeError(`a step has at most ${TASKS_A_STEP} tasks, not ${proposal.task + 1}`);
  return proposal.step * TASKS_A_STEP + proposal.task;
}

/**
 * The request whose answer is a proposal's parent evaluation: its own (parentRequestId), or for a
 * sibling (perParent) its group's first proposal's, which asked for it once for the group.
 */
export function parentAnswerId(proposal: { step: number; task: number; siblingOf?: number }): number {
  return parentRequestId({ step: proposal.siblingOf ?? proposal.step, task: proposal.task });
}

/** What the launch rules read besides the run and the shape. */
export interface LaunchMoment {
  settings: PlannerSettings;
  table: Pick<ExampleTable<unknown>, 'trainIds' | 'valIds'>;
  /** What the launches' reservations must leave room for (a resumed run's unreplayed work). */
  limits: Pick<SpendingLimits, 'heldCalls'>;
  /** The launch follows a verdict (async): it starts something only while held children free their places. */
  afterVerdict: boolean;
}

/**
 * One launch, and who asks for its parent evaluation: its proposer (spawned now), or the
 * optimizer (parent-first; for a sibling, `launch.proposal.siblingOf`, the evaluation its
 * group's first proposal asks for).
 */
export interface LaunchStart {
  launch: Launch;
  optimizerAsksParent: boolean;
}

export interface Launched {
  /** What the run records: the plan's search state and ledger, failures, a stop; the parents asked for (the starts' records join the table in flight). */
  update: Partial<SearchRun> & { parentsAsked?: Launch[] };
  /** Announced before anything starts: a batched step's start, the failures, the launches. */
  events: RunEvent[];
  /** What starts, in launch order. */
  starts: LaunchStart[];
  /** Announced after the starts, when anything started: the budget with their reservations. */
  budget?: RunEvent;
}

/** The first parent of each proposal in flight, in the table's order (async parent weighting 'in-flight'). */
export function inFlightParents(proposals: SearchRun['proposals']): number[] {
  // A loop: the table is a dictionary-mode object, slow to list with Object.values, and this runs at every launch.
  const parents: number[] = [];
  for (const id in proposals) {
    const first = proposals[id]?.parents[0];
    if (first !== undefined) parents.push(first);
  }
  return parents;
}

/** What the planner plans from: the run's search state and ledger, and what the budget must leave room for. */
export function planInputOf(run: SearchRun, moment: Pick<LaunchMoment, 'settings' | 'table' | 'limits'>): PlanInput {
  const { search, ledger, dollarsExhausted } = run;
  const { schedule } = moment.settings;
  // Read by the async planner's parent weighting 'in-flight' only: no walk of the table for the others.
  const weighted = schedule.kind === 'async' && schedule.parentWeighting === 'in-flight';
  return { search, settings: moment.settings, table: moment.table, budget: { ledger, ...moment.limits, dollarsExhausted }, ...(weighted ? { inFlightParents: inFlightParents(run.proposals) } : {}) };
}

/**
 * What starts now in the places `shape` leaves free, or null when nothing is to be done (the run
 * has a stop reason; or a verdict, while held children keep their places). A plan that starts
 * nothing still records its failures and its stop reason.
 */
export function nextLaunches(run: LaunchRun, shape: LaunchShape, moment: LaunchMoment): Launched | null {
  if (run.stopReason !== undefined) return null;
  const heldSlot = shape.kind === 'async' ? heldSlotOfRun(run, shape, moment.settings, moment.table.valIds.length) : 'keep';
  // After a verdict only while held children free their places: a child the verdict held in its wait gives its place to a new proposal.
  if (moment.afterVerdict && heldSlot !== 'free') return null;
  const input = planInputOf(run, moment);
  // Several children per parent share the parent evaluation the optimizer asks for: parent-first
  // only (a replacement proposer evaluates its own parent, so each of its proposals stands alone).
  const perParent = shape.kind === 'async' && run.parentFirst ? (shape.perParent ?? 1) : 1;
  const plan: Plan = shape.kind === 'batched' ? planBatchedStep(input, shape) : planAsyncProposals(input, occupiedSlots(run.proposals, shape.inFlight, heldSlot), shape.inFlight, perParent);
  const launched = launchPlan(run, plan, shape.kind === 'batched');
  // Reflective proposals, async or in a batched step (a merge has no parent evaluation). They join
  // parentsAsked in the same update as the plan (one copy of the machine's context); by
  // Object.assign, not a spread the new key would send down V8's slow path (core/proposal.ts, changedProposal).
  const asked = run.parentFirst ? plan.launches.filter((l) => !l.merge) : [];
  return {
    update: asked.length > 0 ? Object.assign({}, launched.update, { parentsAsked: [...run.parentsAsked, ...asked] }) : launched.update,
    events: launched.events,
    starts: plan.launches.map((launch) => ({ launch, optimizerAsksParent: asked.includes(launch) })),
    ...(plan.launches.length > 0 ? { budget: budgetEvent({ ledger: plan.ledger, spentUsd: run.spentUsd }) } : {}),
  };
}
