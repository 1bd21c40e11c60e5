// An optimizeAnything run put together, for optimizeAnything() (machines/optimizeAnything.ts) and
// the command line's `run` with an evaluator module alike: the options checked and the mode chosen
// once, the evaluator as an adapter, optimize()'s config with gepa's defaults, and what the
// prepared run needs beyond that config (the mode, the reflection prompt's framing, a seedless
// start's prompt, the refiner, the images check). Candidates come back as strings when the seed is one.
import { anythingDefaults, checkAnythingOptions, examplesOf, reflectionContextOf, searchModeOf, seedAsCandidate, STRING_COMPONENT, type OptimizeAnythingOptions, type RefinerOptions } from '../adapters/anything/anythingOptions.js';
import { createAnythingAdapter, type AnythingAdapterOptions } from '../adapters/anything/anythingAdapter.js';
import { anythingRefinement } from '../adapters/anything/refiner.js';
import type { Refinement } from '../evaluation/refinement.js';
import { ConfigError } from '../errors/configError.js';
import { errorMessage } from '../errors/errorMessage.js';
import { buildSeedPrompt } from '../gepa/proposer/seedPrompt.js';
import type { ReflectionContext } from '../gepa/proposer/reflectionPrompt.js';
import { resolveLanguageModel } from '../lm/resolveLanguageModel.js';
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { Candidate } from '../gepa/core/adapter.js';
import type { OptimizeConfig } from '../config/optimizeConfig.js';
import type { PreparedRun } from './preparedRun.js';

export interface AnythingRunParts<Example> {
  /** optimize()'s config: prepareRun (or the CLI's session) validates and prepares it. */
  config: OptimizeConfig<Example | undefined>;
  /** The prepared run with the search mode, the framing, the seedless prompt and the refiner added (throws ConfigError on a model that cannot take the images). */
  amend(prepared: PreparedRun): PreparedRun;
  /** The seed is a string (or absent): candidates are the text of the one component `candidate`. */
  stringCandidate: boolean;
}

/** Checks the options (a ConfigError naming the field, before any call) and builds the run's parts. */
export function anythingRunParts<Example>(options: OptimizeAnythingOptions<string | Candidate, Example>): AnythingRunParts<Example> {
  checkAnythingOptions(options as OptimizeAnythingOptions<string | Candidate, unknown>);
  const { seedCandidate, evaluator, batchEvaluator, dataset, valset, objective, background, refiner, images, captureStdio, ...shared } = options;
  const mode = searchModeOf(options);
  const stringCandidate = typeof seedCandidate !== 'object';
  const adapter = createAnythingAdapter<Example>({
    ...(evaluator ? { evaluator: evaluator as AnythingAdapterOptions<Example>['evaluator'] } : {}),
    ...(batchEvaluator ? { batchEvaluator: batchEvaluator as AnythingAdapterOptions<Example>['batchEvaluator'] } : {}),
    mode,
    stringCandidate,
    failFast: shared.failFast ?? false,
    captureStdio: captureStdio === true,
  });
  const context = reflectionContextOf({ ...(objective ? { objective } : {}), ...(background ? { background } : {}) });
  const config: OptimizeConfig<Example | undefined> = {
    ...anythingDefaults(mode),
    ...shared,
    ...examplesOf(mode, { ...(dataset ? { dataset } : {}), ...(valset ? { valset } : {}) }),
    seedCandidate: seedAsCandidate(seedCandidate ?? ''),
    adapter,
    // A run directory records the framing too: resuming with another objective or background is refused, naming it.
    ...(shared.runDir === undefined || (objective === undefined && background === undefined) ? {} : { runIdentity: { ...shared.runIdentity, ...context } }),
  };
  return {
    config,
    stringCandidate,
    amend: (prepared) => {
      const refinement = refiner && refinementFor(refiner, prepared, context);
      if (images === true) {
        if (prepared.reflectionLm.acceptsImages !== true) throw new ConfigError(`invalid optimizeAnything options: reflectionLm: ${cannotSee}`);
        if (refinement && refinement.lm.acceptsImages !== true) throw new ConfigError(`invalid optimizeAnything options: refiner.refinerLm: ${cannotSee}`);
      }
      return {
        ...prepared,
        settings: {
          ...prepared.settings,
          searchMode: mode,
          ...(refinement ? { metricCallsPerEvaluation: 1 + refinement.maxRefinements } : {}),
        },
        ...(refinement ? { refinement } : {}),
        reflection: { ...prepared.reflection, context },
        // Seedless: the reflection model writes the seed first (the placeholder '' stands in until then).
        ...(seedCandidate === undefined ? { seedless: { prompt: buildSeedPrompt(context, dataset ?? [], prepared.settings.maxCandidateLength), component: STRING_COMPONENT } } : {}),
      };
    },
  };
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
  return anythingRefinement(lm, maxRefinements, context, prepared.settings.maxCandidateLength);
}
