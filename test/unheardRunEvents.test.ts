// optimize() owns its optimizer actor: with no onEvent and no inspect nobody can hear its run
// events, so it emits none of the per-proposal ones (PreparedRun.unheard); the run itself is the
// same. An embedded optimizerMachine, whose actor anyone may listen to, always emits them.
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock, toPromise } from 'xstate';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { createDemoTask } from '../src/demo/demoTask.js';
import { optimize, optimizerMachine, type OptimizeConfig, type RunEvent, type Schedule } from '../src/index.js';
import { prepareRun } from '../src/run/prepareRun.js';

function demoConfig(schedule: Schedule): OptimizeConfig<unknown> {
  const clock = steppingClock(new SimulatedClock());
  const task = createDemoTask({ seed: 3, metricCallMs: 20, reflectionMs: 80, clock });
  return { seedCandidate: task.seedCandidate, trainset: task.trainset, valset: task.valset, adapter: task.adapter, reflectionLm: task.reflectionLm, schedule, workers: 8, maxMetricCalls: 240, seed: 2, clock, telemetry: false } as OptimizeConfig<unknown>;
}

async function embedded(config: OptimizeConfig<unknown>, unheard: boolean) {
  const prepared = prepareRun(config);
  const actor = createActor(optimizerMachine, { input: unheard ? { ...prepared, unheard: true as const } : prepared, clock: prepared.clock });
  const events: string[] = [];
  actor.on('*', (event) => void events.push((event as RunEvent).type));
  const done = toPromise(actor);
  actor.start();
  return { result: await runOnSimulatedClock(prepared.clock as ReturnType<typeof steppingClock>, done), events };
}

describe('run events nobody can hear are not made', () => {
  it.each<[string, Schedule]>([
    ['async', { kind: 'async', inFlight: 4 }],
    ['batched', { kind: 'batched', parents: 2, perParent: 2 }],
  ])('%s: unheard, the optimizer emits no per-proposal event, and the run is the same', async (_, schedule) => {
    const heard = await embedded(demoConfig(schedule), false);
    const unheard = await embedded(demoConfig(schedule), true);
    expect(unheard.result).toEqual(heard.result);
    expect(heard.events).toContain('proposal.started');
    expect(heard.events).toContain('budget.updated');
    // What is left: the run's bounds, once each.
    expect(unheard.events).toEqual(['run.started', 'run.ended']);
  });

  it('optimize() with a listener hears every event; without one its result is the same', async () => {
    const config = demoConfig({ kind: 'async', inFlight: 4 });
    const events: RunEvent[] = [];
    const clock = config.clock as ReturnType<typeof steppingClock>;
    const listened = await runOnSimulatedClock(clock, optimize({ ...config, onEvent: (e) => events.push(e) }));
    expect(events.filter((e) => e.type === 'proposal.ended')).toHaveLength(listened.proposals.length);
    const silentConfig = demoConfig({ kind: 'async', inFlight: 4 });
    const silent = await runOnSimulatedClock(silentConfig.clock as ReturnType<typeof steppingClock>, optimize(silentConfig));
    expect(silent).toEqual(listened);
  });
});
