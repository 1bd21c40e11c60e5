// Async with rebaseWait: how many of the proposals in flight count against `inFlight` when the
// next ones are planned. A child held by the wait has done its reflection and minibatch and sits
// idle until older proposals finish; with `heldSlot: 'free'` its place goes to a new proposal,
// whose reflection overlaps the wait, within a ceiling of HELD_SLOT_CEILING x inFlight in all;
// with 'free-early' only while the calls left pay for enough generations at that width.
import type { BudgetLedger } from '../../budget/budgetLedger.js';
import type { Proposal } from '../core/proposal.js';
import type { HeldSlot } from '../../settingValues.js';
import { isHeld } from './proposalDecisions.js';
import { asyncSearchWidth } from '../core/searchWidth.js';
import { reflectiveWorstCase, type PlannerSettings } from './proposalPlanner.js';

/**
 * With 'free', at most this many times `inFlight` proposals are in flight, held ones included:
 * the children launched during a wait are judged after it in launch order, so each one more is
 * one more proposal made without the results ahead of it (bench/README.md, "A fifth round").
 */
export const HELD_SLOT_CEILING = 2;

/**
 * With 'free-early': held children give their places up while the proposals the calls left pay
 * for make at least this many generations at the width freed places reach (async
 * HELD_SLOT_CEILING x inFlight, counted as recommendSchedule counts async K: K / 8, at least 1).
 * 16 is where width started to cost on the bench tasks: async K lost to single once fewer than
 * about 16 proposals per K / 8 were left to make (bench/README.md, "A fourth round"); 24 and 32
 * were measured too ("A sixth round").
 */
export const FREE_EARLY_GENERATIONS = 16;

/** What the 'free-early' rule reads of a run. */
export interface WidthBudgetView {
  ledger: BudgetLedger;
  /** Proposals launched so far (async: the last proposal number given out). */
  launched: number;
  /** Proposals in flight now. */
  inFlightNow: number;
  /** Calls spent before any proposal: the seed's valset evaluation. */
  seedCalls: number;
  /** The most one proposal may spend (its minibatch evaluations and its valset evaluation). */
  worstCase: number;
}

/**
 * How many more proposals the calls not yet spent pay for (those in flight included): the calls
 * left over the mean a finished proposal spent, or over a proposal's worst case until `inFlight`
 * proposals have finished (the first ones say little, and the worst case keeps places then).
 * Infinity without a call budget.
 */
export function proposalsLeft(view: WidthBudgetView, inFlight: number): number {
  const { ledger } = view;
  const callsLeft = ledger.maxMetricCalls - ledger.spentCalls;
  if (!Number.isFinite(callsLeft)) return Infinity;
  const finished = view.launched - view.inFlightNow;
  // Spent includes what the proposals in flight have paid so far: the mean leans high, which keeps places sooner.
  const perProposal = finished < inFlight ? view.worstCase : Math.max(1, (ledger.spentCalls - view.seedCalls) / finished);
  return Math.max(0, callsLeft) / perProposal;
}

/**
 * The rule in force now: 'keep' or 'free'. 'free-early' is 'free' while proposalsLeft makes at
 * least FREE_EARLY_GENERATIONS generations at the width HELD_SLOT_CEILING x inFlight counts as,
 * and 'keep' after (late in a run, and the whole of a small budget's).
 */
export function heldSlotNow(heldSlot: HeldSlot, inFlight: number, view: WidthBudgetView): 'keep' | 'free' {
  if (heldSlot !== 'free-early') return heldSlot;
  const freedWidth = asyncSearchWidth(HELD_SLOT_CEILING * inFlight);
  return proposalsLeft(view, inFlight) >= FREE_EARLY_GENERATIONS * freedWidth ? 'free' : 'keep';
}

/**
 * The places among `inFlight` that the proposals in flight take: all of them with 'keep'; with
 * 'free' those not held, or more when the ceiling is near, so that `inFlight - occupied` new
 * proposals can start. At least one while anything is in flight, so the planner never reads a
 * run with proposals in flight as idle. Takes the rule in force (heldSlotNow).
 */
export function occupiedSlots(proposals: Readonly<Record<string, Proposal>>, inFlight: number, heldSlot: 'keep' | 'free'): number {
  // Counted in one loop: the table is a dictionary-mode object (Object.values is slow on it) and this runs at every launch.
  let all = 0;
  let active = 0;
  for (const id in proposals) {
    all++;
    if (heldSlot === 'free' && !isHeld(proposals[id] as Proposal)) active++;
  }
  if (heldSlot === 'keep' || all === 0) return all;
  return Math.max(active, all - (HELD_SLOT_CEILING - 1) * inFlight, 1);
}

/**
 * heldSlotNow for a run: its ledger, its proposals launched and in flight, a proposal's worst
 * case at its settings and the seed's valset evaluation as the calls spent before any proposal.
 */
export function heldSlotOfRun(
  run: { ledger: BudgetLedger; search: { step: number }; proposals: Readonly<Record<string, Proposal>> },
  schedule: { inFlight: number; heldSlot: HeldSlot },
  settings: Pick<PlannerSettings, 'minibatchSize' | 'searchMode' | 'cacheEvaluation'>,
  valsetSize: number,
): 'keep' | 'free' {
  // Read on every launch: 'keep' and 'free' need nothing of the run.
  if (schedule.heldSlot !== 'free-early') return schedule.heldSlot;
  const seedCalls = valsetSize * (run.ledger.callsPerEvaluation ?? 1);
  const view = { ledger: run.ledger, launched: run.search.step, inFlightNow: Object.keys(run.proposals).length, seedCalls, worstCase: reflectiveWorstCase(settings, valsetSize) };
  return heldSlotNow(schedule.heldSlot, schedule.inFlight, view);
}
