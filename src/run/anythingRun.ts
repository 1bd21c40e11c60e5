// An optimizeAnything run put together for the command line's `run` with an evaluator module
// (machines/optimizeAnything.ts composes the same steps, plus the refiner and images): the
// options checked and the mode chosen once, the evaluator as an adapter, optimize()'s config with
// gepa's defaults, and what the prepared run needs beyond that config (the mode, the reflection
// prompt's framing, a seedless start's prompt). Candidates come back as strings when the seed is one.
import { anythingDefaults, checkAnythingOptions, examplesOf, reflectionContextOf, searchModeOf, seedAsCandidate, STRING_COMPONENT, type OptimizeAnythingOptions } from '../adapters/anything/anythingOptions.js';
import { createAnythingAdapter } from '../adapters/anything/anythingAdapter.js';
import { ConfigError } from '../configError.js';
import { buildSeedPrompt } from '../gepa/proposer/seedPrompt.js';
import type { Candidate, OptimizeConfig } from '../types.js';
import type { PreparedRun } from './preparedRun.js';

export interface AnythingRunParts<Example> {
  /** optimize()'s config: prepareRun (or the CLI's session) validates and prepares it. */
  config: OptimizeConfig<Example | undefined>;
  /** The prepared run with the search mode, the framing and the seedless prompt added. */
  amend(prepared: PreparedRun): PreparedRun;
  /** The seed is a string (or absent): candidates are the text of the one component `candidate`. */
  stringCandidate: boolean;
}

/** Checks the options (a ConfigError naming the field, before any call) and builds the run's parts. */
export function anythingRunParts<Example>(options: OptimizeAnythingOptions<string | Candidate, Example>): AnythingRunParts<Example> {
  checkAnythingOptions(options as OptimizeAnythingOptions<string | Candidate, unknown>);
  const { seedCandidate, evaluator, dataset, valset, objective, background, refiner, images, ...shared } = options;
  // The run config has no refiner or images yet; the library's optimizeAnything takes both.
  if (refiner !== undefined || images !== undefined) throw new ConfigError(`invalid optimizeAnything options: ${refiner !== undefined ? 'refiner' : 'images'}: not available from the run config (call optimizeAnything)`);
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
  return {
    config,
    stringCandidate,
    amend: (prepared) => ({
      ...prepared,
      settings: { ...prepared.settings, searchMode: mode },
      reflection: { ...prepared.reflection, context },
      // Seedless: the reflection model writes the seed first (the placeholder '' stands in until then).
      ...(seedCandidate === undefined ? { seedless: { prompt: buildSeedPrompt(context, dataset ?? []), component: STRING_COMPONENT } } : {}),
    }),
  };
}
