// The runtime model: the paper's formulas on hand-computed numbers and its LiveBench example,
// the predictor on tiny runs whose wall-clock can be worked out on paper, its monotonicity and
// budget properties, and the recommender's choice at both ends of the worker range.
import { describe, expect, it } from 'vitest';
import {
  acceptanceTriggerProbability,
  candidateSchedules,
  compareToMeasured,
  MIN_GENERATIONS,
  expectedMaxOfUniforms,
  paperSpeedup,
  predictWallClock,
  recommendSchedule,
  stageMs,
  strongScalingFloorMs,
  valsetLatencyMs,
  type ModelSchedule,
  type WorkloadParams,
} from '../src/runtimeModel/index.js';

const batched = (parents: number, perParent: number): ModelSchedule => ({ kind: 'batched', parents, perParent });
const async = (inFlight: number): ModelSchedule => ({ kind: 'async', inFlight });

/** W=4, T_e=10, T_r=100, b=1, V=2, a=0, B=12: seed 2 calls, then proposals of 2 calls (worst case 4). */
const tiny: WorkloadParams = { metricCallMs: 10, reflectionMs: 100, workers: 4, valsetSize: 2, minibatchSize: 1, acceptanceRate: 0, budget: 12 };

/** The reference's synthetic latency-bound task, with the paper's U(0.5, 1.5) jitter. */
const synthetic: WorkloadParams = {
  metricCallMs: 20,
  reflectionMs: 100,
  workers: 16,
  valsetSize: 40,
  minibatchSize: 3,
  acceptanceRate: 0.3,
  budget: 1500,
  jitter: [0.5, 1.5],
};

describe('paper formulas', () => {
  it('q_k = 1 - (1 - a)^k', () => {
    expect(acceptanceTriggerProbability(0.2, 4)).toBeCloseTo(0.5904, 12); // 1 - 0.8^4 = 1 - 0.4096
    expect(acceptanceTriggerProbability(0.2, 1)).toBeCloseTo(0.2, 12);
    expect(acceptanceTriggerProbability(0, 8)).toBe(0);
    expect(() => acceptanceTriggerProbability(1.2, 2)).toThrow(RangeError);
  });

  it('speedup k (L_step + a L_val) / (L_step + q_k L_val)', () => {
    // 4 (100 + 0.2 * 50) / (100 + 0.5904 * 50) = 440 / 129.52
    expect(paperSpeedup({ k: 4, a: 0.2, stepMs: 100, valMs: 50 })).toBeCloseTo(3.397158740, 8);
    expect(paperSpeedup({ k: 1, a: 0.3, stepMs: 100, valMs: 500 })).toBeCloseTo(1, 12);
    expect(paperSpeedup({ k: 8, a: 0.3, stepMs: 100, valMs: 0 })).toBeCloseTo(8, 12);
  });

  it('L_val is T_e while kV fits the workers, else kV / W waves of T_e', () => {
    expect(valsetLatencyMs({ k: 2, V: 8, W: 16, T_e: 20 })).toBe(20);
    expect(valsetLatencyMs({ k: 4, V: 4, W: 16, T_e: 20 })).toBe(20); // kV = W exactly
    expect(valsetLatencyMs({ k: 4, V: 40, W: 16, T_e: 20 })).toBe(200); // 160 / 16 * 20
  });

  it('strong-scaling floor B T_e / W', () => {
    expect(strongScalingFloorMs({ B: 1500, T_e: 20, W: 16 })).toBe(1875);
  });

  it('explains the LiveBench example: 4.9x fewer iterations, only ~1.9x less time', () => {
    const a = 0.17; // single: 17% of iterations triggered validation, so q_1 = a = 0.17
    const q4 = acceptanceTriggerProbability(a, 4); // 1 - 0.83^4 = 0.52541679
    expect(q4).toBeCloseTo(0.52541679, 8);
    expect(Math.abs(q4 - 0.53)).toBeLessThan(0.01); // the 53% the paper measured for 2x2
    expect(219 / 45).toBeCloseTo(4.87, 2);
    // With validation 7x as long as a step: 4 (1 + 0.17 * 7) / (1 + 0.52541679 * 7) = 1.8726,
    // against the measured 7.7 h / 4.1 h = 1.878.
    const speedup = paperSpeedup({ k: 4, a, stepMs: 1, valMs: 7 });
    expect(speedup).toBeCloseTo(1.872628, 5);
    expect(Math.abs(speedup - 7.7 / 4.1)).toBeLessThan(0.01);
  });
});

describe('stage latency', () => {
  it('expected maximum of n uniforms is lo + (hi - lo) n / (n + 1)', () => {
    expect(expectedMaxOfUniforms(1, [0.5, 1.5])).toBe(1);
    expect(expectedMaxOfUniforms(3, [0.5, 1.5])).toBe(1.25);
    expect(expectedMaxOfUniforms(100, [1, 1])).toBe(1);
  });

  it('runs calls in waves; earlier waves cost the mean, the last its maximum', () => {
    expect(stageMs(40, 20, 16, [1, 1])).toBe(60); // 3 waves
    expect(stageMs(40, 20, 16, [0.5, 1.5])).toBeCloseTo(20 * (2 + 0.5 + 8 / 9), 10); // last wave of 8
    expect(stageMs(40, 20, Infinity, [1, 1])).toBe(20);
    expect(stageMs(0, 20, 16, [1, 1])).toBe(0);
    expect(stageMs(8, 10, 8 / 3, [1, 1])).toBe(30); // 3 waves, not 4 from float noise
  });
});

describe('predictWallClock, by hand', () => {
  it('batched 1x1: seed, then one 120 ms chain per step until a worst case no longer fits', () => {
    // Seed: 2 calls on 4 slots = 10 ms, leaving 10 calls. Steps reserve 4 and spend 2:
    // 10 -> 8 -> 6 -> 4 -> 2 (< 4, stop) = 4 steps of 10 + 100 + 10 ms.
    const p = predictWallClock({ ...tiny, schedule: batched(1, 1) });
    expect(p.seedMs).toBe(10);
    expect(p.wallClockMs).toBe(490);
    expect(p.steps).toBe(4);
    expect(p.proposals).toBe(4);
    expect(p.expectedMetricCalls).toBe(10);
    expect(p.expectedReflections).toBe(4);
    expect(p.busySlotMs).toBe(500); // 10 calls * 10 ms + 4 reflections * 100 ms
    expect(p.utilization).toBeCloseTo(500 / (4 * 490), 12);
    expect(p.latencyFloorMs).toBe(490);
    expect(p.capacityFloorMs).toBe(125);
    expect(p.bottleneck).toBe('latency');
  });

  it('batched 2x1: the last steps narrow as the budget runs out', () => {
    // 10 calls left: a step of 2 (reserve 8, spend 4) -> 6: a step of 1 -> 4: a step of 1 -> 2.
    const p = predictWallClock({ ...tiny, schedule: batched(2, 1) });
    expect(p.steps).toBe(3);
    expect(p.proposals).toBe(4);
    expect(p.expectedMetricCalls).toBe(10);
    expect(p.wallClockMs).toBe(10 + 3 * 120);
  });

  it('async 2: two chains share the slots, then one runs alone as the budget narrows', () => {
    // Two proposals at 120 ms / 2 each, then two alone at 120 ms: the same 370 ms as 2x1.
    const p = predictWallClock({ ...tiny, schedule: async(2) });
    expect(p.proposals).toBe(4);
    expect(p.steps).toBe(4);
    expect(p.wallClockMs).toBeCloseTo(10 + 60 + 60 + 120 + 120, 9);
  });

  it('pays a valset stage with the probability that a child is accepted, not every step', () => {
    // V=8 on 4 slots = 2 waves = 20 ms, paid with probability 0.2: step = 120 + 4 ms.
    // Seed 20 ms; budget 18 leaves 10 calls = exactly one worst case (2 + 8).
    const p = predictWallClock({ ...tiny, valsetSize: 8, acceptanceRate: 0.2, budget: 18, schedule: batched(1, 1) });
    expect(p.steps).toBe(1);
    expect(p.wallClockMs).toBeCloseTo(20 + 124, 9);
    expect(p.expectedMetricCalls).toBeCloseTo(8 + 2 + 0.2 * 8, 12);
  });

  it('batched 2x1 with a = 0.5: the valset stage is an expectation over how many children pass', () => {
    // V=4, B=16: seed 4 calls (10 ms), 12 left, one step of 2 (worst case 12, spends 2 * 4 = 8).
    // Step: parents 10 + reflections 100 + children 10 + valset E = 0.5 * 10 + 0.25 * 20 = 10.
    const p = predictWallClock({ ...tiny, valsetSize: 4, acceptanceRate: 0.5, budget: 16, schedule: batched(2, 1) });
    expect(p.steps).toBe(1);
    expect(p.wallClockMs).toBeCloseTo(140, 9);
    expect(p.expectedMetricCalls).toBe(12);
    expect(p.busySlotMs).toBe(320);
    expect(p.utilization).toBeCloseTo(320 / (4 * 140), 12);
  });

  it('async with rebasing: a rebased child and its new base pay one more minibatch stage of 2b calls', () => {
    // rebaseRate 0.5, b = 1: a proposal spends 1 + (1 + 0.5 * 2) = 3 calls; 10 left, worst case 4:
    // 10 -> 7 -> 4 -> 1, 3 proposals. Chain: 10 + 100 + 10 + 0.5 * 10 (2 calls on 4 slots) = 125 ms.
    const p = predictWallClock({ ...tiny, rebaseRate: 0.5, schedule: async(1) });
    expect(p.proposals).toBe(3);
    expect(p.expectedMetricCalls).toBe(11);
    expect(p.wallClockMs).toBeCloseTo(10 + 3 * 125, 9);
    expect(() => predictWallClock({ ...tiny, rebaseRate: 1.5, schedule: async(1) })).toThrow(/rebaseRate/);
  });

  it('skipped proposals pay the parent evaluation only', () => {
    // skip 0.5: a proposal spends 1 + 0.5 = 1.5 calls; 10 left, worst case 4: 5 steps (10 -> 2.5).
    // Step: 10 + 0.5 * (100 + 10) = 65 ms.
    const p = predictWallClock({ ...tiny, skipRate: 0.5, schedule: batched(1, 1) });
    expect(p.steps).toBe(5);
    expect(p.wallClockMs).toBeCloseTo(10 + 5 * 65, 9);
    expect(p.expectedMetricCalls).toBeCloseTo(9.5, 12);
    expect(p.expectedReflections).toBeCloseTo(2.5, 12);
  });

  it('applies the expected maximum of jittered latencies to every stage the step waits for', () => {
    // b=3, B=10: one step (worst case 2 * 3 + 2 = 8). Seed 10 (0.5 + 2/3); minibatches 10 (0.5 + 3/4)
    // each; one reflection 100 (its mean).
    const p = predictWallClock({ ...tiny, minibatchSize: 3, budget: 10, jitter: [0.5, 1.5], schedule: batched(1, 1) });
    expect(p.steps).toBe(1);
    expect(p.wallClockMs).toBeCloseTo(10 * (0.5 + 2 / 3) + 12.5 + 100 + 12.5, 9);
  });

  it('async beyond the workers is bound by the slots', () => {
    // W=2, K=4, b=2, T_r=100, B=26: seed 10 ms, 24 calls left, a proposal spends 4 (worst case 6).
    // In flight 4, 3, 2, 2, 1. With one slot each a chain is 20 + 100 + 20 = 140 ms and needs
    // 140 slot-ms, so with 2+ in flight one finishes every 140 / 2 = 70 ms; alone it gets both
    // slots: 10 + 100 + 10 = 120 ms.
    const p = predictWallClock({ ...tiny, workers: 2, minibatchSize: 2, budget: 26, schedule: async(4) });
    expect(p.proposals).toBe(5);
    expect(p.expectedMetricCalls).toBe(22);
    expect(p.wallClockMs).toBeCloseTo(10 + 4 * 70 + 120, 9);
    expect(p.busySlotMs).toBe(720);
    expect(p.capacityFloorMs).toBe(360);
    expect(p.latencyFloorMs).toBeCloseTo(10 + 120 / 4 + 120 / 3 + 2 * (120 / 2) + 120, 9);
    expect(p.bottleneck).toBe('workers');
  });

  it('rejects impossible inputs', () => {
    expect(() => predictWallClock({ ...tiny, acceptanceRate: 1.5, schedule: batched(1, 1) })).toThrow(RangeError);
    expect(() => predictWallClock({ ...tiny, workers: 0, schedule: batched(1, 1) })).toThrow(RangeError);
    expect(() => predictWallClock({ ...tiny, budget: 1, schedule: batched(1, 1) })).toThrow(/seed/);
    expect(() => predictWallClock({ ...tiny, schedule: async(0) })).toThrow(RangeError);
  });
});

describe('predictWallClock, properties', () => {
  const schedules = [...candidateSchedules(64), async(1), async(64)];

  it('never spends more than the budget, and stops only when one worst case no longer fits', () => {
    for (const params of [synthetic, tiny, { ...synthetic, skipRate: 0.3, budget: 777 }]) {
      for (const schedule of schedules) {
        const p = predictWallClock({ ...params, schedule });
        expect(p.expectedMetricCalls).toBeLessThanOrEqual(params.budget + 1e-9);
        expect(params.budget - p.expectedMetricCalls).toBeLessThan(2 * params.minibatchSize + params.valsetSize);
      }
    }
  });

  it('is never faster than the strong-scaling floor of the calls it spends', () => {
    for (const schedule of schedules) {
      for (const workers of [1, 4, 16, 64]) {
        const p = predictWallClock({ ...synthetic, jitter: [1, 1], workers, schedule });
        expect(p.wallClockMs).toBeGreaterThanOrEqual(strongScalingFloorMs({ B: p.expectedMetricCalls, T_e: 20, W: workers }));
        expect(p.utilization).toBeLessThanOrEqual(1 + 1e-9);
      }
    }
  });

  it('more workers are never slower', () => {
    for (const jitter of [[1, 1], [0.5, 1.5]] as const) {
      for (const schedule of schedules) {
        let previous = Infinity;
        for (let workers = 1; workers <= 64; workers++) {
          const ms = predictWallClock({ ...synthetic, jitter, workers, schedule }).wallClockMs;
          expect(ms).toBeLessThanOrEqual(previous + 1e-9);
          previous = ms;
        }
      }
    }
  });

  it('wider steps take fewer steps', () => {
    const steps = [batched(1, 1), batched(2, 1), batched(2, 2), batched(8, 1), batched(4, 4)].map(
      (schedule) => predictWallClock({ ...synthetic, schedule }).steps,
    );
    for (let i = 1; i < steps.length; i++) expect(steps[i]).toBeLessThan(steps[i - 1] as number);
  });

  it('async 1 is batched 1x1: with one proposal at a time there is no barrier to lose', () => {
    for (const params of [{ ...synthetic, acceptanceRate: 0 }, synthetic, { ...synthetic, skipRate: 0.25, workers: 3 }]) {
      const single = predictWallClock({ ...params, schedule: batched(1, 1) });
      const one = predictWallClock({ ...params, schedule: async(1) });
      expect(one.proposals).toBe(single.proposals);
      expect(one.wallClockMs).toBeCloseTo(single.wallClockMs, 6);
    }
  });
});

describe('recommendSchedule', () => {
  it('goes wide when workers are plentiful, reflection is slow and the budget buys many generations', () => {
    const r = recommendSchedule({ ...synthetic, workers: 64, reflectionMs: 5000, budget: 30_000 });
    const { schedule } = r.best;
    const width = schedule.kind === 'batched' ? schedule.parents * schedule.perParent : schedule.inFlight;
    expect(width).toBeGreaterThanOrEqual(8);
    expect(r.reason).toContain(r.best.label);
    expect(r.reason).toMatch(/faster than single/);
  });

  it('stays single with one worker, where every schedule does the same work in series', () => {
    const r = recommendSchedule({ ...synthetic, workers: 1 });
    expect(r.best.label).toBe('1x1');
    expect(r.ranked.every((c) => c.schedule.kind === 'batched')).toBe(true); // async needs K <= W
  });

  it('ranks every candidate fastest first and, on speed alone, picks the simplest within 5% of the fastest', () => {
    const r = recommendSchedule(synthetic, { minGenerations: 0 });
    expect(r.ranked).toHaveLength(8 + 4); // async 2..16 on 16 workers
    const times = r.ranked.map((c) => c.prediction.wallClockMs);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    const fastest = times[0] as number;
    expect(r.best.prediction.wallClockMs).toBeLessThanOrEqual(fastest * 1.05);
  });

  it('does not recommend a schedule that leaves fewer than two dozen generations of proposals', () => {
    // 750 calls, valset 40, a = 0.3: 710 / (6 + 0.3 * 40) = ~39 proposals.
    const r = recommendSchedule({ ...synthetic, budget: 750 });
    const byLabel = new Map(r.ranked.map((c) => [c.label, c]));
    expect(byLabel.get('2x2')?.generations).toBeCloseTo((byLabel.get('2x2')?.prediction.proposals ?? 0) / 4, 9);
    // Async K counts as K / 8 (it rebases, and decides children in launch order), never below width 1.
    expect(byLabel.get('async 16')?.generations).toBeCloseTo((byLabel.get('async 16')?.prediction.proposals ?? 0) / 2, 9);
    expect(byLabel.get('async 4')?.generations).toBeCloseTo(byLabel.get('async 4')?.prediction.proposals ?? 0, 9);
    expect(r.best.generations).toBeGreaterThanOrEqual(MIN_GENERATIONS);
    // The fastest of all is too wide for this budget, and the reason says so.
    const fastest = r.ranked[0] as (typeof r.ranked)[number];
    expect(fastest.generations).toBeLessThan(MIN_GENERATIONS);
    expect(r.reason).toContain(`faster schedules such as ${fastest.label}`);
    // Async K is not lossless below the floor either (async 16 on the fact-gathering task at 500 calls), and the reason says so.
    expect(fastest.label).toBe('async 16');
    expect(r.reason).toMatch(/quality falls with fewer, even with children decided in launch order/);
    // Among the eligible ones the choice is still the simplest within 5% of the fastest.
    const eligible = r.ranked.filter((c) => c.generations >= MIN_GENERATIONS);
    expect(r.best.prediction.wallClockMs).toBeLessThanOrEqual((eligible[0]?.prediction.wallClockMs ?? 0) * 1.05);
    // A budget too small for any width leaves single.
    expect(recommendSchedule({ ...synthetic, budget: 200 }).best.label).toBe('1x1');
  });

  it('offers async K only up to the number of workers', () => {
    const labels = candidateSchedules(4).map((s) => (s.kind === 'async' ? s.inFlight : 0)).filter((k) => k > 0);
    expect(labels).toEqual([2, 4]);
  });
});

describe('compareToMeasured', () => {
  it('is the signed relative error of the prediction', () => {
    expect(compareToMeasured(110, 100)).toBeCloseTo(0.1, 12);
    expect(compareToMeasured(90, 100)).toBeCloseTo(-0.1, 12);
    expect(() => compareToMeasured(90, 0)).toThrow(RangeError);
  });
});
