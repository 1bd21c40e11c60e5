// How long one stage of work takes: m calls of nominal latency T on a number of slots, the caller
// waiting for all of them, when every call's latency is T times a U(lo, hi) jitter factor (the
// paper's setup uses U(0.5, 1.5)); and the binomial weights of "how many of n proposals got
// through", which turn per-proposal probabilities into expected stage times.

/** A call takes its nominal latency times a factor drawn from U(lo, hi); [1, 1] is deterministic. */
export type Jitter = readonly [lo: number, hi: number];

export const NO_JITTER: Jitter = [1, 1];

export function meanJitterFactor([lo, hi]: Jitter): number {
  return (lo + hi) / 2;
}

/**
 * E[max of n i.i.d. U(lo, hi)] = lo + (hi - lo) n / (n + 1). Waiting for all of n jittered calls
 * costs more than the mean, and more the wider the stage. n may be fractional (a share of slots).
 */
export function expectedMaxOfUniforms(n: number, [lo, hi]: Jitter): number {
  return lo + ((hi - lo) * n) / (n + 1);
}

// Guards ceil() against float noise such as 8 / (8 / 3) = 3.0000000000000004.
const EPSILON = 1e-9;

/**
 * Expected time for `calls` calls of `latencyMs` on `slots` slots (may be fractional or Infinity),
 * waiting for all. They run in ceil(calls / slots) waves: earlier waves cost the mean latency (a
 * freed slot is refilled at once, so their jitter averages out), the last wave costs the maximum
 * of its calls. Exact without jitter; with jitter, pessimistic by less than one mean latency when
 * there are several waves, since the last wave's calls really start as slots free up.
 */
export function stageMs(calls: number, latencyMs: number, slots: number, jitter: Jitter): number {
  if (calls <= 0) return 0;
  const waves = Math.max(1, Math.ceil(calls / slots - EPSILON));
  const lastWave = waves === 1 ? calls : calls - (waves - 1) * slots;
  return latencyMs * ((waves - 1) * meanJitterFactor(jitter) + expectedMaxOfUniforms(lastWave, jitter));
}

/** P(X = x) for x = 0..n, X ~ Binomial(n, p). */
export function binomialPmf(n: number, p: number): number[] {
  const pmf: number[] = [];
  let choose = 1; // C(n, x), updated multiplicatively
  for (let x = 0; x <= n; x++) {
    pmf.push(choose * p ** x * (1 - p) ** (n - x));
    choose = (choose * (n - x)) / (x + 1);
  }
  return pmf;
}
