// The records the reflection LM reads: the default Inputs / Generated Outputs / Feedback
// records with their fallbacks, and the adapter's own dataset when it has one.
import { describe, expect, it } from 'vitest';
import { buildReflectiveDataset, defaultReflectiveDataset } from '../src/gepa/proposer/reflectiveDataset.js';
import type { Adapter, Candidate, EvaluatedExample, ReflectiveDataset } from '../src/gepa/core/adapter.js';

interface Example {
  question: string;
  answer: string;
}

const results: EvaluatedExample<Example>[] = [
  { example: { question: '2+2', answer: '4' }, evaluation: { score: 0, output: '5', feedback: 'Off by one.' } },
  { example: { question: '3+3', answer: '6' }, evaluation: { score: 0.5 } },
  { example: { question: '1+1', answer: '2' }, evaluation: { score: 1, output: null, feedback: '' } },
];

describe('defaultReflectiveDataset', () => {
  it('makes one record per example with Inputs, Generated Outputs and Feedback', () => {
    const dataset = defaultReflectiveDataset(results, ['system']);
    expect(Object.keys(dataset)).toEqual(['system']);
    expect(dataset.system).toEqual([
      { Inputs: { question: '2+2', answer: '4' }, 'Generated Outputs': '5', Feedback: 'Off by one.' },
      // No output, no feedback: the fallbacks.
      { Inputs: { question: '3+3', answer: '6' }, 'Generated Outputs': '(no output)', Feedback: 'Score: 0.5' },
      // A null output falls back; an empty feedback string is kept as given.
      { Inputs: { question: '1+1', answer: '2' }, 'Generated Outputs': '(no output)', Feedback: '' },
    ]);
  });

  it('keeps falsy outputs that are real values', () => {
    const dataset = defaultReflectiveDataset([{ example: 'x', evaluation: { score: 0, output: 0 } }], ['c']);
    expect(dataset.c).toEqual([{ Inputs: 'x', 'Generated Outputs': 0, Feedback: 'Score: 0' }]);
  });

  it('gives every requested component the same records, and no others', () => {
    const dataset = defaultReflectiveDataset(results, ['planner', 'answerer']);
    expect(Object.keys(dataset)).toEqual(['planner', 'answerer']);
    expect(dataset.answerer).toEqual(dataset.planner);
    expect(dataset.planner).toHaveLength(3);
    expect(defaultReflectiveDataset(results, [])).toEqual({});
  });
});

describe('buildReflectiveDataset', () => {
  const candidate: Candidate = { system: 'Add numbers.' };
  const evaluate: Adapter<Example>['evaluate'] = async () => ({ score: 0 });

  it('uses the default records when the adapter has no makeReflectiveDataset', async () => {
    const dataset = await buildReflectiveDataset({ evaluate }, candidate, results, ['system']);
    expect(dataset).toEqual(defaultReflectiveDataset(results, ['system']));
  });

  it("uses the adapter's own dataset, called with the candidate, results and components", async () => {
    const calls: Array<[Candidate, number, readonly string[]]> = [];
    const own: ReflectiveDataset = { system: [{ Question: '2+2', Hint: 'carry the one' }] };
    const adapter: Adapter<Example> = {
      evaluate,
      makeReflectiveDataset: (c, r, comps) => {
        calls.push([c, r.length, comps]);
        return own;
      },
    };
    expect(await buildReflectiveDataset(adapter, candidate, results, ['system'])).toEqual(own);
    expect(calls).toEqual([[candidate, 3, ['system']]]);
  });

  it('awaits an asynchronous adapter dataset', async () => {
    const adapter: Adapter<Example> = { evaluate, makeReflectiveDataset: async () => ({ system: [{ Note: 'async' }] }) };
    expect(await buildReflectiveDataset(adapter, candidate, results, ['system'])).toEqual({ system: [{ Note: 'async' }] });
  });
});
