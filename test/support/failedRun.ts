// A run that must fail: it rejects with RunFailedError (never resolves), whose partial result the
// test then reads. Resolving is the test's failure, named as such.
import { expect } from 'vitest';
import { RunFailedError } from '../../src/run/runFailedError.js';
import type { OptimizeResult } from '../../src/gepa/core/optimizeResult.js';

/** The RunFailedError `run` rejects with; the test fails if it resolves or rejects with another error. */
export async function failedRun<R extends Pick<OptimizeResult, 'stopReason' | 'error' | 'failures' | 'metricCalls' | 'reflectionCalls' | 'bestIndex' | 'bestScore'> = OptimizeResult>(
  run: Promise<unknown>,
): Promise<RunFailedError<R>> {
  const outcome = await run.then(
    (result) => ({ resolved: result }),
    (error: unknown) => ({ error }),
  );
  if ('resolved' in outcome) {
    const { stopReason, error } = outcome.resolved as OptimizeResult;
    throw new Error(`the run resolved (stopReason ${stopReason}${error ? `, error ${error}` : ''}); a rejection with RunFailedError was expected`);
  }
  expect(outcome.error).toBeInstanceOf(RunFailedError);
  const failed = outcome.error as RunFailedError<R>;
  // A rejected run's partial result says why it failed: never a finished run.
  expect(failed.result.stopReason).toBe('error');
  return failed;
}
