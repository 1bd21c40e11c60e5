// The budget ledger: reservations before dispatch, refunds on settle, and the invariant that
// spent + reserved never passes a limit, whatever the order of reserves and settles.
import { describe, expect, it } from 'vitest';
import { BudgetLedger, type Reservation } from '../src/budget/budgetLedger.js';
import { Rng } from '../src/gepa/core/rng.js';

describe('BudgetLedger', () => {
  it('reserves up to the limit exactly and refuses past it', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 10 });
    expect(ledger.reserve(6)).toEqual({ calls: 6 });
    expect(ledger.reserve(5)).toBeNull();
    expect(ledger.reservedCalls).toBe(6); // a refused reservation changes nothing
    expect(ledger.reserve(4)).toEqual({ calls: 4 });
    expect(ledger.remainingCalls()).toBe(0);
    expect(ledger.reserve(1)).toBeNull();
    expect(ledger.reserve(0)).toEqual({ calls: 0 });
  });

  it('settle refunds the unspent part of a reservation', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 10 });
    const r = ledger.reserve(8) as Reservation;
    expect(ledger.reserve(3)).toBeNull();
    ledger.settle(r, 5);
    expect([ledger.spentCalls, ledger.reservedCalls, ledger.remainingCalls()]).toEqual([5, 0, 5]);
    expect(ledger.reserve(5)).not.toBeNull();
  });

  it('settle of more calls than reserved throws and leaves the ledger as it was', () => {
    const ledger = new BudgetLedger({ maxMetricCalls: 10 });
    const r = ledger.reserve(3) as Reservation;
    expect(() => ledger.settle(r, 4)).toThrow(/spent 4 metric calls on a reservation of 3/);
    expect([ledger.spentCalls, ledger.reservedCalls]).toEqual([0, 3]);
  });

  it('spent + reserved never passes maxMetricCalls under a random sequence of reserve/settle', () => {
    const rng = new Rng(31);
    const max = 1_000;
    const ledger = new BudgetLedger({ maxMetricCalls: max });
    const open: Reservation[] = [];
    let paid = 0;
    let refused = 0;
    let settled = 0;
    for (let step = 0; step < 5_000; step++) {
      if (open.length === 0 || rng.next() < 0.55) {
        const calls = 1 + rng.int(25);
        const room = max - ledger.spentCalls - ledger.reservedCalls;
        const r = ledger.reserve(calls);
        // Refused exactly when it does not fit.
        expect(r === null).toBe(calls > room);
        if (r) open.push(r);
        else refused++;
      } else {
        const r = open.splice(rng.int(open.length), 1)[0] as Reservation;
        const spent = rng.int(r.calls + 1);
        ledger.settle(r, spent);
        paid += spent;
        settled++;
      }
      expect(ledger.spentCalls + ledger.reservedCalls).toBeLessThanOrEqual(max);
      expect(ledger.reservedCalls).toBe(open.reduce((n, r) => n + r.calls, 0));
      expect(ledger.spentCalls).toBe(paid);
      if (ledger.spentCalls >= max) break;
    }
    // The sequence did push against the limit, and refunds kept it going for a while.
    expect(refused).toBeGreaterThan(50);
    expect(settled).toBeGreaterThan(50);
    for (const r of open.splice(0)) ledger.settle(r, r.calls);
    expect(ledger.reservedCalls).toBe(0);
    expect(ledger.spentCalls).toBeLessThanOrEqual(max);
  });

  it('without limits, everything is affordable', () => {
    const ledger = new BudgetLedger({});
    expect(ledger.remainingCalls()).toBe(Infinity);
    expect(ledger.reserve(1e9)).toEqual({ calls: 1e9 });
  });
});
