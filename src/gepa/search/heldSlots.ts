// Async with rebaseWait: how many of the proposals in flight count against `inFlight` when the
// next ones are planned. A child held by the wait has done its reflection and minibatch and sits
// idle until older proposals finish; with `heldSlot: 'free'` its place goes to a new proposal,
// whose reflection overlaps the wait, within a ceiling of HELD_SLOT_CEILING x inFlight in all.
import type { Proposal } from '../core/proposal.js';
import type { HeldSlot } from '../../types.js';
import { isHeld } from './proposalDecisions.js';

/**
 * With 'free', at most this many times `inFlight` proposals are in flight, held ones included:
 * the children launched during a wait are judged after it in launch order, so each one more is
 * one more proposal made without the results ahead of it (bench/README.md, "A fifth round").
 */
export const HELD_SLOT_CEILING = 2;

/**
 * The places among `inFlight` that the proposals in flight take: all of them with 'keep'; with
 * 'free' those not held, or more when the ceiling is near, so that `inFlight - occupied` new
 * proposals can start. At least one while anything is in flight, so the planner never reads a
 * run with proposals in flight as idle.
 */
export function occupiedSlots(proposals: Readonly<Record<string, Proposal>>, inFlight: number, heldSlot: HeldSlot): number {
  const all = Object.values(proposals);
  if (heldSlot === 'keep' || all.length === 0) return all.length;
  const active = all.filter((p) => !isHeld(p)).length;
  return Math.max(active, all.length - (HELD_SLOT_CEILING - 1) * inFlight, 1);
}
