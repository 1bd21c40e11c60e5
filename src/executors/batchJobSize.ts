// How big a batch job the fleet can take (the executor's batchJobs 'auto'): a job runs on one
// worker, so a job of more metric calls than that worker runs at once leaves the rest waiting in
// series while other workers idle. The size is the smallest --concurrency among the live workers
// (those whose beat is within their deadline, lostCalls.ts), as their beats say; undefined when
// no live worker is known yet, or one does not say (an older worker): then a job per call, as
// before. Pure: the executor reads the beats and chunks its batches by this.
import { workerDeadlineMs, type FailoverPolicy } from './lostCalls.js';
import type { WorkerBeat } from './workerBeats.js';

/** The most metric calls a batch job should hold for these workers; undefined: not known. */
export function fleetJobSize(workers: ReadonlyMap<string, WorkerBeat>, policy: FailoverPolicy): number | undefined {
  let smallest: number | undefined;
  for (const beat of workers.values()) {
    if (beat.ageMs > workerDeadlineMs(beat, policy)) continue;
    if (beat.concurrency === undefined) return undefined;
    smallest = Math.min(smallest ?? Infinity, beat.concurrency);
  }
  return smallest;
}

/**
 * The places 0..count-1 in consecutive chunks of at most `size`, as even as can be (30 by 16:
 * 15 and 15, not 16 and 14), so no worker holds a longer tail of calls than it must.
 */
export function chunkPlaces(count: number, size: number): number[][] {
  const chunks = Math.ceil(count / Math.max(1, size));
  const out: number[][] = [];
  for (let c = 0, from = 0; c < chunks; c++) {
    const length = Math.floor(count / chunks) + (c < count % chunks ? 1 : 0);
    out.push(Array.from({ length }, (_, i) => from + i));
    from += length;
  }
  return out;
}
