// Component selection: round-robin per candidate pointer, all at once, and the pointer a child
// inherits from its parents.
import { describe, expect, it } from 'vitest';
import { inheritedPointer } from '../src/gepa/core/candidatePool.js';
import { selectComponents } from '../src/gepa/strategies/componentSelection.js';

const names = ['system', 'planner', 'answer'] as const;

describe('selectComponents', () => {
  it('round-robin picks one component and advances the pointer, wrapping around', () => {
    let pointer = 0;
    const picked: string[] = [];
    for (let i = 0; i < 7; i++) {
      const choice = selectComponents('round-robin', names, pointer);
      expect(choice.components).toHaveLength(1);
      picked.push(choice.components[0] as string);
      pointer = choice.nextPointer;
    }
    expect(picked).toEqual(['system', 'planner', 'answer', 'system', 'planner', 'answer', 'system']);
    expect(pointer).toBe(1);
  });

  it('round-robin reads a pointer past the end modulo the number of components', () => {
    expect(selectComponents('round-robin', names, 4)).toEqual({ components: ['planner'], nextPointer: 2 });
    expect(selectComponents('round-robin', names, 2)).toEqual({ components: ['answer'], nextPointer: 0 });
  });

  it('round-robin with one component always picks it', () => {
    expect(selectComponents('round-robin', ['only'], 0)).toEqual({ components: ['only'], nextPointer: 0 });
  });

  it("'all' picks every component in order and leaves the pointer alone", () => {
    const choice = selectComponents('all', names, 2);
    expect(choice).toEqual({ components: ['system', 'planner', 'answer'], nextPointer: 2 });
    expect(choice.components).not.toBe(names);
  });
});

describe('inheritedPointer', () => {
  it('is the max of the parents pointers, 0 for no parents', () => {
    expect(inheritedPointer([])).toBe(0);
    expect(inheritedPointer([1])).toBe(1);
    expect(inheritedPointer([1, 2, 0])).toBe(2);
  });
});
