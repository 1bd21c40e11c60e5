// Span times as the exporters want them (milliseconds since the epoch) from the run's injected
// clock, whose zero is arbitrary (the process start, or a simulated 0): anchored once to the wall
// time of the first reading, so durations are the run's own and the run shows when it ran.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock.js';

/** Maps a reading of `clock` to epoch milliseconds; the anchor is taken on the first call. */
export function wallTimeOn(clock: Clock): (clockMs: number) => number {
  let offset: number | undefined;
  return (clockMs) => {
    // The wall clock is read once per run, for display only: no result depends on it.
    offset ??= performance.timeOrigin + performance.now() - clock.now();
    return offset + clockMs;
  };
}
