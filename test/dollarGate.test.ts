// The dollar budget: per-call reservations against each call's worst case, so reserved + spent
// never passes maxCostUsd, and the run stops when the rest cannot pay for the dearest call.
import { describe, expect, it } from 'vitest';
import { DollarBudgetExhausted, DollarGate } from '../src/budget/dollarGate.js';
import { Rng } from '../src/gepa/core/rng.js';

describe('DollarGate', () => {
  it('reserves within the limit and refuses past it', () => {
    const gate = new DollarGate(1);
    expect(gate.reserve(0.75)).toBe(0.75);
    expect(() => gate.reserve(0.5)).toThrow(DollarBudgetExhausted);
    expect(gate.reservedUsd).toBe(0.75);
    gate.settle(0.75, 0.5);
    expect([gate.spentUsd, gate.reservedUsd, gate.remainingUsd()]).toEqual([0.5, 0, 0.5]);
    expect(gate.reserve(0.5)).toBe(0.5);
    expect(() => gate.reserve(0.01)).toThrow(/cannot pay for this call/);
  });

  it('spent never passes the limit when the estimates bound the real costs', () => {
    const rng = new Rng(5);
    const gate = new DollarGate(10);
    const open: Array<{ reserved: number; actual: number }> = [];
    for (let i = 0; i < 5_000; i++) {
      if (open.length === 0 || rng.next() < 0.5) {
        const estimate = rng.next() * 0.2;
        try {
          open.push({ reserved: gate.reserve(estimate), actual: estimate * rng.next() });
        } catch (error) {
          expect(error).toBeInstanceOf(DollarBudgetExhausted);
        }
      } else {
        const call = open.splice(rng.int(open.length), 1)[0] as { reserved: number; actual: number };
        gate.settle(call.reserved, call.actual);
      }
      expect(gate.spentUsd + gate.reservedUsd).toBeLessThanOrEqual(10 + 1e-9);
    }
    expect(gate.spentUsd).toBeGreaterThan(9);
  });

  it('is exhausted when less is left than the dearest call seen', () => {
    const gate = new DollarGate(1);
    gate.settle(gate.reserve(0.3), 0.3);
    expect(gate.exhausted()).toBe(false);
    gate.settle(gate.reserve(0.3), 0.45);
    expect(gate.remainingUsd()).toBeCloseTo(0.25, 12);
    expect(gate.exhausted()).toBe(true); // 0.25 left < the dearest call, 0.3
    expect(new DollarGate().exhausted()).toBe(false);
  });
});
