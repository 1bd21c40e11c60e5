// optimizeAnything(): gepa's primary API on optimize()'s runtime. The options are checked and the
// mode chosen once (src/adapters/anything/), the user's evaluator becomes an adapter, and the run
// is optimize()'s own: the same actors, schedules, budgets and run directory. The built-in
// reflection prompt states the objective and background; a string seed gives string candidates back.
import { checkAnythingOptions, anythingDefaults, examplesOf, reflectionContextOf, searchModeOf, seedAsCandidate, STRING_COMPONENT, type OptimizeAnythingOptions } from '../src/adapters/anything/anythingOptions.js';
import { createAnythingAdapter } from '../src/adapters/anything/anythingAdapter.js';
import { ConfigError } from '../src/configError.js';
import { buildSeedPrompt } from '../src/gepa/proposer/seedPrompt.js';
import { prepareRun } from '../src/run/preparedRun.js';
import type { Candidate, OptimizeConfig, OptimizeResult } from '../src/types.js';
import { optimize } from './optimize.js';

/** optimize()'s result with candidates in the seed's form: strings for a string seed (or none). */
export type OptimizeAnythingResult<C extends string | Candidate> = Omit<OptimizeResult, 'candidates' | 'bestCandidate'> & {
  candidates: C[];
  bestCandidate: C;
};

/**
 * Optimizes any text artifact against an evaluator (gepa's `optimize_anything`): a string seed
 * gives string candidates back, named texts give named texts. Without a dataset the search is
 * single-task (the evaluator is called without an example); with one, multi-task; with a valset
 * too, generalization. Throws a ConfigError naming the field before any call.
 */
export function optimizeAnything<Example = undefined>(options: OptimizeAnythingOptions<string, Example>): Promise<OptimizeAnythingResult<string>>;
export function optimizeAnything<Example = undefined>(options: OptimizeAnythingOptions<Candidate, Example> & { seedCandidate: Candidate }): Promise<OptimizeAnythingResult<Candidate>>;
export async function optimizeAnything<Example>(
  given: OptimizeAnythingOptions<string, Example> | OptimizeAnythingOptions<Candidate, Example>,
): Promise<OptimizeAnythingResult<string | Candidate>> {
  // One form inside: the evaluator takes whichever form the seed has.
  const options = given as unknown as OptimizeAnythingOptions<string | Candidate, Example>;
  checkAnythingOptions(options as OptimizeAnythingOptions<string | Candidate, unknown>);
  const { seedCandidate, evaluator, dataset, valset, objective, background, refiner, ...shared } = options;
  // Not built yet: refused rather than ignored.
  if (refiner !== undefined) throw new ConfigError('invalid optimizeAnything options: refiner: not available yet in this build');
  const mode = searchModeOf(options);
  const stringCandidate = typeof seedCandidate !== 'object';
  const adapter = createAnythingAdapter<Example>({
    evaluator: evaluator as Parameters<typeof createAnythingAdapter<Example>>[0]['evaluator'],
    mode,
    stringCandidate,
    failFast: shared.failFast ?? false,
  });
  const config: OptimizeConfig<Example | undefined> = {
    ...anythingDefaults(mode),
    ...shared,
    ...examplesOf(mode, { ...(dataset ? { dataset } : {}), ...(valset ? { valset } : {}) }),
    seedCandidate: seedAsCandidate(seedCandidate ?? ''),
    adapter,
  };
  const context = reflectionContextOf({ ...(objective ? { objective } : {}), ...(background ? { background } : {}) });
  const prepared = prepareRun(config);
  const result = await optimize({
    ...prepared,
    settings: { ...prepared.settings, searchMode: mode },
    reflection: { ...prepared.reflection, context },
    // Seedless: the reflection model writes the seed first (the placeholder '' stands in until then).
    ...(seedCandidate === undefined ? { seedless: { prompt: buildSeedPrompt(context, dataset ?? []), component: STRING_COMPONENT } } : {}),
  });
  return inSeedForm(result, stringCandidate);
}

/** The result with each candidate as a string when the seed was one. */
function inSeedForm(result: OptimizeResult, stringCandidate: boolean): OptimizeAnythingResult<string | Candidate> {
  if (!stringCandidate) return result;
  const text = (c: Candidate): string => c[STRING_COMPONENT] ?? '';
  return { ...result, candidates: result.candidates.map(text), bestCandidate: text(result.bestCandidate) };
}
