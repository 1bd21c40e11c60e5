// The dollar budget under concurrency, in simulated time: reservations limit how many calls run
// at once (a call waits while calls in flight hold the rest) instead of failing the run; the cap
// holds whatever the worker count when each call's reservation bounds its cost; the run stops
// with 'maxCostUsd' only when even one call cannot be paid.
import { describe, expect, it } from 'vitest';
import { SimulatedClock } from 'xstate';
import { DollarGate, DollarBudgetExhausted } from '../src/budget/dollarGate.js';
import { runOnSimulatedClock, steppingClock } from '../src/clock.js';
import { optimize, type OptimizeResult } from '../src/index.js';
import { hashUnit, KEYWORDS, toyExamples, toyTask } from './support/toyTask.js';

interface Prices {
  /** What each call reserves (its worst case as the model's client sees it). */
  evalEstimate: number;
  reflectEstimate: number;
  /** What the fake server reports: this share of the estimate, drawn per call. */
  share: (label: string) => number;
}

async function pricedRun(workers: number, prices: Prices, limits: { maxCostUsd: number; maxMetricCalls?: number }) {
  const clock = steppingClock(new SimulatedClock());
  const task = toyTask({ clock, evalMs: (c, e) => 5 + Math.floor(40 * hashUnit(`${c.instructions}|${e.id}`)), reflectMs: (p) => 30 + Math.floor(100 * hashUnit(p)) });
  let maxSpentSeen = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const track = async <T>(work: () => Promise<T>) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      return await work();
    } finally {
      inFlight--;
    }
  };
  const result: OptimizeResult = await runOnSimulatedClock(
    clock,
    optimize({
      seedCandidate: { instructions: 'Answer.' },
      // The toy task can be solved; these runs are about spending the dollars.
      skipPerfectScore: false,
      trainset: toyExamples('t', KEYWORDS),
      valset: toyExamples('v', KEYWORDS.slice(0, 6)),
      adapter: Object.assign(
        {
          evaluate: (...args: Parameters<typeof task.adapter.evaluate>) =>
            track(async () => {
              const evaluation = await task.adapter.evaluate(...args);
              return { ...evaluation, costUsd: prices.evalEstimate * prices.share(`${args[0].instructions}|${(args[1] as { id: string }).id}|${clock.now()}`) };
            }),
        },
        { estimateMaxCostUsd: () => prices.evalEstimate },
      ),
      reflectionLm: Object.assign(
        (prompt: string, ctx: { signal: AbortSignal }) =>
          track(async () => {
            const reply = await task.reflectionLm(prompt, ctx);
            return { text: typeof reply === 'string' ? reply : reply.text, costUsd: prices.reflectEstimate * prices.share(prompt) };
          }),
        { estimateMaxCostUsd: () => prices.reflectEstimate },
      ),
      schedule: { kind: 'async', inFlight: Math.max(1, workers / 2) },
      workers,
      ...limits,
      clock,
      onEvent: (event) => {
        if (event.type === 'budget.updated') maxSpentSeen = Math.max(maxSpentSeen, event.costUsd);
      },
    }),
  );
  return { result, maxSpentSeen, maxInFlight };
}

describe('dollar reservations under concurrency', () => {
  it.each([1, 4, 16])('with %i workers the cap is never passed, and the run spends most of it', async (workers) => {
    const { result, maxSpentSeen } = await pricedRun(workers, { evalEstimate: 0.01, reflectEstimate: 0.03, share: (l) => 0.3 + 0.7 * hashUnit(l) }, { maxCostUsd: 2 });
    expect(result.stopReason).toBe('maxCostUsd');
    expect(result.costUsd).toBeLessThanOrEqual(2);
    expect(maxSpentSeen).toBeLessThanOrEqual(2);
    // Stopped only once the rest could not pay for the dearest call (a reflection, $0.03).
    expect(result.costUsd).toBeGreaterThan(2 - 0.03 * workers - 0.03);
  });

  it('a budget that fits one worst case at a time completes: calls wait for dollars instead of failing the run', async () => {
    // Each call reserves $0.3 (a 16,384-token worst case, say) and really costs 1% of it: $0.5 fits one at a time.
    const { result, maxInFlight } = await pricedRun(8, { evalEstimate: 0.3, reflectEstimate: 0.3, share: () => 0.01 }, { maxCostUsd: 0.5, maxMetricCalls: 60 });
    expect(result.stopReason).toBe('maxMetricCalls');
    expect(result.valScores[0]).toBeDefined();
    expect(result.candidates.length).toBeGreaterThan(1);
    expect(result.costUsd).toBeLessThanOrEqual(0.5);
    expect(maxInFlight).toBe(1);
  });

  it("a budget that cannot pay for even one call stops with 'maxCostUsd' before any call", async () => {
    // With no seed evaluated there is no result to return: optimize() says why.
    await expect(pricedRun(8, { evalEstimate: 0.6, reflectEstimate: 0.6, share: () => 0.01 }, { maxCostUsd: 0.5 })).rejects.toThrow(
      'the run stopped (maxCostUsd) before the seed candidate was evaluated',
    );
  });
});

describe('DollarGate waits and calibration', () => {
  it('a call that does not fit waits for one in flight to settle, first come first served', async () => {
    const gate = new DollarGate(1);
    const first = await gate.acquire(0.6);
    const order: string[] = [];
    const second = gate.acquire(0.6).then((r) => (order.push('second'), r));
    const third = gate.acquire(0.3).then((r) => (order.push('third'), r));
    await Promise.resolve();
    expect(gate.waiting).toBe(2);
    gate.settle(first, 0.1);
    await Promise.all([second, third]);
    expect(order).toEqual(['second', 'third']);
    expect(gate.reservedUsd).toBeCloseTo(0.9, 12);
  });

  it('refuses when nothing in flight could make room, and a waiter once the last call in flight leaves too little', async () => {
    const gate = new DollarGate(1);
    await expect(gate.acquire(1.5)).rejects.toBeInstanceOf(DollarBudgetExhausted);
    const held = await gate.acquire(0.5);
    const waiting = gate.acquire(0.8);
    gate.settle(held, 0.4);
    await expect(waiting).rejects.toThrow(/cannot pay for this call/);
  });

  it('an abort while waiting rejects with the reason and leaves the queue', async () => {
    const gate = new DollarGate(1);
    await gate.acquire(0.9);
    const abort = new AbortController();
    const waiting = gate.acquire(0.5, abort.signal);
    abort.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    expect(gate.waiting).toBe(0);
  });

  it('a call that cost more than reserved scales every later estimate by the largest ratio seen', () => {
    const gate = new DollarGate(10);
    const low = gate.reserve(0.1);
    gate.settle(low!, 0.25);
    expect(gate.calibration).toBeCloseTo(2.5, 12);
    expect(gate.reserve(0.1)?.usd).toBeCloseTo(0.25, 12);
    gate.settle(gate.reserve(0.1)!, 0.2); // within its (scaled) reservation: nothing to learn
    expect(gate.calibration).toBeCloseTo(2.5, 12);
  });
});
