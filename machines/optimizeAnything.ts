// optimizeAnything(): gepa's primary API on optimize()'s runtime. The options are checked, the
// mode chosen once and the user's evaluator made an adapter (src/run/anythingRun.ts, which the
// CLI's evaluator config uses too); the run is optimize()'s own: the same actors, schedules,
// budgets and run directory. The built-in reflection prompt states the objective and background;
// a string seed gives string candidates back.
import { STRING_COMPONENT, type OptimizeAnythingOptions } from '../src/adapters/anything/anythingOptions.js';
import { installStdioCapture } from '../src/adapters/anything/stdioCapture.js';
import { anythingRunParts } from '../src/run/anythingRun.js';
import { prepareRun } from '../src/run/prepareRun.js';
import { RunFailedError } from '../src/run/runFailedError.js';
import type { Candidate } from '../src/gepa/core/adapter.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import { optimize } from './optimize.js';

/** optimize()'s result with candidates in the seed's form: strings for a string seed (or none). */
export type OptimizeAnythingResult<C extends string | Candidate> = Omit<OptimizeResult, 'candidates' | 'bestCandidate'> & {
  /** Every candidate, in the order they joined the pool (the seed first), in the seed's form. */
  candidates: C[];
  /** The candidate with the best valset mean, in the seed's form. */
  bestCandidate: C;
};

/**
 * Optimizes any text artifact against an evaluator (gepa's `optimize_anything`): a string seed
 * gives string candidates back, named texts give named texts. Without a dataset the search is
 * single-task (the evaluator is called without an example); with one, multi-task; with a valset
 * too, generalization. Throws a ConfigError naming the field before any call; a run whose work
 * failed rejects with RunFailedError, its `result` in the seed's form.
 */
export function optimizeAnything<Example = undefined>(options: OptimizeAnythingOptions<string, Example>): Promise<OptimizeAnythingResult<string>>;
export function optimizeAnything<Example = undefined>(options: OptimizeAnythingOptions<Candidate, Example> & { seedCandidate: Candidate }): Promise<OptimizeAnythingResult<Candidate>>;
export async function optimizeAnything<Example>(
  given: OptimizeAnythingOptions<string, Example> | OptimizeAnythingOptions<Candidate, Example>,
): Promise<OptimizeAnythingResult<string | Candidate>> {
  // One form inside: the evaluator takes whichever form the seed has.
  const parts = anythingRunParts(given as unknown as OptimizeAnythingOptions<string | Candidate, Example>);
  // captureStdio: console and the streams are patched for this run only, restored however it ends.
  const releaseStdio = given.captureStdio === true ? installStdioCapture() : undefined;
  try {
    return inSeedForm(await optimize(parts.amend(prepareRun(parts.config))), parts.stringCandidate);
  } catch (error) {
    // A failed run's partial result, in the seed's form too.
    throw error instanceof RunFailedError ? error.withResult(inSeedForm(error.result, parts.stringCandidate)) : error;
  } finally {
    releaseStdio?.();
  }
}

/** The result with each candidate as a string when the seed was one (the command prints an evaluator run's result so too). */
export function inSeedForm(result: OptimizeResult, stringCandidate: boolean): OptimizeAnythingResult<string | Candidate> {
  if (!stringCandidate) return result;
  const text = (c: Candidate): string => c[STRING_COMPONENT] ?? '';
  return { ...result, candidates: result.candidates.map(text), bestCandidate: text(result.bestCandidate) };
}
