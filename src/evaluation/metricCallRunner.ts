// Runs the metric calls a request could not reuse: each call's dollars reserved (spending.ts), the
// calls handed to the executor as batches of at most W (its evaluateBatch, or a call each), each
// call in a worker slot of its own or a batch job in one slot per call, and what comes back
// recorded per call: a thrown error, an invalid score or a missing answer becomes a failed call
// scoring 0, counted, logged and timed like any other. Nothing here decides what is reused.
import { errorMessage } from '../errors/errorMessage.js';
import { ExecutorUnavailableError, type BatchExample, type BatchSlots, type PricedExecutor } from '../executors/metricCallExecutor.js';
import type { CallOrigin, CallRecord } from './callRecord.js';
import { caughtError, failureOf, validEvaluation } from './failureTally.js';
import { costOfError, type Paid, type Spending } from './spending.js';
import type { DollarReservation } from '../budget/dollarGate.js';
import type { CallFailure, Candidate, EvalContext, Evaluation, RetryNotice } from '../gepa/core/adapter.js';
import type { Clock } from '../clock.js';
import type { CallKey, EvaluationReuse } from './evaluationReuse.js';
import type { SlotTask, WorkerSlots, WorkKind } from './workerSlots.js';

/** What a request's metric calls share: the candidate, whether traces are read, and whose work they are. */
export interface MetricCallRequest {
  candidate: Candidate;
  captureTraces: boolean;
  kind: WorkKind;
  origin?: CallOrigin;
}

export interface MetricCallRunnerOptions<Example> {
  examples: readonly Example[];
  executor: PricedExecutor<Example>;
  slots: WorkerSlots;
  signal: AbortSignal;
  spending: Spending;
  reuse: EvaluationReuse;
  /** Counts a call's outcome (the failure tally): what the executor threw (or the adapter caught), `seed` for the seed's calls. */
  tally: (failure: CallFailure | undefined, thrown: unknown, seed: boolean) => void;
  /** The executor can run no call any more (ExecutorUnavailableError): the run stops. */
  onExecutorUnavailable: (error: unknown) => void;
  /** Every wait before a model call's next attempt (models that retry report them). */
  onRetry?: (notice: RetryNotice) => void;
  /** Every call that ran, once it ended, timed on `clock` (telemetry spans). */
  onCall?: { clock: Clock; record: (call: CallRecord) => void };
}

/** A call that threw: score 0 with the error. No cost on the error: the call is unpriced (as the report counts it), not priced at $0. */
function thrownEvaluation(error: unknown, costUsd: number): Evaluation {
  return { score: 0, feedback: `The evaluation failed with an error: ${errorMessage(error)}`, ...(costUsd > 0 ? { costUsd } : {}), failure: failureOf(error) };
}

/**
 * A batch job's answer, one evaluation per example: an Error in an example's place is that call
 * failing with it (as if its evaluate threw it: `thrown`); an answer that is not a list of as many is a failure of each.
 */
function batchAnswers(answers: unknown, count: number): Array<{ evaluation: Evaluation; thrown?: unknown }> {
  if (Array.isArray(answers) && answers.length === count) {
    return answers.map((answer: unknown) => (answer instanceof Error ? { evaluation: thrownEvaluation(answer, costOfError(answer)), thrown: answer } : { evaluation: validEvaluation(answer) }));
  }
  const got = Array.isArray(answers) ? `${answers.length} evaluation${answers.length === 1 ? '' : 's'}` : 'no list of evaluations';
  const failure: CallFailure = { kind: 'adapter', message: `the batch job answered ${got} for ${count} example${count === 1 ? '' : 's'}` };
  return Array.from({ length: count }, () => ({ evaluation: { score: 0, feedback: `The evaluation failed: ${failure.message}`, failure } }));
}

type Runner = (reserved: DollarReservation) => Promise<Evaluation>;

/**
 * One call of a request to be made: its key and occurrence, its dollars, and how the executor
 * asked to run it. In its worker slot it is the slot's task (run): no closure is made per call.
 */
class PendingCall<Example> implements SlotTask<Evaluation> {
  /** What `answer` resolves with: the call as recorded (or the refusal, the abort). */
  answer: Promise<Evaluation> | undefined = undefined;
  /** Set by the executor through the batch's slots (runOne, runAll). */
  runner: Runner | undefined = undefined;
  /** Set while the reservation came through before the executor said how to run the call. */
  awaitRunner: ((runner: Runner) => void) | undefined = undefined;
  /** In a slot of its own: its dollars, the executor's job for it (runOne; absent: the executor's evaluate), and whether its slot started it. */
  reserved: DollarReservation | undefined = undefined;
  job: (() => Promise<Evaluation>) | undefined = undefined;
  started = false;
  /** When its slot started it, on the telemetry clock (0 without telemetry). */
  startMs = 0;

  constructor(
    private readonly owner: MetricCallBatch<Example>,
    readonly call: CallKey,
    readonly occurrence: number,
    readonly example: Example,
    readonly reservation: Promise<DollarReservation>,
  ) {}

  run(): Promise<Evaluation> {
    return this.owner.runInSlot(this);
  }
}

export class MetricCallRunner<Example> {
  constructor(private readonly options: MetricCallRunnerOptions<Example>) {}

  /** Collects one request's calls to make (add), then hands them to the executor (start). */
  batch(request: MetricCallRequest, paid: Paid): MetricCallBatch<Example> {
    return new MetricCallBatch(this.options, request, paid);
  }
}

export class MetricCallBatch<Example> {
  /** The calls for the executor's evaluateBatch (an executor without it runs each call as it is added). */
  private readonly pending: PendingCall<Example>[] = [];
  private context: EvalContext | undefined;

  constructor(
    private readonly options: MetricCallRunnerOptions<Example>,
    private readonly request: MetricCallRequest,
    private readonly paid: Paid,
  ) {}

  /**
   * A call to make, its dollars reserved now (dollars first, then a slot: a call waiting for
   * dollars holds no slot, so the calls in flight that will give dollars back can always finish;
   * one the budget cannot pay is not made). Answers the call's evaluation once it ran.
   */
  add(call: CallKey, occurrence: number): Promise<Evaluation> {
    const example = this.options.examples[call.exampleId] as Example;
    const reservation = this.options.spending.reserve(this.options.executor.estimateMaxCostUsd?.(this.request.candidate, example) ?? 0);
    const pending = new PendingCall(this, call, occurrence, example, reservation);
    // A call each, in a slot of its own (the fan-out), as soon as its dollars are reserved.
    if (!this.options.executor.evaluateBatch) return (pending.answer = reservation.then((reserved) => this.inOwnSlot(pending, reserved)));
    pending.answer = reservation.then((reserved) => (pending.runner ? pending.runner(reserved) : new Promise<Runner>((resolve) => (pending.awaitRunner = resolve)).then((runner) => runner(reserved))));
    this.pending.push(pending);
    return pending.answer;
  }

  /** What every call of the request is given: traces or not, the run's signal, the retry hook. */
  private get ctx(): EvalContext {
    const { signal, onRetry } = this.options;
    const { captureTraces } = this.request;
    return (this.context ??= onRetry ? { captureTraces, signal, onRetry } : { captureTraces, signal });
  }

  /** Hands the calls added to an executor with evaluateBatch, in batches of at most W (a batch job holds a slot per call). */
  start(): void {
    const width = this.options.slots.capacity;
    for (let from = 0; from < this.pending.length; from += width) this.startBatch(from === 0 && this.pending.length <= width ? this.pending : this.pending.slice(from, from + width));
  }

  private startBatch(batch: readonly PendingCall<Example>[]): void {
    const evaluateBatch = this.options.executor.evaluateBatch?.bind(this.options.executor);
    if (!evaluateBatch) return;
    const examples: BatchExample<Example>[] = batch.map((p) => ({ example: p.example, exampleId: p.call.exampleId, call: { occurrence: p.occurrence } }));
    let done: Promise<unknown>;
    try {
      done = Promise.resolve(evaluateBatch(this.request.candidate, examples, this.ctx, this.slotsFor(batch)));
    } catch (error) {
      done = Promise.reject(error);
    }
    // A call the executor left out of its slots is a failed call, not a request that never ends.
    const unrun = (outcome: unknown) => {
      for (const p of batch) {
        if (p.runner) continue;
        const why = outcome instanceof Error ? `: ${errorMessage(outcome)}` : '';
        this.register(p, (reserved) => this.inOwnSlot(p, reserved, () => Promise.reject(new Error(`the executor's evaluateBatch did not run example ${p.call.exampleId}${why}`))));
      }
    };
    done.then(unrun, unrun);
  }

  private register(pending: PendingCall<Example>, runner: Runner): void {
    pending.runner = runner;
    pending.awaitRunner?.(runner);
  }

  /** The worker slots as this batch's executor sees them. */
  private slotsFor(batch: readonly PendingCall<Example>[]): BatchSlots {
    const twice = () => Promise.reject(new Error('each example of a batch goes through the slots once'));
    return {
      runOne: (index, call) => {
        const pending = batch[index];
        if (!pending) return Promise.reject(new RangeError(`the batch has no example ${index}`));
        if (pending.runner) return twice();
        this.register(pending, (reserved) => this.inOwnSlot(pending, reserved, call));
        return pending.answer as Promise<Evaluation>;
      },
      runAll: (job, places) => {
        const part = places ? places.map((index) => batch[index]) : batch;
        if (part.length === 0 || part.some((p) => p === undefined)) return Promise.reject(new RangeError(`the batch of ${batch.length} has no examples at places ${String(places)}`));
        const calls = part as PendingCall<Example>[];
        if (calls.some((p) => p.runner) || new Set(calls).size < calls.length) return twice();
        const answers = this.inSlots(calls, job);
        calls.forEach((pending, i) => this.register(pending, () => answers.then((evaluations) => evaluations[i] as Evaluation)));
        return answers;
      },
    };
  }

  /** One call in a slot of its own: `job`, or the executor's evaluate of it. */
  private inOwnSlot(pending: PendingCall<Example>, reserved: DollarReservation, job?: () => Promise<Evaluation>): Promise<Evaluation> {
    const { slots, signal, spending } = this.options;
    pending.reserved = reserved;
    pending.job = job;
    return slots.run(this.request.kind, pending, signal).catch((error: unknown) => {
      // Aborted while waiting for a slot: the reservation was never used.
      if (!pending.started) spending.settle(reserved, 0);
      throw error;
    });
  }

  /**
   * A call in its slot (its PendingCall's run): counted, made, recorded; a thrown error is a failed
   * call unless it ends the run. A promise chain, not an async function (its state and its await's
   * closures per call): the outcome is read a tick after the executor answers, as an await would,
   * and at once when it throws at once.
   */
  runInSlot(pending: PendingCall<Example>): Promise<Evaluation> {
    pending.started = true;
    pending.startMs = this.options.onCall?.clock.now() ?? 0;
    this.options.spending.metricCall(this.paid);
    let made: Evaluation | PromiseLike<Evaluation>;
    try {
      made = pending.job ? pending.job() : this.options.executor.evaluate(this.request.candidate, pending.example, pending.call.exampleId, this.ctx, { occurrence: pending.occurrence });
    } catch (error) {
      try {
        return Promise.resolve(this.failed(pending, error));
      } catch (ending) {
        return Promise.reject(ending);
      }
    }
    return Promise.resolve(made).then(
      (answer) => this.answered(pending, answer),
      (error: unknown) => this.failed(pending, error),
    );
  }

  /** The executor's answer, checked (an invalid score is a failed call) and recorded. */
  private answered(pending: PendingCall<Example>, answer: unknown): Evaluation {
    let evaluation: Evaluation;
    try {
      evaluation = validEvaluation(answer);
    } catch (error) {
      return this.failed(pending, error);
    }
    this.record(pending, pending.reserved as DollarReservation, evaluation, caughtError(evaluation), pending.startMs);
    return evaluation;
  }

  /** What the executor threw: a failed call, recorded, or (thrown again) the end of the run. */
  private failed(pending: PendingCall<Example>, error: unknown): Evaluation {
    const { spending } = this.options;
    const reserved = pending.reserved as DollarReservation;
    if (this.endsTheRun(error, () => spending.settle(reserved, costOfError(error), this.paid))) throw error;
    const evaluation = thrownEvaluation(error, costOfError(error));
    this.record(pending, reserved, evaluation, error, pending.startMs);
    return evaluation;
  }

  /** One job for the batch, holding a slot per call; every call's dollars are reserved first. */
  private inSlots(batch: readonly PendingCall<Example>[], job: () => Promise<readonly unknown[]>): Promise<Evaluation[]> {
    const { slots, signal, spending } = this.options;
    return Promise.allSettled(batch.map((p) => p.reservation)).then((reservations) => {
      const refused = reservations.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      const reserved = reservations.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      if (refused) {
        // A job runs whole or not at all: what was reserved for it goes back.
        for (const r of reserved) spending.settle(r, 0);
        throw refused.reason;
      }
      let started = false;
      return slots
        .runHolding(
          this.request.kind,
          batch.length,
          async () => {
            started = true;
            const startMs = this.options.onCall?.clock.now() ?? 0;
            for (let i = 0; i < batch.length; i++) spending.metricCall(this.paid);
            let answers: Array<{ evaluation: Evaluation; thrown?: unknown }>;
            try {
              answers = batchAnswers(await job(), batch.length);
            } catch (error) {
              // The job's cost, when its error says, is the first call's.
              const cost = costOfError(error);
              if (this.endsTheRun(error, () => reserved.forEach((r, i) => spending.settle(r, i === 0 ? cost : 0, this.paid)))) throw error;
              answers = batch.map((_, i) => ({ evaluation: thrownEvaluation(error, i === 0 ? cost : 0), thrown: error }));
            }
            batch.forEach((pending, i) => {
              const { evaluation, thrown } = answers[i] as { evaluation: Evaluation; thrown?: unknown };
              this.record(pending, reserved[i] as DollarReservation, evaluation, thrown ?? caughtError(evaluation), startMs);
            });
            return answers.map((a) => a.evaluation);
          },
          signal,
        )
        .catch((error: unknown) => {
          if (!started) for (const r of reserved) spending.settle(r, 0);
          throw error;
        });
    });
  }

  /**
   * Aborted, or the executor can reach no worker any more (ExecutorUnavailableError: the run stops):
   * no answer and nothing logged, so a resumed run makes the call again (it counts as spent here,
   * `settle`: it may have run). False for a failed call, which is recorded.
   */
  private endsTheRun(error: unknown, settle: () => void): boolean {
    const unavailable = !this.options.signal.aborted && error instanceof ExecutorUnavailableError;
    if (!this.options.signal.aborted && !unavailable) return false;
    settle();
    if (unavailable) this.options.onExecutorUnavailable(error);
    return true;
  }

  /** A call that ran, as the run records it: its outcome counted, its dollars settled, kept in the log (and store), timed. */
  private record(pending: PendingCall<Example>, reserved: DollarReservation, evaluation: Evaluation, thrown: unknown, startMs: number): void {
    const { spending, reuse, onCall } = this.options;
    this.options.tally(evaluation.failure, thrown, this.request.kind === 'seed');
    spending.settle(reserved, evaluation.costUsd ?? 0, this.paid);
    reuse.keep(pending.call, pending.occurrence, evaluation);
    if (onCall) {
      // The origin set when present, as reflection records do (not spread into the literal: ~1 us a call).
      const record: Extract<CallRecord, { channel: 'metric' }> = {
        channel: 'metric', kind: this.request.kind, startMs, endMs: onCall.clock.now(), exampleId: pending.call.exampleId, score: evaluation.score, failed: evaluation.failure !== undefined, costUsd: evaluation.costUsd ?? 0,
      };
      if (this.request.origin) record.origin = this.request.origin;
      onCall.record(record);
    }
  }
}
