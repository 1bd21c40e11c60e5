// The schedule's shape as the launch rules read it: a batched step's P x N, or async K in flight
// with its held-slot rule. Run state (SearchRun.shape), not a setting read at each launch: it
// starts as the configured schedule says (launchShapeOf), and a rule that adapts the width as the
// run goes changes it there, through a domain function, without the machine knowing.
import type { HeldSlot } from '../../settingValues.js';

export type LaunchShape =
  /** P parents x N proposals per parent, a step at a time. */
  | { kind: 'batched'; parents: number; perParent: number }
  /**
   * K proposals in flight; `heldSlot`: what a child held by the launch-order wait does with its
   * place; `perParent`: N children from one parent evaluation, N of the K places (absent: 1).
   */
  | { kind: 'async'; inFlight: number; heldSlot: HeldSlot; perParent?: number };

/** The shape a resolved schedule starts a run with (only the fields the launch rules read). */
export function launchShapeOf(schedule: LaunchShape): LaunchShape {
  return schedule.kind === 'batched'
    ? { kind: 'batched', parents: schedule.parents, perParent: schedule.perParent }
    : { kind: 'async', inFlight: schedule.inFlight, heldSlot: schedule.heldSlot, ...(schedule.perParent !== undefined && schedule.perParent > 1 ? { perParent: schedule.perParent } : {}) };
}
