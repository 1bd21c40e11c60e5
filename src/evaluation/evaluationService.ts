// Runs the run's paid work under the one worker budget: metric calls and reflection calls, by
// concern. Reuse (evaluationReuse.ts): a (candidate, example) pair is paid once, in-flight
// duplicates included; traced runs are shared only while in flight; cacheEvaluation false turns it
// off, and 'disk' serves evaluations earlier runs kept, free; a resumed run replays its log. Spend
// (spending.ts): dollars reserved before a call takes a slot and settled after, calls counted.
// Execute (metricCallRunner.ts): the calls not reused go to the executor as batches (its
// evaluateBatch), each call in a worker slot; a thrown adapter error or an invalid score becomes a
// recorded score-0 call marked as a failure. Here: a request's calls looked up, made and refined,
// reflections, the user's proposer. A failed reflection becomes an error reply. Every failure is
// counted (failureTally.ts), announced, and may declare the run's failure systemic; an executor
// that can reach no worker any more (ExecutorUnavailableError) stops the run at once, its calls
// unlogged, so a resume makes them. Nothing here knows about actors.
// Room evaluation/: imported by the machines and the rooms above it (config/, adapters/, telemetry/, storage/, run/, report/).
import { NOTHING_RESERVED, type DollarGate } from '../budget/dollarGate.js';
import { errorMessage } from '../errors/errorMessage.js';
import { failureOf, FailureTally, type CallChannel } from './failureTally.js';
import type { PricedExecutor } from '../executors/metricCallExecutor.js';
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
import type { CallOrigin, CallRecord } from './callRecord.js';
import { callKey, EvaluationReuse } from './evaluationReuse.js';
import { MetricCallRunner } from './metricCallRunner.js';
import { costOfError, Spending, type Paid } from './spending.js';

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

/** When a call started on the run's clock (set in its slot; unset while it has not started). */
interface CallTiming {
  startMs?: number;
}

type LmCallRecord = Extract<CallRecord, { channel: 'lm' }>;

/**
 * A reflection call as telemetry records it, its optional fields set when present (spreading them
 * into the literal cost ~1 us each). Module functions, not closures made per call (tsx's keepNames names each).
 */
function reflectionRecord(origin: CallOrigin | undefined, lm: SlotAwareLanguageModel, startMs: number, endMs: number, costUsd: number, usage: LmReply['usage'] | undefined, error?: string): CallRecord {
  const record: LmCallRecord = { channel: 'lm', kind: 'reflection', startMs, endMs, costUsd };
  if (origin) record.origin = origin;
  const model = (lm as { model?: unknown }).model;
  // The model's name when it says (`openai:<model>` models do; a plain function's name is no model's).
  if (typeof model === 'string' && model !== '') record.model = model;
  if (usage) record.usage = usage;
  if (error !== undefined) record.error = error;
  return record;
}

/** A call of the user's proposeNewTexts as telemetry records it. */
function proposeRecord(origin: CallOrigin | undefined, startMs: number, endMs: number, error?: string): CallRecord {
  const record: LmCallRecord = { channel: 'lm', kind: 'propose', startMs, endMs, costUsd: 0 };
  if (origin) record.origin = origin;
  if (error !== undefined) record.error = error;
  return record;
}

export function normalizeLmReply(value: string | LmReply): LmReply {
  if (typeof value === 'string') return { text: value };
  if (!value || typeof value.text !== 'string') throw new Error('the language model returned no text');
  return value;
}

export class EvaluationService<Example> {
  readonly failures: FailureTally;
  private readonly spending: Spending;
  private readonly reuse: EvaluationReuse;
  private readonly runner: MetricCallRunner<Example>;
  /** Set once the executor said it can run no call any more: the run is stopped once. */
  private executorGone = false;
  /** A reflection model's runInSlot (one for the run, not one made per call). */
  private readonly inReflectionSlot = <T>(fn: () => Promise<T>): Promise<T> => this.options.slots.run('reflection', fn, this.options.signal);

  constructor(private readonly options: EvaluationServiceOptions<Example>) {
    const { dollars, signal, journal, preRunCostUsd, cache, twinsShareOneCall, examples, executor, slots, onRetry, onCall } = options;
    this.failures = new FailureTally(options.maxConsecutiveFailures);
    this.spending = new Spending({ signal, ...(dollars ? { dollars } : {}), ...(journal ? { journal } : {}), ...(preRunCostUsd !== undefined ? { preRunCostUsd } : {}) });
    this.reuse = new EvaluationReuse({ ...(journal ? { journal } : {}), ...(cache ? { cache } : {}), ...(twinsShareOneCall !== undefined ? { twinsShareOneCall } : {}) }, this.spending);
    this.runner = new MetricCallRunner({
      examples, executor, slots, signal, spending: this.spending, reuse: this.reuse,
      tally: (failure, thrown, seed) => this.tally(failure, 'metric', thrown, seed),
      onExecutorUnavailable: (error) => {
        if (this.executorGone) return;
        this.executorGone = true;
        this.options.onSystemicFailure?.(errorMessage(error));
      },
      ...(onRetry ? { onRetry } : {}), ...(onCall ? { onCall } : {}),
    });
  }

  /** Metric calls made (and replayed) so far, failed calls of earlier processes included. */
  get metricCalls(): number {
    return this.spending.metricCalls;
  }

  /** Reflection calls made (and replayed) so far. */
  get reflectionCalls(): number {
    return this.spending.reflectionCalls;
  }

  /** Dollars spent so far, before the run included. */
  get costUsd(): number {
    return this.spending.costUsd;
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
   * Evaluates a candidate on examples: each looked up (reuse), the rest made as one batch (execute),
   * each refined when the run has a refiner (cached or not, an evaluation is the same work). Rejects
   * with EvaluationIncomplete (carrying what was paid) when a call could not be made: the run was
   * aborted or the dollar budget refused it.
   */
  async evaluate(request: EvaluateRequest, refine = true): Promise<EvaluateReply> {
    const paid: Paid = { calls: 0, usd: 0 };
    const refinement = refine ? this.options.refinement : undefined;
    const calls = this.runner.batch(request, paid);
    const pending = request.exampleIds.map((exampleId) => {
      const call = callKey(request.hash, exampleId, request.captureTraces);
      const found = this.reuse.lookup(call, paid);
      if ('shared' in found) return found.shared;
      const answer = 'earlier' in found ? Promise.resolve(found.earlier) : calls.add(call, found.fresh);
      return this.reuse.share(call, refinement ? answer.then((evaluation) => this.refine(refinement, request, exampleId, evaluation, paid)) : answer);
    });
    calls.start();
    const settled = await Promise.allSettled(pending);
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw new EvaluationIncomplete(errorMessage(failure.reason), paid.calls, paid.usd);
    const evaluations = settled.map((r) => (r as PromiseFulfilledResult<Evaluation>).value);
    if (refine) this.failures.recordEvaluation(request.kind, request.hash, evaluations);
    const systemic = request.kind === 'seed' ? this.failures.recordSeed(evaluations, this.options.failFast) : undefined;
    const reply: EvaluateReply = { evaluations, paidCalls: paid.calls, costUsd: paid.usd };
    if (systemic !== undefined) reply.systemic = systemic;
    return reply;
  }

  /**
   * Refines one evaluation: the refiner model proposes a candidate from the attempts so far, it is
   * evaluated (unrefined), and refining goes on while it improves, up to maxRefinements. Each step
   * is ordinary work (a reflection call, a metric call), paid into `paid`; a resumed run replays them.
   */
  private async refine(refinement: Refinement, request: EvaluateRequest, exampleId: number, original: Evaluation, paid: Paid): Promise<Evaluation> {
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

  /** Tells the telemetry hook about a call that ran, ending now (started at `timing`'s start, else now). */
  private recordCall(timing: CallTiming, call: (startMs: number, endMs: number) => CallRecord): void {
    const onCall = this.options.onCall;
    if (!onCall) return;
    const endMs = onCall.clock.now();
    onCall.record(call(timing.startMs ?? endMs, endMs));
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
      this.spending.reflectionCall();
      this.spending.spentEarlier(replayed.costUsd ?? 0);
      return { ok: true, reply: replayed, costUsd: replayed.costUsd ?? 0 };
    }
    let reserved = NOTHING_RESERVED;
    const timing: CallTiming = {};
    try {
      if (content && reflectionLm.acceptsImages !== true) throw new Error('the prompt holds images and this model cannot take them (it does not declare acceptsImages)');
      // Before the slot, as for metric calls (a model managing its own slots takes them per attempt).
      reserved = await this.spending.reserve(reflectionLm.estimateMaxCostUsd?.(prompt, content) ?? 0);
      const raw = reflectionLm.managesSlots ? await this.askModel(reflectionLm, prompt, content, timing) : await slots.run('reflection', () => this.askModel(reflectionLm, prompt, content, timing), signal);
      const reply = normalizeLmReply(raw);
      const costUsd = reply.costUsd ?? 0;
      this.spending.settle(reserved, costUsd);
      journal?.recordReflection(prompt, reply);
      this.tally(undefined, 'reflection');
      this.recordCall(timing, (startMs, endMs) => reflectionRecord(origin, reflectionLm, startMs, endMs, costUsd, reply.usage));
      return { ok: true, reply, costUsd };
    } catch (error) {
      const costUsd = costOfError(error);
      // A refused call reserved nothing and cost nothing.
      this.spending.settle(reserved, costUsd);
      if (signal.aborted) throw error;
      this.tally(failureOf(error, 'other'), 'reflection', error);
      // A call the dollar budget refused never started: no span.
      if (timing.startMs !== undefined) this.recordCall(timing, (startMs, endMs) => reflectionRecord(origin, reflectionLm, startMs, endMs, costUsd, undefined, errorMessage(error)));
      return { ok: false, error: errorMessage(error), costUsd };
    }
  }

  /** The reflection model's call itself, in its slot (or managing its own), its start noted in `timing`. */
  private async askModel(reflectionLm: SlotAwareLanguageModel, prompt: string, content: readonly PromptPart[] | undefined, timing: CallTiming): Promise<string | LmReply> {
    timing.startMs ??= this.options.onCall?.clock.now();
    this.spending.reflectionCall();
    // Built field by field, not spread (a spread in a literal costs ~1 us): the same fields.
    const ctx: { signal: AbortSignal; runInSlot: <T>(fn: () => Promise<T>) => Promise<T>; content?: readonly PromptPart[]; onRetry?: (notice: RetryNotice) => void } = { signal: this.options.signal, runInSlot: this.inReflectionSlot };
    if (content) ctx.content = content;
    if (this.options.onRetry) ctx.onRetry = this.options.onRetry;
    return reflectionLm(prompt, ctx as { signal: AbortSignal });
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
    const timing: CallTiming = {};
    try {
      if (!proposeNewTexts) throw new Error('no proposeNewTexts was given');
      const texts: unknown = await slots.run(
        'reflection',
        async () => {
          timing.startMs = this.options.onCall?.clock.now();
          return proposeNewTexts(candidate, dataset, components);
        },
        signal,
      );
      this.recordCall(timing, (startMs, endMs) => proposeRecord(origin, startMs, endMs));
      journal?.recordProposal?.(candidate, dataset, components, texts);
      return { ok: true, texts };
    } catch (error) {
      if (signal.aborted) throw error;
      if (timing.startMs !== undefined) this.recordCall(timing, (startMs, endMs) => proposeRecord(origin, startMs, endMs, errorMessage(error)));
      return { ok: false, error: errorMessage(error) };
    }
  }

  async close(): Promise<void> {
    await this.options.executor.close?.();
  }
}
