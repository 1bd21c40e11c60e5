// Runs the run's paid work under the one worker budget: metric calls (through an executor, with
// an evaluation cache so a (candidate, example) pair is paid once, in-flight duplicates
// included; traced runs are shared only while in flight; cacheEvaluation false turns it off, and
// 'disk' serves evaluations earlier runs kept, free) and reflection calls. A thrown adapter
// error or an invalid score becomes a recorded score-0 call marked as a failure; a failed
// reflection becomes an error reply. Every failure is counted (failureTally.ts), announced, and
// may declare the run's failure systemic; an executor that can reach no worker any more
// (ExecutorUnavailableError) stops the run at once, its calls unlogged, so a resume makes them. Nothing here knows about actors.
// Room evaluation/: imported by the machines and the rooms above it (config/, adapters/, telemetry/, storage/, run/, report/).
import { NOTHING_RESERVED, type DollarGate, type DollarReservation } from '../budget/dollarGate.js';
import { errorMessage } from '../errors/errorMessage.js';
import { caughtError, failureOf, FailureTally, invalidScoreFailure, type CallChannel } from './failureTally.js';
import { ExecutorUnavailableError, type PricedExecutor } from '../executors/metricCallExecutor.js';
import type { SlotAwareLanguageModel } from '../lm/slotAwareModel.js';
import type { WorkerSlots, WorkKind } from './workerSlots.js';
import type { EvaluationCachePolicy } from './evaluationStore.js';
import type { Refinement, RefinementAttempt } from './refinement.js';
import { candidateHash } from '../gepa/core/candidateHash.js';
import type { CallFailure, Candidate, Evaluation, ReflectiveDataset, RetryNotice } from '../gepa/core/adapter.js';
import type { Clock } from '../clock.js';
import type { LmReply, PromptPart } from '../gepa/core/languageModel.js';
import type { ProposeNewTexts } from '../gepa/strategies/hookSignatures.js';
import type { WorkJournal } from '../gepa/core/workJournal.js';

/** Whose work a call is: a proposal's (its step and task), or the run's own (the seed) when absent. */
export interface CallOrigin {
  step: number;
  task: number;
}

/** One call that ran (replays and cache hits did not), for telemetry: what, for whom, when on the run's clock. */
export type CallRecord =
  | { channel: 'metric'; kind: WorkKind; origin?: CallOrigin; startMs: number; endMs: number; exampleId: number; score: number; failed: boolean; costUsd: number }
  | {
      channel: 'lm';
      kind: 'reflection' | 'propose';
      origin?: CallOrigin;
      startMs: number;
      endMs: number;
      model?: string;
      usage?: LmReply['usage'];
      costUsd: number;
      /** Set when the call failed. */
      error?: string;
    };

export interface EvaluateRequest {
  candidate: Candidate;
  hash: string;
  exampleIds: readonly number[];
  captureTraces: boolean;
  kind: WorkKind;
  origin?: CallOrigin;
}

export interface EvaluateReply {
  evaluations: Evaluation[];
  /** Metric calls this request paid for (cache hits excluded). */
  paidCalls: number;
  costUsd: number;
  /** The seed's valset evaluation only: set when every call failed, naming the cause (the run cannot start). */
  systemic?: string;
}

/** An evaluation that could not be completed, with what its calls that did run cost. */
export class EvaluationIncomplete extends Error {
  override name = 'EvaluationIncomplete';
  constructor(
    message: string,
    readonly paidCalls: number,
    readonly costUsd: number,
  ) {
    super(message);
  }
}

export type ReflectReply = { ok: true; reply: LmReply; costUsd: number } | { ok: false; error: string; costUsd: number };

/** proposeNewTexts' answer, unchecked (the domain reads it), or what it threw. */
export type ProposeReply = { ok: true; texts: unknown } | { ok: false; error: string };

export interface EvaluationServiceOptions<Example> {
  examples: readonly Example[];
  executor: PricedExecutor<Example>;
  reflectionLm: SlotAwareLanguageModel;
  slots: WorkerSlots;
  signal: AbortSignal;
  journal?: WorkJournal;
  /** The dollar budget, which the service alone settles; absent = no dollar limit. */
  dollars?: DollarGate;
  /** Raise on the first failed call (metric or reflection): it is declared systemic at once (the seed's with its reply). */
  failFast?: boolean;
  /** Failed calls in a row with one cause that make the failure systemic (FailureTally's default). */
  maxConsecutiveFailures?: number;
  /** Dollars spent for the run before it started (an endpoint check): in costUsd and the dollar budget. */
  preRunCostUsd?: number;
  /** Every wait before a model call's next attempt (models that retry report them). */
  onRetry?: (notice: RetryNotice) => void;
  /** Every failed call, as it fails, with what was thrown (absent: nothing was, e.g. an invalid score). */
  onFailure?: (failure: CallFailure, channel: CallChannel, thrown?: unknown) => void;
  /** Once, mid-run: the failures say the run cannot succeed (the message names the cause); the seed's verdict is in its reply. */
  onSystemicFailure?: (message: string) => void;
  /** The user's custom candidate proposer, run in a reflection slot. */
  proposeNewTexts?: ProposeNewTexts;
  /** Every call that ran, once it ended, timed on `clock` (telemetry spans). */
  onCall?: { clock: Clock; record: (call: CallRecord) => void };
  /** Default: reuse within the run, no store (cacheEvaluation 'memory'). */
  cache?: EvaluationCachePolicy;
  /** optimizeAnything's refiner: each evaluation is refined (refinement.ts) before it is answered. */
  refinement?: Refinement;
  /**
   * Identical traced requests in flight together always shared one call (the batched schedule:
   * a step's requests are made at once), so a resumed run shares them too rather than replaying each.
   */
  twinsShareOneCall?: boolean;
}

/** Dollars a failed call still cost (e.g. a reply with usage but no content). */
function costOfError(error: unknown): number {
  const cost = (error as { costUsd?: unknown } | null)?.costUsd;
  return typeof cost === 'number' && cost > 0 ? cost : 0;
}

/** An evaluation the pool can hold: an invalid score becomes a failed call scoring 0. */
function normalizeEvaluation(value: unknown): Evaluation {
  const invalid = invalidScoreFailure(value);
  if (!invalid) return value as Evaluation;
  const cost = (value as { costUsd?: unknown } | null)?.costUsd;
  return { score: 0, feedback: `The evaluation failed: ${invalid.message}`, failure: invalid, ...(typeof cost === 'number' && cost > 0 ? { costUsd: cost } : {}) };
}

const originOf = (request: { origin?: CallOrigin }): { origin?: CallOrigin } => (request.origin ? { origin: request.origin } : {});

/** The model's name when it says (`openai:<model>` models do; a plain function's name is no model's). */
function modelOf(lm: SlotAwareLanguageModel): { model?: string } {
  const named = (lm as { model?: unknown }).model;
  return typeof named === 'string' && named !== '' ? { model: named } : {};
}

export function normalizeLmReply(value: string | LmReply): LmReply {
  if (typeof value === 'string') return { text: value };
  if (!value || typeof value.text !== 'string') throw new Error('the language model returned no text');
  return value;
}

export class EvaluationService<Example> {
  private readonly cache = new Map<string, Promise<Evaluation>>();
  /** Calls made so far per cache key, replayed ones included (see MetricCallIdentity). */
  private readonly occurrences = new Map<string, number>();
  metricCalls = 0;
  reflectionCalls = 0;
  costUsd = 0;
  readonly failures: FailureTally;
  /** Set once the executor said it can run no call any more: the run is stopped once. */
  private executorGone = false;

  constructor(private readonly options: EvaluationServiceOptions<Example>) {
    this.failures = new FailureTally(options.maxConsecutiveFailures);
    // Failed calls of earlier processes were paid; resuming pays for them again (see replay).
    this.metricCalls = options.journal?.failedCalls?.() ?? 0;
    // This process's pre-run spend is logged, so that a resumed run still counts it beside its own.
    const now = options.preRunCostUsd ?? 0;
    if (now > 0) options.journal?.recordPreRunCost?.(now);
    const before = now + (options.journal?.earlierPreRunCostUsd?.() ?? 0);
    if (before > 0) {
      this.costUsd += before;
      options.dollars?.settle(NOTHING_RESERVED, before);
    }
  }

  private get retryHook(): { onRetry?: (notice: RetryNotice) => void } {
    return this.options.onRetry ? { onRetry: this.options.onRetry } : {};
  }

  /**
   * Counts a call's outcome; announces a failure, and a systemic one once. The seed's calls do not
   * declare a streak: the seed's verdict comes with its reply, so the run stops with the seed folded.
   */
  private tally(failure: CallFailure | undefined, channel: CallChannel, thrown?: unknown, seed = false): void {
    if (failure) this.options.onFailure?.(failure, channel, thrown);
    const raised = failure && this.options.failFast && !seed ? this.failures.raise(failure) : undefined;
    const systemic = this.failures.record(failure, channel, !seed) ?? raised;
    if (systemic !== undefined) this.options.onSystemicFailure?.(systemic);
  }

  /**
   * Evaluates a candidate on examples. Rejects with EvaluationIncomplete (carrying what was paid)
   * when a call could not be made: the run was aborted or the dollar budget refused it.
   */
  async evaluate(request: EvaluateRequest, refine = true): Promise<EvaluateReply> {
    const paid = { calls: 0, usd: 0 };
    const reuse = this.options.cache?.reuse ?? true;
    const refinement = refine ? this.options.refinement : undefined;
    const pending = request.exampleIds.map((id) => {
      const key = `${request.hash}:${id}:${request.captureTraces ? 1 : 0}`;
      // One metric call, refined when the run has a refiner: cached or not, an evaluation is the same work.
      const evaluateOnce = (): Promise<Evaluation> => {
        const original = this.runMetricCall(request, id, key, paid);
        return refinement ? original.then((evaluation) => this.refine(refinement, request, id, evaluation, paid)) : original;
      };
      if (!reuse) return evaluateOnce();
      let entry = this.cache.get(key);
      // A logged call is reused before an in-flight traced one is shared: the process that logged
      // it may have paid for both (resumed, the replayed twin finishes at once, the timing differs).
      // Not in a batched run: a step's twins are asked for together, so the process that logged
      // them shared one call, and so does its resumption (else it replays later steps' records).
      const replayed = entry && request.captureTraces && !this.options.twinsShareOneCall ? this.replay(key, paid) : undefined;
      if (replayed) return replayed;
      if (!entry) {
        // Only the request that creates an entry pays for it; cache hits are free.
        entry = evaluateOnce();
        this.cache.set(key, entry);
        // Traced runs feed reflection: identical ones in flight share a call, but a later
        // request gets a fresh run (a replay would make a failing loop free, and endless).
        const forget = () => this.cache.delete(key);
        if (request.captureTraces) entry.then(forget, forget);
        // A refused or aborted call is not an answer: a later request may try again.
        else entry.catch(forget);
      }
      return entry;
    });
    const settled = await Promise.allSettled(pending);
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw new EvaluationIncomplete(errorMessage(failure.reason), paid.calls, paid.usd);
    const evaluations = settled.map((r) => (r as PromiseFulfilledResult<Evaluation>).value);
    if (refine) this.failures.recordEvaluation(request.kind, request.hash, evaluations);
    const systemic = request.kind === 'seed' ? this.failures.recordSeed(evaluations, this.options.failFast) : undefined;
    return { evaluations, paidCalls: paid.calls, costUsd: paid.usd, ...(systemic !== undefined ? { systemic } : {}) };
  }

  private runMetricCall(request: EvaluateRequest, exampleId: number, key: string, paid: { calls: number; usd: number }): Promise<Evaluation> {
    const { executor, examples, slots, signal, journal } = this.options;
    const example = examples[exampleId] as Example;
    const replayed = this.replay(key, paid);
    if (replayed) return replayed;
    const occurrence = this.occurrences.get(key) ?? 0;
    this.occurrences.set(key, occurrence + 1);
    // Kept by an earlier run (cacheEvaluation 'disk'): no metric call, nothing paid.
    const store = this.options.cache?.store;
    const kept = store?.find(request.hash, exampleId, request.captureTraces, occurrence);
    if (kept) return Promise.resolve(kept);
    // Dollars first, then a slot: a call waiting for dollars holds no slot, so the calls in
    // flight that will give dollars back can always finish. One the budget cannot pay is not made.
    return this.acquireDollars(executor.estimateMaxCostUsd?.(request.candidate, example) ?? 0).then((reserved) => {
      let started = false;
      return slots.run(
        request.kind,
        async () => {
          started = true;
          const startMs = this.options.onCall?.clock.now() ?? 0;
          this.metricCalls++;
          paid.calls++;
          let evaluation: Evaluation;
          let thrown: unknown;
          try {
            evaluation = normalizeEvaluation(
              await executor.evaluate(request.candidate, example, exampleId, { captureTraces: request.captureTraces, signal, ...this.retryHook }, { occurrence }),
            );
          } catch (error) {
            // Aborted, or the executor can reach no worker any more: no answer and nothing logged,
            // so a resumed run makes the call again (it counts as spent here: it may have run).
            const unavailable = !signal.aborted && error instanceof ExecutorUnavailableError;
            if (signal.aborted || unavailable) {
              this.options.dollars?.settle(reserved, costOfError(error));
              paid.usd += costOfError(error);
              if (unavailable && !this.executorGone) {
                this.executorGone = true;
                this.options.onSystemicFailure?.(errorMessage(error));
              }
              throw error;
            }
            thrown = error;
            // No cost on the error: the call is unpriced (as the report counts it), not priced at $0.
            const costUsd = costOfError(error);
            evaluation = { score: 0, feedback: `The evaluation failed with an error: ${errorMessage(error)}`, ...(costUsd > 0 ? { costUsd } : {}), failure: failureOf(error) };
          }
          this.tally(evaluation.failure, 'metric', thrown ?? caughtError(evaluation), request.kind === 'seed');
          this.options.dollars?.settle(reserved, evaluation.costUsd ?? 0);
          this.costUsd += evaluation.costUsd ?? 0;
          paid.usd += evaluation.costUsd ?? 0;
          journal?.recordEvaluation(key, evaluation);
          if (!evaluation.failure) store?.keep(request.hash, exampleId, request.captureTraces, occurrence, evaluation);
          this.recordCall((endMs) => ({
            channel: 'metric', kind: request.kind, ...originOf(request), startMs, endMs, exampleId, score: evaluation.score, failed: evaluation.failure !== undefined, costUsd: evaluation.costUsd ?? 0,
          }));
          return evaluation;
        },
        signal,
      ).catch((error: unknown) => {
        // Aborted while waiting for a slot: the reservation was never used.
        if (!started) this.options.dollars?.settle(reserved, 0);
        throw error;
      });
    });
  }

  /**
   * Refines one evaluation: the refiner model proposes a candidate from the attempts so far, it is
   * evaluated (unrefined), and refining goes on while it improves, up to maxRefinements. Each step
   * is ordinary work (a reflection call, a metric call), paid into `paid`; a resumed run replays them.
   */
  private async refine(refinement: Refinement, request: EvaluateRequest, exampleId: number, original: Evaluation, paid: { calls: number; usd: number }): Promise<Evaluation> {
    const attempts: RefinementAttempt[] = [{ candidate: request.candidate, evaluation: original }];
    let best = original.score;
    for (let i = 0; i < refinement.maxRefinements; i++) {
      const answer = await this.reflect(refinement.prompt(attempts), request.origin, refinement.lm);
      paid.usd += answer.costUsd;
      const read = answer.ok ? refinement.read(answer.reply.text, request.candidate) : { error: `the refiner model failed: ${answer.error}` };
      if ('error' in read) {
        attempts.push({ candidate: request.candidate, error: read.error });
        if (!answer.ok) break;
        continue;
      }
      let evaluation: Evaluation;
      try {
        // Keyed apart from the same text evaluated as a candidate of the run (which is refined).
        const reply = await this.evaluate({ ...request, candidate: read, hash: `${candidateHash(read)}:unrefined`, exampleIds: [exampleId], captureTraces: false }, false);
        paid.calls += reply.paidCalls;
        paid.usd += reply.costUsd;
        evaluation = reply.evaluations[0] as Evaluation;
      } catch (error) {
        if (this.options.signal.aborted) throw error;
        // The dollar budget refused the refined call: the original stands.
        if (error instanceof EvaluationIncomplete) {
          paid.calls += error.paidCalls;
          paid.usd += error.costUsd;
        }
        attempts.push({ candidate: read, error: errorMessage(error) });
        break;
      }
      attempts.push({ candidate: read, evaluation });
      if (!(evaluation.score > best)) break;
      best = evaluation.score;
    }
    return refinement.combine(attempts);
  }

  /** A call an earlier process paid for, from the journal: counted, not run again. */
  private replay(key: string, paid: { calls: number; usd: number }): Promise<Evaluation> | undefined {
    let replayed = this.options.journal?.replayEvaluation(key);
    // A logged failure is not an answer: resuming tries the call again. Its dollars were spent, and
    // the call itself counts from the start (metricCalls, the ledger: WorkJournal.failedCalls).
    while (replayed?.failure) {
      this.costUsd += replayed.costUsd ?? 0;
      paid.usd += replayed.costUsd ?? 0;
      this.options.dollars?.settle(NOTHING_RESERVED, replayed.costUsd ?? 0);
      replayed = this.options.journal?.replayEvaluation(key);
    }
    if (!replayed) return undefined;
    this.occurrences.set(key, (this.occurrences.get(key) ?? 0) + 1);
    this.metricCalls++;
    this.costUsd += replayed.costUsd ?? 0;
    paid.calls++;
    paid.usd += replayed.costUsd ?? 0;
    // Its dollars were spent too: the dollar budget must see them, as the first process did.
    this.options.dollars?.settle(NOTHING_RESERVED, replayed.costUsd ?? 0);
    return Promise.resolve(replayed);
  }

  /** Tells the telemetry hook about a call that ran, ending now. */
  private recordCall(call: (endMs: number) => CallRecord): void {
    const onCall = this.options.onCall;
    if (onCall) onCall.record(call(onCall.clock.now()));
  }

  /**
   * One reflection call (or the refiner's, with `lm`): in a slot, its dollars reserved, logged and
   * replayed on resume. `content`: the prompt as parts when it holds images; a model that cannot
   * take images fails the call (optimizeAnything's `images: true` refuses such a model before the run).
   */
  async reflect(prompt: string, origin?: CallOrigin, lm?: SlotAwareLanguageModel, content?: readonly PromptPart[]): Promise<ReflectReply> {
    const { slots, signal, journal } = this.options;
    const reflectionLm = lm ?? this.options.reflectionLm;
    const replayed = journal?.replayReflection(prompt);
    if (replayed) {
      this.failures.record(undefined, 'reflection');
      this.reflectionCalls++;
      this.costUsd += replayed.costUsd ?? 0;
      this.options.dollars?.settle(NOTHING_RESERVED, replayed.costUsd ?? 0);
      return { ok: true, reply: replayed, costUsd: replayed.costUsd ?? 0 };
    }
    const dollars = this.options.dollars;
    let reserved = NOTHING_RESERVED;
    let startMs: number | undefined;
    const lmCall = (endMs: number, outcome: { usage?: LmReply['usage']; costUsd: number; error?: string }): CallRecord => ({
      channel: 'lm', kind: 'reflection', ...originOf({ origin }), startMs: startMs ?? endMs, endMs, ...modelOf(reflectionLm), ...outcome,
    });
    const call = async () => {
      startMs ??= this.options.onCall?.clock.now();
      this.reflectionCalls++;
      return reflectionLm(prompt, {
        signal,
        ...(content ? { content } : {}),
        runInSlot: <T>(fn: () => Promise<T>) => slots.run('reflection', fn, signal),
        ...this.retryHook,
      } as { signal: AbortSignal });
    };
    try {
      if (content && reflectionLm.acceptsImages !== true) throw new Error('the prompt holds images and this model cannot take them (it does not declare acceptsImages)');
      // Before the slot, as for metric calls (a model managing its own slots takes them per attempt).
      reserved = await this.acquireDollars(reflectionLm.estimateMaxCostUsd?.(prompt, content) ?? 0);
      const raw = reflectionLm.managesSlots ? await call() : await slots.run('reflection', call, signal);
      const reply = normalizeLmReply(raw);
      const costUsd = reply.costUsd ?? 0;
      dollars?.settle(reserved, costUsd);
      this.costUsd += costUsd;
      journal?.recordReflection(prompt, reply);
      this.tally(undefined, 'reflection');
      this.recordCall((endMs) => lmCall(endMs, { ...(reply.usage ? { usage: reply.usage } : {}), costUsd }));
      return { ok: true, reply, costUsd };
    } catch (error) {
      const costUsd = costOfError(error);
      // A refused call reserved nothing and cost nothing.
      dollars?.settle(reserved, costUsd);
      this.costUsd += costUsd;
      if (signal.aborted) throw error;
      this.tally(failureOf(error, 'other'), 'reflection', error);
      // A call the dollar budget refused never started: no span.
      if (startMs !== undefined) this.recordCall((endMs) => lmCall(endMs, { costUsd, error: errorMessage(error) }));
      return { ok: false, error: errorMessage(error), costUsd };
    }
  }

  /**
   * The user's proposeNewTexts, in a worker slot as a reflection (it is user work like an LM
   * call). Not a reflection call: it is not counted as one, and its dollars are not seen.
   */
  async propose(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[], origin?: CallOrigin): Promise<ProposeReply> {
    const { proposeNewTexts, slots, signal, journal } = this.options;
    // A durable run asks the user's proposer once per input: a resumed run takes the logged answer.
    const replayed = journal?.replayProposal?.(candidate, dataset, components);
    if (replayed) return { ok: true, texts: replayed.texts };
    let startMs: number | undefined;
    const proposeCall = (endMs: number, error?: string): CallRecord => ({
      channel: 'lm', kind: 'propose', ...originOf({ origin }), startMs: startMs ?? endMs, endMs, costUsd: 0, ...(error === undefined ? {} : { error }),
    });
    try {
      if (!proposeNewTexts) throw new Error('no proposeNewTexts was given');
      const texts: unknown = await slots.run(
        'reflection',
        async () => {
          startMs = this.options.onCall?.clock.now();
          return proposeNewTexts(candidate, dataset, components);
        },
        signal,
      );
      this.recordCall((endMs) => proposeCall(endMs));
      journal?.recordProposal?.(candidate, dataset, components, texts);
      return { ok: true, texts };
    } catch (error) {
      if (signal.aborted) throw error;
      if (startMs !== undefined) this.recordCall((endMs) => proposeCall(endMs, errorMessage(error)));
      return { ok: false, error: errorMessage(error) };
    }
  }

  /**
   * Reserves a call's worst case, waiting while calls in flight hold the dollars it needs; rejects
   * with DollarBudgetExhausted when even with nothing in flight it cannot be paid (the call is not made).
   */
  private acquireDollars(estimateUsd: number): Promise<DollarReservation> {
    const dollars = this.options.dollars;
    return dollars ? dollars.acquire(estimateUsd, this.options.signal) : Promise.resolve(NOTHING_RESERVED);
  }

  async close(): Promise<void> {
    await this.options.executor.close?.();
  }
}
