// Multi-task search with optimizeAnything: a dataset and no valset, so the dataset is also what
// candidates are judged on. The artifact is a prompt that tells a (simulated) model how to
// normalize customer records; the evaluator scores one record and returns the mismatches as side
// information, which the reflection model reads. Add `valset` for generalization to unseen records.
// Offline: the record task's simulated models. Run: npx tsx examples/anything-multi-task.ts [--budget 300]
// In your own project, import from 'gepa-actors' and its subpaths ('gepa-actors/demo', ...)
// instead of '../src/index.js' and '../src/entries/*.js'.
import { parseArgs } from 'node:util';
import { optimizeAnything } from '../src/index.js';
import { createRecordTask, type RecordExample } from '../src/entries/demo.js';

const { values } = parseArgs({ options: { budget: { type: 'string', default: '300' } } });

const task = createRecordTask({ seed: 0, trainSize: 24 });

const result = await optimizeAnything<RecordExample>({
  seedCandidate: task.seedCandidate,
  evaluator: (prompt, record, ctx) => task.evaluate(prompt, record, ctx), // { score, sideInfo: { Input, Output, Expected, Mismatches } }
  dataset: task.dataset as RecordExample[],
  objective: task.objective,
  background: task.background,
  reflectionLm: task.reflectionLm,
  maxMetricCalls: Number(values.budget),
  schedule: { kind: 'batched', parents: 2, perParent: 2 },
});

console.log(`best mean over the ${task.dataset?.length} records ${result.bestScore.toFixed(3)} (seed ${result.valScores[0]?.toFixed(3)}) after ${result.metricCalls} metric calls`);
console.log(`best prompt:\n${result.bestCandidate}`);
