// The budget ledger, a plain value: reservations before dispatch, refunds on settle, refusals that
// name their limit, and the invariant that spent + reserved never passes a limit, whatever the
// order of reserves and settles.
import { describe, expect, it } from 'vitest';
import { enlarge, openLedger, refusalReason, remainingCalls, reserve, reserveRegardless, settle, type BudgetLedger, type Reservation, type Reserved } from '../src/budget/budgetLedger.js';
import { Rng } from '../src/gepa/core/rng.js';

describe('budget ledger', () => {
  it('reserves up to the limit exactly and refuses past it, leaving the ledger it was given unchanged', () => {
    const start = openLedger(10);
    const a = reserve(start, 6) as Reserved;
    expect(a.reservation).toEqual({ calls: 6 });
    expect(start.reservedCalls).toBe(0);
    expect(reserve(a.ledger, 5)).toBeNull();
    const b = reserve(a.ledger, 4) as Reserved;
    expect([b.ledger.reservedCalls, remainingCalls(b.ledger)]).toEqual([10, 0]);
    expect(reserve(b.ledger, 1)).toBeNull();
    expect(reserve(b.ledger, 0)?.reservation).toEqual({ calls: 0 });
  });

  it('leaves room for held calls, refuses everything once the dollars are exhausted, and names which limit refused', () => {
    const ledger = openLedger(100);
    expect(reserve(ledger, 30, { heldCalls: 70 })).not.toBeNull();
    expect(reserve(ledger, 31, { heldCalls: 70 })).toBeNull();
    expect(refusalReason(ledger, 31, { heldCalls: 70 })).toBe('maxMetricCalls');
    expect(reserve(ledger, 1, { dollarsExhausted: true })).toBeNull();
    expect(refusalReason(ledger, 1, { dollarsExhausted: true })).toBe('maxCostUsd');
  });

  it('settle takes the very reservation back and refunds its unspent part', () => {
    const r = reserve(openLedger(10), 8) as Reserved;
    expect(reserve(r.ledger, 3)).toBeNull();
    const settled = settle(r.ledger, r.reservation, 5);
    expect([settled.spentCalls, settled.reservedCalls, remainingCalls(settled)]).toEqual([5, 0, 5]);
    expect(reserve(settled, 5)).not.toBeNull();
  });

  it('enlarge adds a rebase to a reservation held, or refuses when the rest cannot pay', () => {
    const r = reserve(openLedger(10), 6) as Reserved;
    const more = enlarge(r.ledger, r.reservation, 4) as Reserved;
    expect([more.reservation.calls, more.ledger.reservedCalls]).toEqual([10, 10]);
    expect(enlarge(r.ledger, r.reservation, 5)).toBeNull();
    expect(settle(more.ledger, more.reservation, 9)).toEqual({ maxMetricCalls: 10, spentCalls: 9, reservedCalls: 0 });
  });

  it('the seed is reserved even past the limit (a resumed run whose failed calls used it up)', () => {
    const ledger = openLedger(10, 8);
    expect(reserve(ledger, 5)).toBeNull();
    const seed = reserveRegardless(ledger, 5);
    expect(settle(seed.ledger, seed.reservation, 0)).toEqual({ maxMetricCalls: 10, spentCalls: 8, reservedCalls: 0 });
  });

  it('settle of more calls than reserved throws', () => {
    const r = reserve(openLedger(10), 3) as Reserved;
    expect(() => settle(r.ledger, r.reservation, 4)).toThrow(/spent 4 metric calls on a reservation of 3/);
  });

  it('spent + reserved never passes maxMetricCalls under a random sequence of reserve/settle', () => {
    const rng = new Rng(31);
    const max = 1_000;
    let ledger: BudgetLedger = openLedger(max);
    const open: Reservation[] = [];
    let paid = 0;
    let refused = 0;
    let settled = 0;
    for (let step = 0; step < 5_000; step++) {
      if (open.length === 0 || rng.next() < 0.55) {
        const calls = 1 + rng.int(25);
        const room = max - ledger.spentCalls - ledger.reservedCalls;
        const r = reserve(ledger, calls);
        // Refused exactly when it does not fit.
        expect(r === null).toBe(calls > room);
        if (r) {
          open.push(r.reservation);
          ledger = r.ledger;
        } else refused++;
      } else {
        const r = open.splice(rng.int(open.length), 1)[0] as Reservation;
        const spent = rng.int(r.calls + 1);
        ledger = settle(ledger, r, spent);
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
    for (const r of open.splice(0)) ledger = settle(ledger, r, r.calls);
    expect(ledger.reservedCalls).toBe(0);
    expect(ledger.spentCalls).toBeLessThanOrEqual(max);
  });

  it('without limits, everything is affordable', () => {
    const ledger = openLedger(undefined);
    expect(remainingCalls(ledger)).toBe(Infinity);
    expect(reserve(ledger, 1e9)?.reservation).toEqual({ calls: 1e9 });
  });
});
