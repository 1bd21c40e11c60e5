// Where an evaluation comes from when it is not a new metric call, in one place: this run's
// evaluations (a (candidate, example) pair is paid once, in-flight duplicates included; traced
// ones are shared only while in flight), the run log (a resumed run replays what an earlier
// process paid for) and the 'disk' store (evaluations earlier runs kept, free). cacheEvaluation
// false turns the sharing off. It also keeps what a new call answered: in the log, and in the store.
import type { Evaluation } from '../gepa/core/adapter.js';
import type { WorkJournal } from '../gepa/core/workJournal.js';
import type { EvaluationCachePolicy } from './evaluationStore.js';
import type { Paid, Spending } from './spending.js';

/** The (candidate, example, traces) call an evaluation answers. */
export interface CallKey {
  /** `${hash}:${exampleId}:${traces ? 1 : 0}`: the journal's key (made when first read: only a durable run reads it). */
  readonly key: string;
  readonly hash: string;
  readonly exampleId: number;
  readonly captureTraces: boolean;
}

/** A call's key whose journal string is built once, when first read (a run without a journal never builds it). */
class LazyCallKey implements CallKey {
  private joined: string | undefined;
  constructor(
    readonly hash: string,
    readonly exampleId: number,
    readonly captureTraces: boolean,
  ) {}
  get key(): string {
    return (this.joined ??= `${this.hash}:${this.exampleId}:${this.captureTraces ? 1 : 0}`);
  }
}

/** The journal's and the cache's key of a call. */
export function callKey(hash: string, exampleId: number, captureTraces: boolean): CallKey {
  return new LazyCallKey(hash, exampleId, captureTraces);
}

/**
 * A table keyed by call, as a candidate's hash and then a slot per (example, traces): the hash
 * string is the candidate's own (its string hash is computed once), where a joined key was a new
 * string to build and hash on every call (one lookup per metric call, cache hits included). The
 * slots are a small Map, not an array: example ids run into the hundreds (the valset's come after
 * the trainset's), and an array indexed that far is allocated that long for a few calls.
 */
class CallTable<V> {
  private readonly byHash = new Map<string, Map<number, V>>();
  get(call: CallKey): V | undefined {
    return this.byHash.get(call.hash)?.get(slotOf(call));
  }
  set(call: CallKey, value: V): void {
    let slots = this.byHash.get(call.hash);
    if (slots === undefined) this.byHash.set(call.hash, (slots = new Map()));
    slots.set(slotOf(call), value);
  }
  delete(call: CallKey): void {
    this.byHash.get(call.hash)?.delete(slotOf(call));
  }
}
const slotOf = (call: CallKey): number => call.exampleId * 2 + (call.captureTraces ? 1 : 0);

/**
 * What a lookup found: this run's evaluation, answered as it is (`shared`); one an earlier process
 * or run paid for (`earlier`: it stands for a metric call of this one); or nothing (`fresh`: the
 * call is made, as the `occurrence`-th of its key).
 */
export type Lookup = { shared: Promise<Evaluation> } | { earlier: Evaluation } | { fresh: number };

export interface EvaluationReuseOptions {
  journal?: WorkJournal;
  /** Default: reuse within the run, no store (cacheEvaluation 'memory'). */
  cache?: EvaluationCachePolicy;
  /** See EvaluationServiceOptions.twinsShareOneCall. */
  twinsShareOneCall?: boolean;
}

export class EvaluationReuse {
  private readonly inRun = new CallTable<Promise<Evaluation>>();
  /** Calls made so far per key, replayed ones included (see MetricCallIdentity). */
  private readonly occurrences = new CallTable<number>();
  private readonly sharing: boolean;

  constructor(
    private readonly options: EvaluationReuseOptions,
    private readonly spending: Spending,
  ) {
    this.sharing = options.cache?.reuse ?? true;
  }

  /** The one place an evaluation is looked up: this run's, then the log's, then the store's. */
  lookup(call: CallKey, paid: Paid): Lookup {
    const entry = this.sharing ? this.inRun.get(call) : undefined;
    if (entry) {
      // A logged call is reused before an in-flight traced one is shared: the process that logged
      // it may have paid for both (resumed, the replayed twin finishes at once, the timing differs).
      // Not in a batched run: a step's twins are asked for together, so the process that logged
      // them shared one call, and so does its resumption (else it replays later steps' records).
      const replayed = call.captureTraces && !this.options.twinsShareOneCall ? this.replay(call, paid) : undefined;
      return { shared: replayed ? Promise.resolve(replayed) : entry };
    }
    const replayed = this.replay(call, paid);
    if (replayed) return { earlier: replayed };
    const occurrence = this.occurrences.get(call) ?? 0;
    this.occurrences.set(call, occurrence + 1);
    // Kept by an earlier run (cacheEvaluation 'disk'): no metric call, nothing paid.
    const kept = this.options.cache?.store?.find(call.hash, call.exampleId, call.captureTraces, occurrence);
    return kept ? { earlier: kept } : { fresh: occurrence };
  }

  /** Makes this run's answer to a call the one later lookups share (when the run shares at all). */
  share(call: CallKey, answer: Promise<Evaluation>): Promise<Evaluation> {
    if (!this.sharing) return answer;
    this.inRun.set(call, answer);
    const forget = this.forgetting(call);
    // Traced runs feed reflection: identical ones in flight share a call, but a later
    // request gets a fresh run (a replay would make a failing loop free, and endless).
    if (call.captureTraces) answer.then(forget, forget);
    // A refused or aborted call is not an answer: a later request may try again.
    else answer.catch(forget);
    return answer;
  }

  /** Drops this run's answer to `call` (returned, not declared, so that no name is set on it per call). */
  private forgetting(call: CallKey): () => void {
    return () => this.inRun.delete(call);
  }

  /** Keeps a new call's answer: in the run log, and (not a failure: a later run tries that again) in the store. */
  keep(call: CallKey, occurrence: number, evaluation: Evaluation): void {
    this.options.journal?.recordEvaluation(call.key, evaluation);
    if (!evaluation.failure) this.options.cache?.store?.keep(call.hash, call.exampleId, call.captureTraces, occurrence, evaluation);
  }

  /** A call an earlier process paid for, from the journal: counted, not run again. */
  private replay(call: CallKey, paid: Paid): Evaluation | undefined {
    const journal = this.options.journal;
    if (!journal) return undefined;
    const key = call.key;
    let replayed = journal.replayEvaluation(key);
    // A logged failure is not an answer: resuming tries the call again. Its dollars were spent, and
    // the call itself counts from the start (metricCalls, the ledger: WorkJournal.failedCalls).
    while (replayed?.failure) {
      this.spending.spentEarlier(replayed.costUsd ?? 0, paid);
      replayed = journal.replayEvaluation(key);
    }
    if (!replayed) return undefined;
    this.occurrences.set(call, (this.occurrences.get(call) ?? 0) + 1);
    this.spending.replayedMetricCall(replayed.costUsd ?? 0, paid);
    return replayed;
  }
}
