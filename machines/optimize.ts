// The edge where a run is assembled: optimize() and the package's optimizerMachine take an
// OptimizeConfig (or a PreparedRun) and prepare it here (src/run/prepareRun.ts validates it once,
// with a ConfigError naming the field), so the optimizer machine only runs prepared runs. Events
// reach config.onEvent, inspection config.inspect; with a runDir the run is durable
// (src/run/durableRun.ts: logged, resumable, stoppable with a STOP file).
// Room machines/: imported by the package entries and the command (src/cli/), nothing below them.
import { createActor, toPromise } from 'xstate';
import { prepareRun } from '../src/run/prepareRun.js';
import type { PreparedRun } from '../src/run/preparedRun.js';
import { runInDirectory } from '../src/run/durableRun.js';
import { throwIfFailed } from '../src/run/runFailedError.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { OptimizeResult } from '../src/gepa/core/optimizeResult.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';
import { optimizerMachine as preparedRunOptimizer } from './optimizer.machine.js';
import { runWiringActor } from './runWiring.js';

/**
 * The optimizer machine to embed: `createActor(optimizerMachine, { input })` with an
 * OptimizeConfig or a PreparedRun runs to an OptimizeResult (its output). The config is prepared
 * as the actor is made (an invalid one leaves the actor in an error snapshot with the
 * ConfigError); `provide({ actors: { evaluator, proposer } })` swaps an actor.
 */
export const optimizerMachine = preparedRunOptimizer.provide({ actors: { run: runWiringActor((input) => prepareRun(input)) } });

/**
 * Runs GEPA on `config` until a stop condition holds and returns the result: the pool, the best
 * candidate, what was spent and why it stopped. The config is validated first (a ConfigError
 * names the field). A run whose work failed rejects with RunFailedError (its `result` the partial
 * result, its `cause` the first error), never resolves. With `runDir` the run is durable: calling
 * it again with the same config resumes it, paying nothing twice (a failed run too, once fixed).
 */
export async function optimize<Example>(config: OptimizeConfig<Example> | PreparedRun): Promise<OptimizeResult> {
  const prepared = prepareRun(config);
  // The first failed call's error, as it was thrown, is a failed run's cause.
  let firstError: unknown;
  const launch = (run: PreparedRun) => launchOptimizer({ ...run, onFailedCall: (error) => void (firstError ??= error) });
  const result = prepared.config.runDir !== undefined ? await runInDirectory(prepared, launch) : await launch(prepared)();
  prepared.callbacks?.finish(result);
  // failFast: a callback that failed after the run's last event (onOptimizationEnd) fails it too.
  const fatal = prepared.callbacks?.fatalError();
  const judged = fatal && result.stopReason !== 'error' ? { ...result, stopReason: 'error', error: fatal.message } : result;
  return throwIfFailed(judged, () => fatal?.error ?? firstError);
}

/** Creates the actor; the returned function starts it (runInDirectory's launch). */
export function launchOptimizer(prepared: PreparedRun): () => Promise<OptimizeResult> {
  // This actor is never handed out: with no listener and no inspection, its run events have no audience.
  const heard = prepared.onEvent !== undefined || prepared.inspect !== undefined;
  const actor = createActor(preparedRunOptimizer, {
    input: heard ? prepared : { ...prepared, unheard: true },
    clock: prepared.clock,
    ...(prepared.inspect ? { inspect: prepared.inspect } : {}),
  });
  const initial = actor.getSnapshot();
  if (initial.status === 'error') throw initial.error;
  const onEvent = prepared.onEvent;
  if (onEvent) actor.on('*', (event) => onEvent(event as RunEvent));
  return () => {
    const done = toPromise(actor);
    actor.start();
    return done;
  };
}
