// The source paper's runtime model, formula for formula, in the paper's notation: the chance that
// a step of k proposals triggers a valset evaluation, the speedup of k proposals a step over one,
// the valset latency under W workers and the strong-scaling floor. The predictor in
// predictWallClock.ts refines these; they stay here so a run can be checked against the paper.

/** q_k = 1 - (1 - a)^k: the chance that at least one of k proposals, each accepted with probability a, is accepted. */
export function acceptanceTriggerProbability(a: number, k: number): number {
  requireProbability('a', a);
  if (!(k >= 1)) throw new RangeError(`k must be at least 1, got ${k}`);
  return 1 - (1 - a) ** k;
}

export interface PaperSpeedupParams {
  /** Proposals per step. */
  k: number;
  /** Per-proposal acceptance probability. */
  a: number;
  /** L_step: one step's reflections and minibatch evaluations (as long as its slowest chain). */
  stepMs: number;
  /** L_val: the valset evaluation of a step's accepted children. */
  valMs: number;
}

/**
 * T(1) / T(k) ~= k (L_step + a L_val) / (L_step + q_k L_val). k proposals a step need k times fewer
 * steps, but each step pays L_val with probability q_k instead of a: validation eats the speedup.
 */
export function paperSpeedup({ k, a, stepMs, valMs }: PaperSpeedupParams): number {
  const q = acceptanceTriggerProbability(a, k);
  return (k * (stepMs + a * valMs)) / (stepMs + q * valMs);
}

/** L_val ~= T_e if kV <= W (one wave), else (kV / W) T_e: the paper's fluid approximation, no rounding up. */
export function valsetLatencyMs({ k, V, W, T_e }: { k: number; V: number; W: number; T_e: number }): number {
  return k * V <= W ? T_e : ((k * V) / W) * T_e;
}

/** B T_e / W: however the calls are scheduled, B metric calls of T_e each on W slots take at least this long. */
export function strongScalingFloorMs({ B, T_e, W }: { B: number; T_e: number; W: number }): number {
  return (B * T_e) / W;
}

export function requireProbability(name: string, p: number): void {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`${name} must be a probability in [0, 1], got ${p}`);
}
