// The run's one capacity budget: W worker slots shared by every metric call and every LM call.
// Work waits in a priority queue (lower priority value first, then arrival order: workHeap.ts)
// and holds a slot only while it runs, so "never more than W in flight" holds by construction. A
// job that runs many metric calls at once (a batch job: evaluateBatch) holds one slot per call.
// The slot pool also accounts busy slot-time on the injected clock and reports each slot's intervals.
import type { Clock } from '../clock.js';
import type { SlotPolicy } from '../settingValues.js';
import { WorkHeap, type Ordered } from './workHeap.js';

/** One stretch of work on one worker slot, on the run's clock. */
export interface SlotInterval {
  /** The slot, 0 to workers - 1. */
  slot: number;
  /** What the work was for. */
  kind: 'valset' | 'child' | 'merge' | 'reflection' | 'parent' | 'seed';
  /** When it started, on the run's clock (ms). */
  start: number;
  /** When it ended, on the run's clock (ms). */
  end: number;
}

/** Kinds of work that occupy a slot. */
export type WorkKind = SlotInterval['kind'];

/**
 * finish-first: work that unblocks a Pareto update or an acceptance decision goes before work
 * that starts something new, so proposals in flight finish rather than pile up half-done.
 */
export const FINISH_FIRST_PRIORITY: Record<WorkKind, number> = {
  seed: 0,
  valset: 0,
  merge: 1,
  child: 1,
  reflection: 2,
  parent: 3,
};

/**
 * start-first: work that leads to a long call (a parent evaluation leads to a reflection, often
 * ten times a metric call) goes first, so the long calls start as early as they can and the
 * short valset calls fill the slots around them.
 */
export const START_FIRST_PRIORITY: Record<WorkKind, number> = {
  seed: 0,
  parent: 1,
  reflection: 2,
  merge: 3,
  child: 3,
  valset: 4,
};

const PRIORITIES: Record<SlotPolicy, Record<WorkKind, number> | undefined> = {
  'finish-first': FINISH_FIRST_PRIORITY,
  'start-first': START_FIRST_PRIORITY,
  fifo: undefined,
};

/**
 * Work given as an object whose run() a slot calls: a metric call's own record is its work, where
 * a function would be a closure made for every call.
 */
export interface SlotTask<T> {
  run(): Promise<T>;
}

/** What a slot runs: a function, or a task. */
export type SlotWork<T> = (() => Promise<T>) | SlotTask<T>;

interface QueuedWork extends Ordered {
  kind: WorkKind;
  /** Slots it holds while it runs (1, or a batch job's calls). */
  width: number;
  /** The work, and its caller's promise to settle with what it answers (see `start`). */
  fn: SlotWork<unknown>;
  resolve: (value: unknown) => void;
  signal: AbortSignal | undefined;
  reject: (reason: unknown) => void;
  /** The slot it runs in, once started (and `more`, a wide job's others). */
  slot: number;
  more: number[] | undefined;
}

const noResolver = (): void => {};

/**
 * The executor of a queued work's promise: one module function that hands the resolvers to the
 * work being queued (`queuing`, set just before `new Promise`, which calls it at once), where an
 * arrow would be a closure and a context made per call.
 */
let queuing: QueuedWork | undefined;
function keepResolvers(resolve: (value: never) => void, reject: (reason: unknown) => void): void {
  const work = queuing as QueuedWork;
  work.resolve = resolve as (value: unknown) => void;
  work.reject = reject;
  queuing = undefined;
}
export interface WorkerSlotsOptions {
  capacity: number;
  clock: Clock;
  policy?: SlotPolicy;
  /** Called with every finished interval of work (timelines, reports). */
  onInterval?: (interval: SlotInterval) => void;
}

export class WorkerSlots {
  readonly capacity: number;
  private readonly clock: Clock;
  private readonly policy: SlotPolicy;
  private readonly queue = new WorkHeap<QueuedWork>();
  private readonly freeSlots: number[];
  private seq = 0;
  /** When each slot's work started, on the clock; NaN while the slot is free. */
  private readonly busySince: Float64Array;
  /** Slot-milliseconds of finished work. */
  private busyMs = 0;
  maxInFlight = 0;
  private readonly onInterval: ((interval: SlotInterval) => void) | undefined;

  constructor(options: WorkerSlotsOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1) throw new RangeError(`workers must be a positive integer, got ${options.capacity}`);
    this.capacity = options.capacity;
    this.clock = options.clock;
    this.policy = options.policy ?? 'finish-first';
    this.freeSlots = Array.from({ length: options.capacity }, (_, i) => options.capacity - 1 - i);
    this.busySince = new Float64Array(options.capacity).fill(NaN);
    this.onInterval = options.onInterval;
  }

  get inFlight(): number {
    return this.capacity - this.freeSlots.length;
  }

  get queued(): number {
    return this.queue.size;
  }

  /** Busy slot-milliseconds so far, counting work still running up to now. */
  busySlotMs(): number {
    const now = this.clock.now();
    let running = 0;
    for (const since of this.busySince) if (!Number.isNaN(since)) running += now - since;
    return this.busyMs + running;
  }

  /** Runs `fn` in a slot once one is free and `kind` is next in line. */
  run<T>(kind: WorkKind, fn: SlotWork<T>, signal?: AbortSignal): Promise<T> {
    return this.enqueue(kind, 1, fn, signal);
  }

  /**
   * Runs `fn` holding `width` slots at once (a batch job of `width` metric calls), once that many
   * are free and it is next in line. Queued work behind it waits meanwhile (no smaller work passes
   * it), so a wide job is never starved; `width` is at most the capacity.
   */
  runHolding<T>(kind: WorkKind, width: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!Number.isInteger(width) || width < 1 || width > this.capacity) throw new RangeError(`a job holds 1 to ${this.capacity} slots, not ${width}`);
    return this.enqueue(kind, width, fn, signal);
  }

  private enqueue<T>(kind: WorkKind, width: number, fn: SlotWork<T>, signal: AbortSignal | undefined): Promise<T> {
    // The work as data, started by `start`: not a closure made (and, compiled with tsx's
    // keepNames, named) for every metric call. Its resolvers are kept by a module function.
    const work: QueuedWork = { priority: PRIORITIES[this.policy]?.[kind] ?? 0, seq: this.seq++, kind, width, signal, reject: noResolver, fn, resolve: noResolver, slot: -1, more: undefined };
    queuing = work;
    const answer = new Promise<T>(keepResolvers);
    this.queue.push(work);
    this.dispatch();
    return answer;
  }

  /**
   * Runs `work` in its slots, settles its caller's promise, then frees the slots and dispatches:
   * a tick after the caller's promise settles (a `.then` on it, as `.finally` was, without the
   * closures and promises `.finally` makes).
   */
  private start(work: QueuedWork): void {
    let result: Promise<unknown>;
    try {
      result = typeof work.fn === 'function' ? work.fn() : work.fn.run();
    } catch (error) {
      result = Promise.reject(error);
    }
    // Neither handler throws: the second step always runs.
    result.then(work.resolve, work.reject).then(() => this.finish(work));
  }

  private finish(work: QueuedWork): void {
    const now = this.clock.now();
    this.free(work.slot, work.kind, now);
    if (work.more) for (const other of work.more) this.free(other, work.kind, now);
    this.dispatch();
  }

  private dispatch(): void {
    while (this.freeSlots.length > 0 && this.queue.size > 0) {
      const next = this.queue.peek() as QueuedWork;
      if (next.width > this.freeSlots.length && !next.signal?.aborted) return;
      const work = this.queue.pop() as QueuedWork;
      if (work.signal?.aborted) {
        work.reject(work.signal.reason);
        continue;
      }
      const now = this.clock.now();
      work.slot = this.take(now);
      for (let i = 1; i < work.width; i++) (work.more ??= []).push(this.take(now));
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      this.start(work);
    }
  }

  private take(now: number): number {
    const slot = this.freeSlots.pop() as number;
    this.busySince[slot] = now;
    return slot;
  }

  private free(slot: number, kind: WorkKind, now: number): void {
    const started = this.busySince[slot] as number;
    const since = Number.isNaN(started) ? now : started;
    this.busySince[slot] = NaN;
    this.busyMs += now - since;
    this.onInterval?.({ slot, kind, start: since, end: now });
    this.freeSlots.push(slot);
  }
}
