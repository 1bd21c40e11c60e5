// Seedless optimizeAnything: no seedCandidate. The reflection model writes the first candidate
// from the objective and the background (one reflection call, counted in the run), then the run
// improves it as usual. Offline: the service-config task's simulated reflection model.
// Run: npx tsx examples/anything-seedless.ts [--budget 60]
// In your own project, import from 'gepa-actors' and its subpaths ('gepa-actors/demo', ...)
// instead of '../src/index.js' and '../src/entries/*.js'.
import { parseArgs } from 'node:util';
import { optimizeAnything } from '../src/index.js';
import { createServiceConfigTask } from '../src/entries/demo.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '60' } } });

const task = createServiceConfigTask({ seed: 1 });

const result = await optimizeAnything({
  // No seedCandidate: `objective` is required, and the first candidate is the reflection model's.
  evaluator: (config: string, _example, ctx) => task.evaluate(config, undefined, ctx),
  objective: task.objective,
  background: task.background,
  reflectionLm: task.reflectionLm,
  maxMetricCalls: Number(values.budget),
});

console.log(`the reflection model wrote the seed:\n${result.candidates[0]}\n`);
console.log(`best score ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}) after ${result.metricCalls} metric calls and ${result.reflectionCalls} reflection calls`);
