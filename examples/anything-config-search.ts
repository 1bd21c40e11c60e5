// Single-task search with optimizeAnything: one artifact (a service's config), scored by running
// it (a simulated 60-second load test against a hidden workload), improved from the load test's
// report, which the evaluator returns as side information. No dataset: the evaluator is called
// without an example, and the candidate is the solution. Offline: the reflection model is the
// task's simulated one. Run: npx tsx examples/anything-config-search.ts [--budget 80] [--seed 3]
// In your own project, import from 'gepa-actors' and its subpaths ('gepa-actors/demo', ...)
// instead of '../src/index.js' and '../src/entries/*.js'.
import { parseArgs } from 'node:util';
import { log, optimizeAnything } from '../src/index.js';
import { createServiceConfigTask } from '../src/entries/demo.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '80' }, seed: { type: 'string', default: '3' } } });

const task = createServiceConfigTask({ seed: Number(values.seed) });

const result = await optimizeAnything({
  seedCandidate: task.seedCandidate, // a string: candidates come back as strings
  // Your evaluator runs the artifact and says what happened; log() adds lines to this call's side information.
  evaluator: async (config, _example, ctx) => {
    const run = await task.evaluate(config, undefined, ctx);
    log(`load test finished: ${String(run.sideInfo.status)}`);
    return run; // { score, sideInfo }
  },
  objective: task.objective,
  background: task.background,
  reflectionLm: task.reflectionLm,
  maxMetricCalls: Number(values.budget),
  onEvent: (event) => {
    if (event.type === 'candidate.accepted') console.log(`candidate #${event.index}: score ${event.valScore.toFixed(3)}`);
  },
});

console.log(`\nbest score ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}) after ${result.metricCalls} load tests`);
console.log(`best config:\n${result.bestCandidate}`);
