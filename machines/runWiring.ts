// The run's wiring as an actor: what the optimizer works with besides its state (the prepared
// run: settings, example table, executor, models, hooks, clock, journal; and the controller that
// aborts every call in flight), held by a 'run' actor the optimizer spawns as it is made, so its
// context holds a reference (plain data) instead. Which input it prepares, and how, is the edge's
// (machines/optimize.ts provides runWiringActor(prepareRun)); this file's default takes a PreparedRun only.
import { fromTransition, type ActorRefFrom, type ActorSystem, type EventObject } from 'xstate';
import { ConfigError } from '../src/errors/configError.js';
import { isPreparedRun, type PreparedRun, type RunSettings } from '../src/run/preparedRun.js';
import type { OptimizeConfig } from '../src/config/optimizeConfig.js';
import type { WrittenSeed } from '../src/gepa/search/searchRun.js';

/** What the optimizer is given: a prepared run; the package's optimizerMachine (machines/optimize.ts) also takes an OptimizeConfig and prepares it. */
export type OptimizerInput = OptimizeConfig<unknown> | PreparedRun;

/** What the run works with besides its state: the prepared run (settings, table, executor, models, hooks, clock, journal) and the controller that aborts every call in flight when the run stops early. */
export interface RunWiring {
  prepared: PreparedRun;
  abort: AbortController;
}

/**
 * The actor that holds the run's wiring for its life (spawned as 'run' when the run is made), so
 * the optimizer's context holds only a reference to it: `prepare` turns the input into a
 * PreparedRun (the edge's assembly, machines/optimize.ts; this file's default takes a prepared
 * run as it is and refuses a config).
 */
export const runWiringActor = (prepare: (input: OptimizerInput) => PreparedRun) =>
  fromTransition<RunWiring, EventObject, ActorSystem<any>, OptimizerInput>((wiring) => wiring, ({ input }) => ({ prepared: prepare(input), abort: new AbortController() }));

/** A reference to the spawned wiring actor (in the optimizer's context; JSON gives its id). */
export type RunWiringRef = ActorRefFrom<ReturnType<typeof runWiringActor>>;

/** The default preparation: a PreparedRun as it is; a config is refused (the package's optimizerMachine prepares one). */
export function preparedOnly(input: OptimizerInput): PreparedRun {
  if (isPreparedRun(input)) return input;
  throw new ConfigError("machines/optimizer.machine.ts's optimizerMachine takes a prepared run: give an OptimizeConfig to the package's optimizerMachine ('gepa-actors'), which prepares it");
}

/** What the wiring actor holds, read through the reference in a context. */
export const wiringOf = (context: { wiring: RunWiringRef }): RunWiring => context.wiring.getSnapshot().context;
export const preparedOf = (context: { wiring: RunWiringRef }): PreparedRun => wiringOf(context).prepared;
/** The run's settings; a seedless run's written seed (kept in the context: plain data) stands in for the placeholder. */
export const settingsOf = (context: { wiring: RunWiringRef; run: { writtenSeed?: WrittenSeed } }): RunSettings =>
  context.run.writtenSeed === undefined ? preparedOf(context).settings : { ...preparedOf(context).settings, ...context.run.writtenSeed };

