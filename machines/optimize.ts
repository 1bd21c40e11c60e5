// optimize(): run the optimizer machine on a config to its final state and return its output.
// The config is validated first, so a bad one fails with a ConfigError before any work.
// Runtime events reach config.onEvent; inspection events reach config.inspect.
import { createActor, toPromise } from 'xstate';
import { systemClock } from '../src/clock.js';
import { resolveSettings } from '../src/runSettings.js';
import type { OptimizeConfig, OptimizeResult, RunEvent } from '../src/types.js';
import { optimizerMachine } from './optimizer.machine.js';

export async function optimize<Example>(config: OptimizeConfig<Example>): Promise<OptimizeResult> {
  resolveSettings(config);
  const actor = createActor(optimizerMachine, {
    input: config as OptimizeConfig<unknown>,
    clock: config.clock ?? systemClock,
    ...(config.inspect ? { inspect: config.inspect } : {}),
  });
  const onEvent = config.onEvent;
  if (onEvent) actor.on('*', (event) => onEvent(event as RunEvent));
  actor.start();
  return toPromise(actor);
}
