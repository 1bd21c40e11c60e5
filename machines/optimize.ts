// optimize(): run the optimizer machine on a config to its final state and return its output.
// A bad config fails with a ConfigError before any work: the machine validates it when the actor
// is created (launchOptimizer), and a durable run before it touches its directory.
// Runtime events reach config.onEvent; inspection events reach config.inspect. With a runDir
// the run is durable (src/durableRun.ts): logged, resumable, stoppable with a STOP file.
import { createActor, toPromise } from 'xstate';
import { systemClock } from '../src/clock.js';
import { runInDirectory } from '../src/storage/durableRun.js';
import type { OptimizeConfig, OptimizeResult, RunEvent } from '../src/types.js';
import { optimizerMachine } from './optimizer.machine.js';

export async function optimize<Example>(config: OptimizeConfig<Example>): Promise<OptimizeResult> {
  if (config.runDir !== undefined) return runInDirectory(config, launchOptimizer);
  return launchOptimizer(config)();
}

/** Creates the actor (a config the machine refuses throws here, before anything starts); the returned function starts it. */
function launchOptimizer<Example>(config: OptimizeConfig<Example>): () => Promise<OptimizeResult> {
  const actor = createActor(optimizerMachine, {
    input: config as OptimizeConfig<unknown>,
    clock: config.clock ?? systemClock,
    ...(config.inspect ? { inspect: config.inspect } : {}),
  });
  const initial = actor.getSnapshot();
  if (initial.status === 'error') throw initial.error;
  const onEvent = config.onEvent;
  if (onEvent) actor.on('*', (event) => onEvent(event as RunEvent));
  return () => {
    const done = toPromise(actor);
    actor.start();
    return done;
  };
}
