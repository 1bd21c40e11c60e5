// Stop conditions: target score, a perfect best, steps without improvement (the budget's refusals: budgetLedger.test.ts).
import { describe, expect, it } from 'vitest';
import { progressStopReason } from '../src/gepa/strategies/stopConditions.js';

describe('progressStopReason', () => {
  it('stops when the best score reaches the target (>=)', () => {
    expect(progressStopReason({ bestScore: 0.9, stepsWithoutImprovement: 0, targetScore: 0.9 })).toBe('targetScore');
    expect(progressStopReason({ bestScore: 0.95, stepsWithoutImprovement: 0, targetScore: 0.9 })).toBe('targetScore');
    expect(progressStopReason({ bestScore: 0.85, stepsWithoutImprovement: 0, targetScore: 0.9 })).toBeNull();
  });

  it('stops after maxStepsWithoutImprovement steps in a row without a better best', () => {
    expect(progressStopReason({ bestScore: 0.5, stepsWithoutImprovement: 3, maxStepsWithoutImprovement: 3 })).toBe('maxStepsWithoutImprovement');
    expect(progressStopReason({ bestScore: 0.5, stepsWithoutImprovement: 2, maxStepsWithoutImprovement: 3 })).toBeNull();
  });

  it('stops at perfectScore when given (skipPerfectScore on), after the target', () => {
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 0, perfectScore: 1 })).toBe('perfectScore');
    expect(progressStopReason({ bestScore: 0.99, stepsWithoutImprovement: 0, perfectScore: 1 })).toBeNull();
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 0, perfectScore: 1, targetScore: 0.9 })).toBe('targetScore');
  });

  it('names the target first when both hold, and never stops when neither is set', () => {
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 9, targetScore: 1, maxStepsWithoutImprovement: 1 })).toBe('targetScore');
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 1_000 })).toBeNull();
  });
});
