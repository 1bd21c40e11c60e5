// optimize(): run the optimizer machine on a config to its final state and return its output.
// The config is validated once, before any work (prepareRun throws a ConfigError naming the
// field); a durable run then checks its directory before it writes to it. Runtime events reach
// config.onEvent; inspection events reach config.inspect. With a runDir the run is durable
// (src/run/durableRun.ts): logged, resumable, stoppable with a STOP file.
import { createActor, toPromise } from 'xstate';
import { prepareRun, type PreparedRun } from '../src/run/preparedRun.js';
import { runInDirectory } from '../src/run/durableRun.js';
import type { OptimizeConfig, OptimizeResult, RunEvent } from '../src/types.js';
import { optimizerMachine } from './optimizer.machine.js';

/**
 * Runs GEPA on `config` until a stop condition holds and returns the result: the pool, the best
 * candidate, what was spent and why it stopped. The config is validated first (a ConfigError
 * names the field). With `runDir` the run is durable: calling it again with the same config
 * resumes it, paying nothing twice.
 */
export async function optimize<Example>(config: OptimizeConfig<Example> | PreparedRun): Promise<OptimizeResult> {
  const prepared = prepareRun(config);
  const result = prepared.config.runDir !== undefined ? await runInDirectory(prepared, launchOptimizer) : await launchOptimizer(prepared)();
  prepared.callbacks?.finish(result);
  return result;
}

/** Creates the actor; the returned function starts it. */
function launchOptimizer(prepared: PreparedRun): () => Promise<OptimizeResult> {
  const actor = createActor(optimizerMachine, {
    input: prepared,
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
