// Stop conditions: target score, a perfect best, steps without improvement, and what the budget can still pay.
import { describe, expect, it } from 'vitest';
import { BudgetLedger, type Reservation } from '../src/budget/budgetLedger.js';
import { DollarGate, type DollarReservation } from '../src/budget/dollarGate.js';
import { affordableTasks, budgetStopReason, progressStopReason } from '../src/gepa/strategies/stopConditions.js';

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

describe('affordableTasks', () => {
  it('counts whole tasks of the worst-case call cost left after spending and reservations', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100 });
    ledger.settle(ledger.reserve(20) as Reservation, 20);
    ledger.reserve(10);
    // 70 calls left at 20 a task: 3.
    expect(affordableTasks(ledger.remainingCalls(), 20)).toBe(3);
    expect(affordableTasks(ledger.remainingCalls(), 70)).toBe(1);
    expect(affordableTasks(ledger.remainingCalls(), 71)).toBe(0);
  });

  it('is zero once the dollars left cannot pay for the dearest call seen', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100 });
    const dollars = new DollarGate(1);
    expect(affordableTasks(ledger.remainingCalls(), 10, dollars.exhausted())).toBe(10);
    dollars.settle(dollars.reserve(0.4) as DollarReservation, 0.3);
    expect(affordableTasks(ledger.remainingCalls(), 10, dollars.exhausted())).toBe(10); // 0.7 left >= 0.4
    dollars.settle(dollars.reserve(0.4) as DollarReservation, 0.35);
    expect(affordableTasks(ledger.remainingCalls(), 10, dollars.exhausted())).toBe(0); // 0.35 left < 0.4
  });

  it('is unbounded without limits', () => {
    expect(affordableTasks(new BudgetLedger({}).remainingCalls(), 10)).toBe(Infinity);
    expect(affordableTasks(new BudgetLedger({}).remainingCalls(), 10, new DollarGate().exhausted())).toBe(Infinity);
  });
});

describe('budgetStopReason', () => {
  it('names maxMetricCalls when the calls cannot pay for one more task, else maxCostUsd', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 100 });
    ledger.settle(ledger.reserve(95) as Reservation, 95);
    expect(budgetStopReason(ledger.remainingCalls(), 10)).toBe('maxMetricCalls');
    expect(budgetStopReason(ledger.remainingCalls(), 5)).toBe('maxCostUsd');
  });
});
