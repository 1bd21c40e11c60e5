// Side information as gepa reads it: objective scores from `scores` and from
// `<component>_specific_info.scores`, the reflection's record per component (scores renamed,
// the component's own specific information merged, the others' left out), and a run whose
// objective front comes from the evaluator's scores.
import { describe, expect, it } from 'vitest';
import { objectiveScores, readEvaluatorResult, reflectionRecord } from '../src/adapters/anything/sideInfo.js';
import { optimizeAnything } from '../src/index.js';
import { appendingReflection } from './support/anythingTask.js';

const sideInfo = {
  scores: { accuracy: 0.7, cost: 'high' },
  Feedback: 'too informal',
  system_specific_info: { scores: { tone: 0.3 }, Analysis: 'casual' },
  user_specific_info: { Analysis: 'fine' },
};

describe('side information', () => {
  it('objective scores: the numbers under scores, and a component\'s as <component>::<name>', () => {
    expect(objectiveScores(sideInfo, ['system', 'user'])).toEqual({ accuracy: 0.7, 'system::tone': 0.3 });
    expect(objectiveScores({ Feedback: 'x' }, ['system'])).toBeUndefined();
  });

  it('the record a component\'s reflection reads', () => {
    expect(reflectionRecord(0.5, sideInfo, 'system')).toEqual({
      Score: 0.5,
      'Scores (higher is better)': { accuracy: 0.7, cost: 'high' },
      Feedback: 'too informal',
      scores: { tone: 0.3 },
      Analysis: 'casual',
    });
    expect(reflectionRecord(0.5, sideInfo, 'user')).toEqual({ Score: 0.5, 'Scores (higher is better)': { accuracy: 0.7, cost: 'high' }, Feedback: 'too informal', Analysis: 'fine' });
  });

  it('reads a number, { score, sideInfo }, and refuses anything else', () => {
    expect(readEvaluatorResult(0.25, ['a'])).toEqual({ score: 0.25, sideInfo: { log: 'a' } });
    expect(readEvaluatorResult({ score: 1, sideInfo: { log: 'mine' } }, ['a', 'b'])).toEqual({ score: 1, sideInfo: { log: 'mine', _gepa_log: 'a\nb' } });
    expect(readEvaluatorResult('0.5', []).problem).toBe('the evaluator returned a string ("0.5"), not a finite number or { score, sideInfo }');
    expect(readEvaluatorResult({ score: Number.NaN }, []).problem).toContain('not a finite number');
    expect(readEvaluatorResult({ score: 1, sideInfo: [1] }, []).problem).toBe('sideInfo must be a record, got [1]');
  });

  it('sideInfo.scores make the objective fronts: a candidate best on one objective is on its front', async () => {
    // Each word the artifact adds trades one objective for the other: 'short' falls, 'long' rises.
    let fronts: ReadonlyArray<readonly number[]> = [];
    const result = await optimizeAnything({
      seedCandidate: 'w',
      evaluator: (artifact) => {
        const words = artifact.split(' ').length;
        return { score: words, sideInfo: { Next: `w${words}`, scores: { short: 1 / words, long: words } } };
      },
      reflectionLm: appendingReflection(),
      frontType: 'objective',
      // Always the newest candidate as parent; the fronts it is shown are what is checked.
      selectCandidate: (pool) => {
        fronts = pool.fronts;
        return pool.candidates.length - 1;
      },
      maxMetricCalls: 7,
    });
    expect(result.candidates).toEqual(['w', 'w w1', 'w w1 w2', 'w w1 w2 w3']);
    // At the last planning (three candidates), fronts by objective name: 'long' has the newest, 'short' the seed.
    expect(fronts).toEqual([[2], [0]]);
  });
});
