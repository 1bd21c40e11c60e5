// Embedding the optimizer as a state machine inside your app: createActor on optimizerMachine,
// progress through actor.on(...) (the RunEvents it emits) and actor.subscribe (its state), and
// a stop through the AbortSignal in its input: the run then ends at once with what it found.
// Run: npx tsx examples/embed-machine.ts [--budget 600] [--stop-after 3]
import { parseArgs } from 'node:util';
import { createActor, toPromise } from 'xstate';
import { optimizerMachine, type OptimizeConfig } from '../src/index.js';
import { createDemoTask, type DemoExample } from '../src/entries/demo.js';

const { values } = parseArgs({
  options: { budget: { type: 'string', default: '600' }, 'stop-after': { type: 'string', default: '3' } },
});
const stopAfter = Number(values['stop-after']);

// Small simulated latencies, so that there is a run in progress to watch and to stop.
// The held-out testset is not an option of optimize(), which refuses fields it does not know.
const { testset: _heldOut, ...task } = createDemoTask({ metricCallMs: 5, reflectionMs: 20 });
const stop = new AbortController();

const config: OptimizeConfig<DemoExample> = {
  ...task,
  maxMetricCalls: Number(values.budget),
  schedule: { kind: 'async', inFlight: 4 },
  workers: 8,
  signal: stop.signal,
};
const actor = createActor(optimizerMachine, { input: config as OptimizeConfig<unknown> });

// Emitted RunEvents: typed, one handler per event type (or '*' for all of them).
let accepted = 0;
actor.on('candidate.accepted', (event) => {
  accepted++;
  console.log(`candidate #${event.index}: valset ${event.valScore.toFixed(3)}`);
  // Your app decides when it has seen enough: aborting the signal stops the run now.
  if (accepted >= stopAfter) stop.abort(new Error(`stopped by the app after ${accepted} candidates`));
});
let reported = 0;
actor.on('budget.updated', (event) => {
  if (event.metricCalls < reported + 100) return;
  reported = event.metricCalls;
  console.log(`  ${event.metricCalls} metric calls spent`);
});

// The machine's own state: seeding, flowing (async) or planning/stepping (batched), draining, done.
let lastState = '';
actor.subscribe((snapshot) => {
  const state = JSON.stringify(snapshot.value);
  if (state !== lastState) console.log(`optimizer state: ${state}`);
  lastState = state;
});

actor.start();
const result = await toPromise(actor);
console.log(`\nstopped (${result.stopReason}) with ${result.candidates.length} candidates; best valset score ${result.bestScore.toFixed(3)}`);
