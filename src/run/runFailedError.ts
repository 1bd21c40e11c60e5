// The error a failed run rejects with: optimize() and optimizeAnything() never resolve a run whose
// work failed (the failure rule, src/gepa/search/failureRule.ts, made its stop reason 'error');
// they reject with RunFailedError, which carries the partial result (the best so far, the
// failures tally) and the first underlying error, and says in one message what failed, that
// error, and how many calls failed of how many. The command prints the same message and exits 1.
import { errorMessage } from '../errors/errorMessage.js';
import type { OptimizeResult } from '../gepa/core/optimizeResult.js';

/** The part of a result the message reads (an optimizeAnything result has candidates as strings). */
type FailedResult = Pick<OptimizeResult, 'stopReason' | 'error' | 'failures' | 'metricCalls' | 'reflectionCalls' | 'bestIndex' | 'bestScore'>;

/** "3 of 20 metric calls and 2 of 4 reflection calls": each kind of call counted against its own (a budget of metric calls is never read against reflections). */
function failedOfMade(metricFailed: number, metricMade: number, reflectionsFailed: number, reflectionsMade: number): string {
  const part = (failed: number, made: number, what: string) => `${failed} of ${made} ${what} call${made === 1 ? '' : 's'}`;
  const parts = [
    ...(metricFailed > 0 ? [part(metricFailed, metricMade, 'metric')] : []),
    ...(reflectionsFailed > 0 ? [part(reflectionsFailed, reflectionsMade, 'reflection')] : []),
  ];
  return parts.join(' and ');
}

/** What failed, the first underlying error (unless the reason names it), and the calls that failed of those made. */
export function runFailedMessage(result: FailedResult, cause: unknown): string {
  const reason = result.error ?? 'the run stopped with an error';
  const first = cause === undefined ? '' : errorMessage(cause);
  const firstPart = first === '' || reason.includes(first) ? '' : `; the first error: ${first}`;
  const calls = result.metricCalls + result.reflectionCalls;
  const total = result.failures?.total ?? 0;
  const kinds = Object.entries(result.failures?.byKind ?? {}).map(([kind, n]) => `${kind} x${n}`);
  // A callback or a lost queue can fail a run whose calls all succeeded: no "0 of N failed".
  const failed =
    total === 0
      ? `no call failed (${calls} made)`
      : `${failedOfMade(total - (result.failures?.reflections ?? 0), result.metricCalls, result.failures?.reflections ?? 0, result.reflectionCalls)} failed${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}`;
  return `the run failed: ${reason}${firstPart}. ${failed}; best so far: candidate #${result.bestIndex} (valset score ${result.bestScore.toFixed(3)})`;
}

/**
 * A run whose work failed: `.result` is its partial result (what was found and paid for, the
 * failures tally, `stopReason: 'error'` and `error`), `.cause` the first underlying error (what
 * the evaluator, the adapter, the model or the callback threw; an Error with the reason when
 * nothing was thrown). A run with a `runDir` keeps its directory: resuming continues it.
 */
export class RunFailedError<Result extends Pick<OptimizeResult, 'stopReason' | 'error' | 'failures' | 'metricCalls' | 'reflectionCalls' | 'bestIndex' | 'bestScore'> = OptimizeResult> extends Error {
  /** 'RunFailedError'. */
  override name = 'RunFailedError';
  /** The partial result: the best so far, what was spent, the failures tally. */
  readonly result: Result;

  constructor(result: Result, cause: unknown, message = runFailedMessage(result, cause)) {
    super(message, { cause });
    this.result = result;
  }

  /** The same failure with the result in another form (optimizeAnything's candidates in the seed's form). */
  withResult<Other extends Pick<OptimizeResult, 'stopReason' | 'error' | 'failures' | 'metricCalls' | 'reflectionCalls' | 'bestIndex' | 'bestScore'>>(result: Other): RunFailedError<Other> {
    return new RunFailedError(result, this.cause, this.message);
  }
}

/** The one check the edges make: a result with stopReason 'error' is a failed run, rejected with RunFailedError. */
export function throwIfFailed(result: OptimizeResult, cause: () => unknown): OptimizeResult {
  if (result.stopReason !== 'error') return result;
  throw new RunFailedError(result, cause() ?? new Error(result.error ?? 'the run stopped with an error'));
}
