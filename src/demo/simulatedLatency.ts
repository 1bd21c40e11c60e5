// Simulated call latency for the demo models: mean x a jitter factor drawn from a hash of the
// call's inputs, slept on the injected clock, so simulated-time runs are reproducible. A zero
// mean never touches the clock.
import { sleep } from '../clock.js';
import type { Clock } from '../clock.js';
import { combineHashes, unitFromHash } from './hash32.js';

export interface LatencyModel {
  meanMs: number;
  jitter: readonly [number, number];
  clock: Clock;
}

const LATENCY_SALT = 0x1a7e9c;

export function latencyMs(model: LatencyModel, callHash: number): number {
  const [lo, hi] = model.jitter;
  return model.meanMs * (lo + (hi - lo) * unitFromHash(combineHashes(callHash, LATENCY_SALT)));
}

/**
 * Whether a call waits at all: it sleeps with a mean above zero, and rejects when its signal is
 * already aborted. The task models skip simulateLatency otherwise, so a zero-latency call costs
 * not even an await and zero-latency runs keep their exact interleaving of calls.
 */
export const latencyApplies = (model: LatencyModel, signal?: AbortSignal): boolean => model.meanMs > 0 || signal?.aborted === true;

/** Rejects with the signal's reason if it is (or becomes) aborted. */
export async function simulateLatency(model: LatencyModel, callHash: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw signal.reason;
  if (model.meanMs > 0) await sleep(model.clock, latencyMs(model, callHash), signal);
}

export function checkLatencyOptions(name: string, meanMs: number, jitter: readonly [number, number]): void {
  if (!Number.isFinite(meanMs) || meanMs < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${meanMs}`);
  const [lo, hi] = jitter;
  if (!(Number.isFinite(lo) && Number.isFinite(hi) && lo >= 0 && lo <= hi)) {
    throw new RangeError(`jitter must be [lo, hi] with 0 <= lo <= hi, got [${lo}, ${hi}]`);
  }
}
