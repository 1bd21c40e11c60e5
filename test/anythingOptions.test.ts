// Each bad input to optimizeAnything is refused with a ConfigError naming its field before any
// call: neither the evaluator nor the reflection model is called.
import { describe, expect, it } from 'vitest';
import { ConfigError, optimizeAnything, type OptimizeAnythingOptions } from '../src/index.js';

const calls = { evaluator: 0, reflection: 0 };
const good: OptimizeAnythingOptions<string, unknown> = {
  seedCandidate: 'x',
  evaluator: () => {
    calls.evaluator++;
    return 1;
  },
  reflectionLm: async () => {
    calls.reflection++;
    return '```\ny\n```';
  },
  maxMetricCalls: 10,
};

const cases: Array<[string, Record<string, unknown>, string]> = [
  ['a valset without a dataset', { valset: [1] }, 'valset: needs a dataset'],
  ['an empty dataset', { dataset: [] }, 'dataset: must not be empty'],
  ['an empty valset', { dataset: [1], valset: [] }, 'valset: must not be empty'],
  ['a dataset that is no array', { dataset: 'abc' }, 'dataset: must be an array'],
  ['no seed and no objective', { seedCandidate: undefined }, 'objective: is required without a seedCandidate'],
  ['no seed and a blank objective', { seedCandidate: undefined, objective: '  ' }, 'objective: is required without a seedCandidate'],
  ['a seed with no component', { seedCandidate: {} }, 'seedCandidate: needs at least one component'],
  ['a seed component that is no text', { seedCandidate: { a: 1 } }, 'seedCandidate.a: must be a string'],
  ['a seed that is a number', { seedCandidate: 3 }, 'seedCandidate: must be a string or a record'],
  ['no evaluator', { evaluator: undefined }, 'evaluator: must be a function'],
  ['an objective that is no text', { objective: 3 }, 'objective: must be a string'],
  ['a template beside an objective', { objective: 'win', reflectionPromptTemplate: '<curr_param> <side_info>' }, 'reflectionPromptTemplate: cannot be combined with objective or background'],
  ['a refiner with 0 refinements', { refiner: { maxRefinements: 0 } }, 'refiner.maxRefinements: must be a positive integer'],
  ['a refiner option that does not exist', { refiner: { rounds: 2 } }, 'refiner.rounds: is not an option'],
  ['a refiner model that is no model', { refiner: { refinerLm: 3 } }, 'refiner.refinerLm: must be a function or a model string'],
  ['optimize()\'s trainset', { trainset: [1] }, 'trainset: optimizeAnything takes `dataset` instead'],
  ['optimize()\'s adapter', { adapter: { evaluate: () => 1 } }, 'adapter: optimizeAnything takes `evaluator` instead'],
  ['no stop condition', { maxMetricCalls: undefined }, 'at least one stop condition is required'],
  ['a budget too small for the seed', { dataset: [1, 2, 3], maxMetricCalls: 2 }, 'maxMetricCalls: 2 cannot pay for evaluating the seed'],
];

describe('bad inputs are refused before any call', () => {
  it.each(cases)('%s', async (_name, change, message) => {
    calls.evaluator = 0;
    calls.reflection = 0;
    const options = { ...good, ...change } as unknown as OptimizeAnythingOptions<string, unknown>;
    const error = await optimizeAnything(options).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect(calls).toEqual({ evaluator: 0, reflection: 0 });
  });

  it('the good options run (the cases above differ from them only in the field named)', async () => {
    const result = await optimizeAnything(good);
    // The seed; a first proposal of two calls (the parent, the child 'y'); then six more whose
    // child 'y' is a cache hit, one call each; the tenth call could not pay for another's worst case.
    expect(result.metricCalls).toBe(9);
    expect(calls.reflection).toBe(7);
  });
});
