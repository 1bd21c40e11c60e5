// optimizeAnything(): gepa's primary API on optimize()'s runtime. The options are checked and the
// mode chosen once (src/adapters/anything/), the user's evaluator becomes an adapter, and the run
// is optimize()'s own: the same actors, schedules, budgets and run directory. The built-in
// reflection prompt states the objective and background; a string seed gives string candidates back.
import { checkAnythingOptions, anythingDefaults, examplesOf, reflectionContextOf, searchModeOf, seedAsCandidate, STRING_COMPONENT, type OptimizeAnythingOptions, type RefinerOptions } from '../src/adapters/anything/anythingOptions.js';
import { createAnythingAdapter } from '../src/adapters/anything/anythingAdapter.js';
import { ConfigError } from '../src/configError.js';
import { buildSeedPrompt } from '../src/gepa/proposer/seedPrompt.js';
import { anythingRefinement } from '../src/adapters/anything/refiner.js';
import type { Refinement } from '../src/evaluation/refinement.js';
import type { ReflectionContext } from '../src/gepa/proposer/reflectionPrompt.js';
import { resolveLanguageModel } from '../src/lm/resolveLanguageModel.js';
import type { SlotAwareLanguageModel } from '../src/lm/slotAwareModel.js';
import { errorMessage } from '../src/errorMessage.js';
import { prepareRun, type PreparedRun } from '../src/run/preparedRun.js';
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
  const { seedCandidate, evaluator, dataset, valset, objective, background, refiner, images, ...shared } = options;
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
    // A run directory records the framing too: resuming with another objective or background is refused, naming it.
    ...(shared.runDir === undefined || (objective === undefined && background === undefined) ? {} : { runIdentity: { ...shared.runIdentity, ...reflectionContextOf({ ...(objective ? { objective } : {}), ...(background ? { background } : {}) }) } }),
  };
  const context = reflectionContextOf({ ...(objective ? { objective } : {}), ...(background ? { background } : {}) });
  const prepared = prepareRun(config);
  const refinement = refiner && refinementFor(refiner, prepared, context);
  if (images === true) {
    if (prepared.reflectionLm.acceptsImages !== true) throw new ConfigError(`invalid optimizeAnything options: reflectionLm: ${cannotSee}`);
    if (refinement && refinement.lm.acceptsImages !== true) throw new ConfigError(`invalid optimizeAnything options: refiner.refinerLm: ${cannotSee}`);
  }
  const result = await optimize({
    ...prepared,
    settings: { ...prepared.settings, searchMode: mode, ...(refinement ? { metricCallsPerEvaluation: 1 + refinement.maxRefinements } : {}) },
    ...(refinement ? { refinement } : {}),
    reflection: { ...prepared.reflection, context },
    // Seedless: the reflection model writes the seed first (the placeholder '' stands in until then).
    ...(seedCandidate === undefined ? { seedless: { prompt: buildSeedPrompt(context, dataset ?? []), component: STRING_COMPONENT } } : {}),
  });
  return inSeedForm(result, stringCandidate);
}

const cannotSee =
  'cannot take images, and images: true says side information holds them. Use a model that accepts images (an "openai:<model>" string, createOpenAILanguageModel, createAiSdkLanguageModel), or a function marked acceptsImages: true that reads ctx.content';

/**
 * The refiner as the evaluation service runs it: its model (default the reflection model) and
 * its refinements, checked against the budgets (each evaluation may make 1 + maxRefinements calls).
 */
function refinementFor(refiner: RefinerOptions, prepared: PreparedRun, context: ReflectionContext): Refinement {
  const maxRefinements = refiner.maxRefinements ?? 1;
  const { maxMetricCalls, maxCostUsd } = prepared.settings;
  const seedCalls = prepared.table.valIds.length * (1 + maxRefinements);
  if (maxMetricCalls !== undefined && maxMetricCalls < seedCalls) {
    throw new ConfigError(`invalid optimizeAnything options: maxMetricCalls: ${maxMetricCalls} cannot pay for evaluating the seed on the valset with the refiner (${seedCalls} calls at most)`);
  }
  let lm: SlotAwareLanguageModel = prepared.reflectionLm;
  if (refiner.refinerLm !== undefined) {
    try {
      lm = resolveLanguageModel(refiner.refinerLm);
    } catch (error) {
      throw new ConfigError(`invalid optimizeAnything options: refiner.refinerLm: ${errorMessage(error)}`);
    }
    if (maxCostUsd !== undefined && typeof (lm as SlotAwareLanguageModel).estimateMaxCostUsd !== 'function') {
      throw new ConfigError('invalid optimizeAnything options: refiner.refinerLm: a dollar budget (maxCostUsd) needs a model with a known price, so that each call can be reserved before it is made');
    }
  }
  return anythingRefinement(lm, maxRefinements, context);
}

/** The result with each candidate as a string when the seed was one. */
function inSeedForm(result: OptimizeResult, stringCandidate: boolean): OptimizeAnythingResult<string | Candidate> {
  if (!stringCandidate) return result;
  const text = (c: Candidate): string => c[STRING_COMPONENT] ?? '';
  return { ...result, candidates: result.candidates.map(text), bestCandidate: text(result.bestCandidate) };
}
