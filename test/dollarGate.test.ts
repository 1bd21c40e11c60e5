// The dollar budget: per-call reservations against each call's worst case, so reserved + spent
// never passes maxCostUsd, and the run stops when the rest cannot pay for the dearest call.
import { describe, expect, it } from 'vitest';
import { DollarGate, type DollarReservation } from '../src/budget/dollarGate.js';
import { Rng } from '../src/gepa/core/rng.js';

describe('DollarGate', () => {
  it('reserves within the limit and refuses past it', () => {
    const gate = new DollarGate(1);
    const first = gate.reserve(0.75);
    expect(first).toEqual({ usd: 0.75, estimateUsd: 0.75 });
    expect(gate.reserve(0.5)).toBeNull();
    expect(gate.reservedUsd).toBe(0.75);
    gate.settle(first as DollarReservation, 0.5);
    expect([gate.spentUsd, gate.reservedUsd, gate.remainingUsd()]).toEqual([0.5, 0, 0.5]);
    expect(gate.reserve(0.5)).toEqual({ usd: 0.5, estimateUsd: 0.5 });
    expect(gate.reserve(0.01)).toBeNull();
    expect(gate.refusal(0.01).message).toMatch(/cannot pay for this call/);
  });

  it('spent never passes the limit when the estimates bound the real costs', () => {
    const rng = new Rng(5);
    const gate = new DollarGate(10);
    const open: Array<{ reserved: DollarReservation; actual: number }> = [];
    for (let i = 0; i < 5_000; i++) {
      if (open.length === 0 || rng.next() < 0.5) {
        const estimate = rng.next() * 0.2;
        const reserved = gate.reserve(estimate);
        if (reserved) open.push({ reserved, actual: estimate * rng.next() });
        else expect(estimate).toBeGreaterThan(gate.remainingUsd());
      } else {
        const call = open.splice(rng.int(open.length), 1)[0] as { reserved: DollarReservation; actual: number };
        gate.settle(call.reserved, call.actual);
      }
      expect(gate.spentUsd + gate.reservedUsd).toBeLessThanOrEqual(10 + 1e-9);
    }
    expect(gate.spentUsd).toBeGreaterThan(9);
  });

  it('is exhausted when less is left than the dearest call seen', () => {
    const gate = new DollarGate(1);
    gate.settle(gate.reserve(0.3) as DollarReservation, 0.3);
    expect(gate.exhausted()).toBe(false);
    gate.settle(gate.reserve(0.3) as DollarReservation, 0.45);
    expect(gate.remainingUsd()).toBeCloseTo(0.25, 12);
    expect(gate.exhausted()).toBe(true); // 0.25 left < the dearest call, 0.3
    expect(new DollarGate().exhausted()).toBe(false);
  });

  it('tells its owner once, the first time it is exhausted', () => {
    let told = 0;
    const gate = new DollarGate(1, () => told++);
    gate.settle(gate.reserve(0.3) as DollarReservation, 0.3);
    expect(told).toBe(0);
    gate.settle(gate.reserve(0.3) as DollarReservation, 0.45);
    expect(told).toBe(1);
    gate.reserve(0.1);
    gate.settle({ usd: 0 }, 0.1);
    expect(told).toBe(1);
  });
});
