// The one failure rule: whether a run that has ended succeeded. A run succeeds only when it ended
// on its budget or a stopper with its failures below the systemic threshold; otherwise its stop
// reason becomes 'error' with why, and optimize() / optimizeAnything() reject with RunFailedError
// (src/run/runFailedError.ts). Asked once, when the run ends (the optimizer's last step), over
// what the stop decision set and what the evaluation service counted; the stops that come during
// the run (failFast, a failed seed, maxConsecutiveFailures in a row) have set 'error' already.
import type { FailureCounts } from '../core/optimizeResult.js';
import type { RunEvent } from '../core/runEvent.js';
import type { StopState } from './stopDecision.js';

/** What the evaluation service counted of the calls that decide the rule (FailureTally.outcomes). */
export interface CallOutcomes {
  /** Proposed candidates (children and merges, by content) whose evaluation was asked for. */
  proposedCandidates: number;
  /** Of those, the ones with at least one metric call that did not fail. */
  proposedEvaluated: number;
  /** Reflection calls that ended (made, or replayed on resume). */
  reflections: number;
  /** Of those, the ones that answered. */
  reflectionsAnswered: number;
  /** The first failed call's message, when one failed. */
  firstFailure?: string;
}

/** What the rule reads: the stop state, the failure tally and its outcomes, and failFast. */
export interface FailureFacts {
  failures?: FailureCounts;
  /** Absent when a replaced evaluator does not count them: those rules are not asked. */
  outcomes?: CallOutcomes;
  failFast: boolean;
}

const calls = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
/** "the one proposed candidate", "both proposed candidates", "all 4 proposed candidates". */
const theOnes = (n: number, what: string) => (n === 1 ? `the one ${what}` : n === 2 ? `both ${what}s` : `all ${n} ${what}s`);

/**
 * Why the run failed, or undefined when it succeeded. In order: a stop with 'error' (its own
 * cause); failFast with any failed call; no proposed candidate evaluated (every call of every
 * proposed candidate's evaluation failed, when any was asked for); no reflection call answered
 * (when any was made). A run too small to propose anything is not a failure.
 */
export function runFailure(run: StopState, facts: FailureFacts): string | undefined {
  if (run.stopReason === 'error') return run.error ?? 'the run stopped with an error';
  const { outcomes, failures } = facts;
  const first = outcomes?.firstFailure === undefined ? '' : `; the first failed call: ${outcomes.firstFailure}`;
  if (facts.failFast && (failures?.total ?? 0) > 0) return `failFast: ${calls(failures?.total ?? 0, 'call')} failed${first}`;
  if (!outcomes) return undefined;
  if (outcomes.proposedCandidates > 0 && outcomes.proposedEvaluated === 0) {
    return `no proposed candidate could be evaluated: every metric call of ${theOnes(outcomes.proposedCandidates, 'proposed candidate')} failed${first}`;
  }
  if (outcomes.reflections > 0 && outcomes.reflectionsAnswered === 0) {
    return `no reflection call succeeded: ${theOnes(outcomes.reflections, 'reflection call')} failed${first}`;
  }
  return undefined;
}

/**
 * The stop state once the rule is asked: unchanged when the run succeeded, else 'error' with why;
 * a failure found only now is announced (a systemic `error` event), as one found during the run is.
 */
export function judgeRun(run: StopState, facts: FailureFacts): { update: StopState; events: RunEvent[] } {
  const failed = runFailure(run, facts);
  if (failed === undefined || run.stopReason === 'error') return { update: { stopReason: run.stopReason, error: run.error, stoppedBy: run.stoppedBy }, events: [] };
  return { update: { stopReason: 'error', error: failed }, events: [{ type: 'error', message: failed, systemic: true }] };
}
