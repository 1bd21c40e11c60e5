// The WorkJournal of a durable run: every completed metric call and reflection is appended to
// the run log, and the records an earlier process left are replayed instead of paid again. A
// key may recur (a traced evaluation repeated in a later step), so each key holds a FIFO queue
// consumed in recording order; the batched schedule asks for them in the same order every time.
// The async schedule's order depends on which call finished first, so its decisions (verdicts and
// folds) are logged too: a resumed run takes them in the logged order and so asks for the same
// calls; once past that path, whatever the log still holds unreplayed is held against the budgets.
import { contentHash, sha256Hex } from '../identity/contentHash.js';
import { budgetsOf, type RunBudgets } from './resumeBudgets.js';
import type { RunLogRecord } from './runLog.js';
import type { Candidate, Evaluation, ReflectiveDataset } from '../gepa/core/adapter.js';
import type { LmReply } from '../gepa/core/languageModel.js';
import type { ResumeWalk, ScheduleDecision, WorkJournal } from '../gepa/core/workJournal.js';

/** The key of a reflection in the log: prompts run to many kilobytes, their hash does not. */
export function promptHash(prompt: string): string {
  return sha256Hex(prompt);
}

/** The key of a proposeNewTexts answer in the log: the SHA-256 of what it was given. */
export function proposalInputHash(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[]): string {
  return contentHash({ candidate, dataset, components });
}

class ReplayQueues<T extends { costUsd?: number }> {
  private readonly queues = new Map<string, T[]>();
  size = 0;
  /** Dollars of the records not consumed. */
  usd = 0;

  push(key: string, value: T): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(value);
    else this.queues.set(key, [value]);
    this.size++;
    this.usd += value.costUsd ?? 0;
  }

  shift(key: string): T | undefined {
    const queue = this.queues.get(key);
    const value = queue?.shift();
    if (value !== undefined) {
      this.size--;
      this.usd -= value.costUsd ?? 0;
    }
    if (queue?.length === 0) this.queues.delete(key);
    return value;
  }
}

export class RunJournal implements WorkJournal {
  private readonly evaluations = new ReplayQueues<Evaluation>();
  private readonly reflections = new ReplayQueues<LmReply>();
  private readonly proposals = new ReplayQueues<{ texts: unknown; costUsd?: number }>();
  /** Calls answered from the log in this process. */
  replayed: {
    /** Metric calls. */
    evaluations: number;
    /** Reflections. */
    reflections: number;
  } = { evaluations: 0, reflections: 0 };
  /** Logged metric calls whose answer was a failure: paid, never reused (resuming tries them again). */
  private readonly failures: number;
  /** Those of them not yet passed over by a replay (they are in `evaluations` still). */
  private failuresLeft = 0;
  /** Dollars earlier processes spent before their first call. */
  private readonly preRunUsd: number = 0;
  /** The async path earlier processes logged (the optimizer keeps how far it has walked it). */
  private readonly path: ScheduleDecision[] = [];
  /** The budgets in force when each decision of the path was taken (a raise is logged before the work it pays for). */
  private readonly pathBudgets: RunBudgets[] = [];

  /**
   * `records`: what earlier processes logged; `append`: where this process logs. `holdAll`: the
   * logged work not replayed is held against the budgets from the start: a batched run whose
   * budget was raised plans its steps under the larger budget, may ask for other calls than the
   * log holds, and its logged calls were paid all the same. `budgets`: the run's budgets in
   * config.json (`original`) and in this process (`now`); an async run walking its logged path
   * keeps the room each stretch of it was taken with (see heldWork).
   */
  constructor(
    records: readonly RunLogRecord[],
    private readonly append: (record: RunLogRecord) => void,
    private readonly holdAll = false,
    private readonly budgets?: { original: RunBudgets; now: RunBudgets },
  ) {
    let inForce = budgets?.original ?? {};
    for (const r of records) {
      if (r.t === 'eval') {
        this.evaluations.push(r.key, r.evaluation);
        if (r.evaluation.failure) this.failuresLeft++;
      }
      else if (r.t === 'reflect') this.reflections.push(r.promptHash, r.reply);
      else if (r.t === 'propose') this.proposals.push(r.inputHash, { texts: r.texts });
      else if (r.t === 'prerun') this.preRunUsd += r.costUsd;
      else if (r.t === 'budget') inForce = budgetsOf(r);
      else if (r.t === 'decision') {
        // A later process that left the path at n rewrote it from there.
        this.path.length = Math.min(this.path.length, r.n);
        this.pathBudgets.length = this.path.length;
        this.path.push({ kind: r.kind, id: r.id, ...(r.reason !== undefined ? { reason: r.reason } : {}) });
        this.pathBudgets.push(inForce);
      }
    }
    this.failures = this.failuresLeft;
  }

  failedCalls(): number {
    return this.failures;
  }

  earlierPreRunCostUsd(): number {
    return this.preRunUsd;
  }

  recordPreRunCost(costUsd: number): void {
    this.append({ t: 'prerun', costUsd });
  }

  /**
   * Logged calls not replayed (yet): after a full resume, work the schedule no longer asks for.
   * Failed calls are not among the evaluations: they are counted from the start (failedCalls).
   */
  get unreplayed(): {
    /** Metric calls. */
    evaluations: number;
    /** Reflections. */
    reflections: number;
    /** Their dollars. */
    usd: number;
  } {
    return { evaluations: this.evaluations.size - this.failuresLeft, reflections: this.reflections.size, usd: this.evaluations.usd + this.reflections.usd };
  }

  loggedPath(): readonly ScheduleDecision[] {
    return this.path;
  }

  recordDecision(decision: ScheduleDecision & { n: number }): void {
    this.append({ t: 'decision', ...decision });
  }

  /**
   * Past the logged path (or from the start with holdAll and no path), the logged work not
   * replayed: it was paid. On the path, nothing logged is held (the path asks for it), but a
   * budget raised since that stretch was taken is: the run retakes the path with the room it was
   * taken with, so it launches what it launched then and the pool comes back in the logged order
   * (held under a raised budget, the logged calls would leave less room than the first process had,
   * and the run would leave its path at the first launch). The raise pays for what comes after.
   * A read: how far the run has walked its path is the caller's (`walk`).
   */
  heldWork(walk: ResumeWalk): {
    /** Metric calls held. */
    calls: number;
    /** Dollars held. */
    usd: number;
  } {
    if (walk.pastLoggedPath || (this.holdAll && this.path.length === 0)) {
      return { calls: this.evaluations.size - this.failuresLeft, usd: this.evaluations.usd + this.reflections.usd };
    }
    const then = this.pathBudgets[Math.min(walk.taken, this.pathBudgets.length - 1)];
    const now = this.budgets?.now;
    if (then === undefined || now === undefined) return { calls: 0, usd: 0 };
    // No limit now: nothing to keep room in. No limit then: it cannot have been raised since.
    const raisedBy = (current: number | undefined, earlier: number | undefined) => (current === undefined || earlier === undefined ? 0 : Math.max(0, current - earlier));
    return { calls: raisedBy(now.maxMetricCalls, then.maxMetricCalls), usd: raisedBy(now.maxCostUsd, then.maxCostUsd) };
  }

  replayEvaluation(key: string): Evaluation | undefined {
    const evaluation = this.evaluations.shift(key);
    if (evaluation?.failure) this.failuresLeft--;
    else if (evaluation) this.replayed.evaluations++;
    return evaluation;
  }

  recordEvaluation(key: string, evaluation: Evaluation): void {
    this.append({ t: 'eval', key, evaluation });
  }

  replayReflection(prompt: string): LmReply | undefined {
    const reply = this.reflections.shift(promptHash(prompt));
    if (reply) this.replayed.reflections++;
    return reply;
  }

  recordReflection(prompt: string, reply: LmReply): void {
    this.append({ t: 'reflect', promptHash: promptHash(prompt), reply });
  }

  replayProposal(
    candidate: Candidate,
    dataset: ReflectiveDataset,
    components: readonly string[],
  ):
    | {
        /** What proposeNewTexts returned. */
        texts: unknown;
      }
    | undefined {
    return this.proposals.shift(proposalInputHash(candidate, dataset, components));
  }

  recordProposal(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[], texts: unknown): void {
    this.append({ t: 'propose', inputHash: proposalInputHash(candidate, dataset, components), texts });
  }
}
