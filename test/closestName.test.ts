// "Did you mean": a typo finds its field; another word does not.
import { describe, expect, it } from 'vitest';
import { closestName } from '../src/config/closestName.js';

describe('closestName', () => {
  const fields = ['maxMetricCalls', 'maxCostUsd', 'reflectionModel', 'taskModel', 'seed', 'runDir'];
  it.each([
    ['maxMetricCall', 'maxMetricCalls'],
    ['maxmetriccalls', 'maxMetricCalls'],
    ['reflectionModle', 'reflectionModel'],
    ['rundir', 'runDir'],
    ['sed', 'seed'],
  ])('%s -> %s', (typo, field) => expect(closestName(typo, fields)).toBe(field));
  it.each(['budget', 'model', 'x'])('%s has no near field', (word) => expect(closestName(word, fields)).toBeUndefined());
});
