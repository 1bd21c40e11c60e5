// Schedule 'auto' (issue 47): the async shape a run takes, from the worker slots, the budget, the
// valset and what the run has observed so far (the latency of a minibatch round of metric calls,
// of a reflection, and the share of proposals skipped and accepted), re-decided as observations
// come in. Plain arithmetic over plain numbers: deterministic for the same observations.
//
// The rule, and what it rests on (bench/README.md, "Time to quality"; 24 seeds a cell, four tasks):
// - **No wider than the slots can serve.** A proposal holds a slot for b parent calls, then (unless
//   skipped) b child calls and a reflection, and (if accepted) V valset calls; it takes a chain of
//   a parent round, a reflection, a child round and (if accepted) the valset's rounds. K in flight
//   keep the slots busy once K x slot time / chain time reaches W; past that, more in flight only
//   queue and go stale. But no fewer than half the slots: chains vary (a skipped proposal's is
//   one round, an accepted one's several), so at that mean count the slots idle a third of the
//   time; at 16 slots the count alone (6-7 on the bench workload) reached quality 1.2-1.5x later
//   than async 8 on bookkeeping, hotel and multistep (24 seeds each).
// - **No wider than AUTO_MAX_IN_FLIGHT, however many slots.** Past about a dozen proposals in
//   flight the children of concurrent proposals duplicate and undo each other's edits faster than
//   the launch order composes them: on every bench task async 16, 32 and 64 end below the
//   sequential loop's quality at 128 and 512 slots, at 1,500 calls and at 5,000, while 8 to 12
//   keep it and reach it soonest.
// - **Enough generations for the budget.** At most the widest K that leaves MIN_GENERATIONS
//   generations of the expected proposals (async K counting as width K / 8, asyncSearchWidth):
//   with a budget of a few dozen proposals the run narrows to the sequential loop.
// - **Gates evaluated ahead when the slots would idle.** With more slots than the widest K can
//   keep busy (W x chain time / slot time above AUTO_GATED_IN_FLIGHT), a held child evaluates the
//   rebase gates it may face while it waits (speculate 'rebase-gate'), on slots that would idle,
//   and K is at most AUTO_GATED_IN_FLIGHT: at 128 slots async 10 with gates reached quality
//   sooner than async 12 without on all four bench tasks and kept it (48 seeds), where async 12
//   with gates lost it on demo and async 8 with gates was slower there. Decided once, before the
//   first proposal (the setting holds for the run); at 16 slots (busy at 6-7) it stays off.
// - **Reflections that read other proposals' failures, where it runs wide.** With gates evaluated
//   ahead, and when the config selects no reflection strategy of its own, proposals reflect with
//   'combined' at AUTO_COMBINED_LIMITS (gepa/reflection/combinedFailures.ts): while under 90% of
//   the recent records fail, a prompt adds other proposals' failures whose feedback it does not
//   hold yet, up to 6 records. A pure function of what each reflection is handed, so a resumed run
//   reflects the same way. At 128 slots it kept the time to quality on every bench task and raised
//   the final val and test on all four (48 seeds); at 16 slots it stays off (the run is unchanged).
// - The launch order's held-slot rule stays 'keep': freeing places ('free', 'free-early') lost
//   0.01-0.04 of quality on every task at 128 slots.
// - **A run changes K by two or more, never by one** (AUTO_MIN_CHANGE). The count moves by one
//   with the noise of a few observed latencies: at 16 slots the first proposals put it at 8.0-8.2
//   on three seeds of 96 (multistep, demo), which widened those runs to async 9 where async 8 is
//   the fastest fixed shape; the first choice and larger moves (16 slots with 1 s reflections:
//   async 8 before anything is observed, 12 after) are taken as before.
import type { HeldSlot, Speculation } from '../settingValues.js';
import { ASYNC_WIDTH_FACTOR } from '../gepa/core/searchWidth.js';
import { MIN_GENERATIONS } from './recommendSchedule.js';

/** The widest in-flight count auto takes, whatever the slots (see the header). */
export const AUTO_MAX_IN_FLIGHT = 12;

/** The widest in-flight count auto takes when it evaluates gates ahead (see the header). */
export const AUTO_GATED_IN_FLIGHT = 10;

/** The least change of K a run acts on after its first decision (see the header). */
export const AUTO_MIN_CHANGE = 2;

/** Before a reflection is observed, one is taken to last this many minibatch rounds. */
export const PRIOR_REFLECTION_ROUNDS = 5;
/** Before any proposal has ended: the share skipped on their parent, and the share accepted. */
export const PRIOR_SKIP_RATE = 0.25;
export const PRIOR_ACCEPTANCE_RATE = 0.25;
/** A minibatch round (the slowest of b calls) over the mean call, for U(0.5, 1.5)-like jitter: the mean call is a round / this. */
const ROUND_OVER_MEAN_CALL = 1.25;

/** What auto decides from. */
export interface AutoView {
  /** W: worker slots. */
  workers: number;
  /** Metric-call budget (undefined: none). */
  budget?: number;
  /** V: valset examples. */
  valsetSize: number;
  /** b: reflection minibatch size. */
  minibatchSize: number;
  /** Observed latency of a round of metric calls (the seed's valset waves, then parent minibatches), when seen. */
  roundMs?: number;
  /** Observed latency of a reflection, when seen. */
  reflectionMs?: number;
  /** Proposals ended so far, and of those skipped on their parent, and accepted. */
  ended: number;
  skipped: number;
  accepted: number;
  /** Metric calls spent by the proposals that ended (the seed's excluded), for the calls a proposal costs. */
  proposalCalls: number;
  /** The run's speculation, chosen at its start (autoSpeculation); 'none' when absent. */
  speculate?: Speculation;
  /** The run reflects with auto's 'combined' (autoCombinesFailures, and no strategy of the config's). */
  combines?: boolean;
}

/** The shape auto chooses. */
export interface AutoShape {
  /** K, proposals in flight. */
  inFlight: number;
  /** The launch order's held-slot rule. */
  heldSlot: HeldSlot;
}

/** A choice and why, in a sentence for the log and the report. */
export interface AutoDecision {
  shape: AutoShape;
  reason: string;
}

/** Rates from the proposals that ended, leaning on the priors until a handful have. */
function rate(count: number, ended: number, prior: number): number {
  const PRIOR_WEIGHT = 4;
  return (count + prior * PRIOR_WEIGHT) / (ended + PRIOR_WEIGHT);
}

/**
 * The in-flight count that keeps the slots busy: W x chain time / slot time per proposal, rounded
 * up (`busy`), and no fewer than half the slots (`inFlight`).
 */
export function slotsServe(v: AutoView): { inFlight: number; busy: number; chainMs: number; slotMs: number } {
  const round = v.roundMs ?? 1;
  const reflection = v.reflectionMs ?? PRIOR_REFLECTION_ROUNDS * round;
  const call = round / ROUND_OVER_MEAN_CALL;
  const skip = rate(v.skipped, v.ended, PRIOR_SKIP_RATE);
  const accept = rate(v.accepted, v.ended, PRIOR_ACCEPTANCE_RATE);
  const b = v.minibatchSize;
  const valsetRounds = Math.ceil(v.valsetSize / v.workers);
  // Per proposal: what holds a slot, and how long its own chain takes (a skipped one: a parent round).
  const slotMs = b * call + (1 - skip) * (b * call + reflection) + accept * v.valsetSize * call;
  const chainMs = round + (1 - skip) * (reflection + round) + accept * valsetRounds * round;
  const busy = Math.max(1, Math.ceil((v.workers * chainMs) / slotMs));
  return { inFlight: Math.max(busy, Math.ceil(v.workers / 2)), busy, chainMs, slotMs };
}

/** Expected proposals the whole budget pays for (Infinity without one). */
export function expectedProposals(v: AutoView): number {
  if (v.budget === undefined) return Infinity;
  const skip = rate(v.skipped, v.ended, PRIOR_SKIP_RATE);
  const accept = rate(v.accepted, v.ended, PRIOR_ACCEPTANCE_RATE);
  const prior = v.minibatchSize + (1 - skip) * v.minibatchSize + accept * v.valsetSize;
  const perProposal = v.ended >= 8 ? v.proposalCalls / v.ended : prior;
  return Math.max(0, v.budget - v.valsetSize) / Math.max(1, perProposal);
}

/** The widest K whose generations (proposals / max(1, K / 8)) reach MIN_GENERATIONS; 1 below that. */
export function budgetAllows(proposals: number): number {
  if (proposals < MIN_GENERATIONS) return 1;
  return Math.max(1 / ASYNC_WIDTH_FACTOR, Math.floor((proposals / MIN_GENERATIONS) / ASYNC_WIDTH_FACTOR));
}

/**
 * Gates evaluated ahead ('rebase-gate') when the slots would idle at the widest gated K (more in
 * flight than AUTO_GATED_IN_FLIGHT would keep them busy) and the budget allows that K; else 'none'.
 */
export function autoSpeculation(v: AutoView): Speculation {
  return slotsServe(v).busy > AUTO_GATED_IN_FLIGHT && budgetAllows(expectedProposals(v)) >= AUTO_GATED_IN_FLIGHT ? 'rebase-gate' : 'none';
}

/** Auto's reflections read other proposals' failures (autoCombinedFailures) when it evaluates gates ahead, unless the config selects a strategy. */
export const autoCombinesFailures = (speculate: Speculation): boolean => speculate === 'rebase-gate';

/** The note a decision's reason ends with when the run reflects with auto's 'combined'. */
export const AUTO_COMBINED_NOTE = "reflections add other proposals' failures with feedback not yet in the prompt (at most 6 records) while under 90% of the recent records fail";

const ms = (x: number) => `${Math.round(x)} ms`;

export function autoDecision(v: AutoView): AutoDecision {
  const slots = slotsServe(v);
  const proposals = expectedProposals(v);
  const budget = budgetAllows(proposals);
  const gated = v.speculate === 'rebase-gate';
  const cap = gated ? AUTO_GATED_IN_FLIGHT : AUTO_MAX_IN_FLIGHT;
  const inFlight = Math.max(1, Math.min(slots.inFlight, cap, budget));
  const seen = v.roundMs === undefined ? 'no latency observed yet' : `rounds of ${ms(v.roundMs)}, reflections of ${v.reflectionMs === undefined ? `${ms(PRIOR_REFLECTION_ROUNDS * v.roundMs)} (assumed)` : ms(v.reflectionMs)}`;
  const capNote = gated
    ? `with gates evaluated ahead on the idle slots, more in flight than ${cap} lost quality on a bench task`
    : `more in flight than ${cap} lost quality on every bench task`;
  const bound =
    inFlight === budget && budget < Math.min(slots.inFlight, cap)
      ? `the budget pays for about ${Math.round(proposals)} proposals, which leaves ${MIN_GENERATIONS} generations at no more`
      : inFlight === slots.inFlight && slots.inFlight < cap
        ? slots.busy === inFlight
          ? `the ${v.workers} slots are busy with ${inFlight} in flight (a proposal holds ${ms(slots.slotMs)} of slot time over a ${ms(slots.chainMs)} chain)`
          : `half the ${v.workers} slots (${slots.busy} in flight would keep them busy on average: a proposal holds ${ms(slots.slotMs)} of slot time over a ${ms(slots.chainMs)} chain, but chains vary)`
        : capNote;
  const gates = gated && inFlight > 1 ? '; gates evaluated ahead' : '';
  const combines = v.combines ? `; ${AUTO_COMBINED_NOTE}` : '';
  return { shape: { inFlight, heldSlot: 'keep' }, reason: `async ${inFlight}${gates}: ${bound}; ${seen}${combines}` };
}

/** The shape as a decision id on an async run's logged path ('async:<K>:<heldSlot>'), and back. */
export const autoShapeId = (shape: AutoShape): string => `async:${shape.inFlight}:${shape.heldSlot}`;
export function autoShapeOfId(id: string): AutoShape | undefined {
  const m = /^async:(\d+):(keep|free|free-early)$/.exec(id);
  return m ? { inFlight: Number(m[1]), heldSlot: m[2] as HeldSlot } : undefined;
}
