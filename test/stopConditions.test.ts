// Stop conditions: target score, steps without improvement, and what the budget can still pay.
import { describe, expect, it } from 'vitest';
import { BudgetLedger } from '../src/budgetLedger.js';
import { affordableTasks, budgetStopReason, progressStopReason } from '../src/stopConditions.js';

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

  it('names the target first when both hold, and never stops when neither is set', () => {
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 9, targetScore: 1, maxStepsWithoutImprovement: 1 })).toBe('targetScore');
    expect(progressStopReason({ bestScore: 1, stepsWithoutImprovement: 1_000 })).toBeNull();
  });
});

describe('affordableTasks', () => {
  it('counts whole tasks of the worst-case call cost left after spending and reservations', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100 });
    ledger.record(20);
    ledger.reserve(10);
    // 70 calls left at 20 a task: 3.
    expect(affordableTasks(ledger, 20)).toBe(3);
    expect(affordableTasks(ledger, 70)).toBe(1);
    expect(affordableTasks(ledger, 71)).toBe(0);
  });

  it('takes the tighter of calls and dollars', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100, maxCostUsd: 1 });
    expect(affordableTasks(ledger, 10, 0.25)).toBe(4); // dollars: 4, calls: 10
    expect(affordableTasks(ledger, 40, 0.25)).toBe(2); // calls: 2
  });

  it('with no per-task dollar estimate, any dollars left allow the call-bound count; none left, zero', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100, maxCostUsd: 1 });
    expect(affordableTasks(ledger, 10)).toBe(10);
    ledger.record(0, 1);
    expect(affordableTasks(ledger, 10)).toBe(0);
  });

  it('is unbounded without limits and never negative after an overspend', () => {
    expect(affordableTasks(new BudgetLedger({}), 10)).toBe(Infinity);
    expect(affordableTasks(new BudgetLedger({ maxCostUsd: 1 }), 10, 0.5)).toBe(2);
    const over = new BudgetLedger({ maxMetricCalls: 5 });
    over.record(8);
    expect(affordableTasks(over, 1)).toBe(0);
  });
});

describe('budgetStopReason', () => {
  it('names maxMetricCalls when the calls cannot pay for one more task, else maxCostUsd', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100, maxCostUsd: 1 });
    ledger.record(95, 1);
    expect(budgetStopReason(ledger, 10)).toBe('maxMetricCalls');
    expect(budgetStopReason(ledger, 5)).toBe('maxCostUsd');
  });
});
