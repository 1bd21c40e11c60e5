// Quick start: optimize() on the built-in offline demo task (simulated task and reflection
// models: no network, no key). Run: npx tsx examples/quickstart.ts [--budget 400]
// In your own project, import from 'gepa-actors' and its subpaths ('gepa-actors/demo', ...)
// instead of '../src/index.js' and '../src/entries/*.js'.
import { parseArgs } from 'node:util';
import { optimize } from '../src/index.js';
import { createDemoTask } from '../src/entries/demo.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '400' } } });

// The demo task: support tickets of an online shop, a seed prompt that knows none of the shop's
// conventions, an adapter that scores answers, and a reflection model that proposes new rules.
const task = createDemoTask({ seed: 0 });

const result = await optimize({
  seedCandidate: task.seedCandidate,
  trainset: task.trainset,
  valset: task.valset,
  adapter: task.adapter,
  reflectionLm: task.reflectionLm,
  maxMetricCalls: Number(values.budget), // never exceeded
  schedule: { kind: 'batched', parents: 2, perParent: 2 },
  workers: 8, // one budget for every metric call and LM call
  onEvent: (event) => {
    if (event.type === 'candidate.accepted') console.log(`candidate #${event.index} from #${event.parents.join(', #')}: valset ${event.valScore.toFixed(3)}`);
  },
});

console.log(`\nbest valset score ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}) after ${result.metricCalls} metric calls`);
console.log(`best prompt:\n${result.bestCandidate.system_prompt}`);
