// The WorkJournal of a durable run: every completed metric call and reflection is appended to
// the run log, and the records an earlier process left are replayed instead of paid again. A
// key may recur (a traced evaluation repeated in a later step), so each key holds a FIFO queue
// consumed in recording order; the batched schedule asks for them in the same order every time.
// The async schedule's order depends on which call finished first, so its decisions (verdicts and
// folds) are logged too: a resumed run takes them in the logged order and so asks for the same
// calls; once past that path, whatever the log still holds unreplayed is held against the budgets.
import { contentHash, sha256Hex } from '../contentHash.js';
import type { RunLogRecord } from './runLog.js';
import type { Candidate, Evaluation, LmReply, ReflectiveDataset, ScheduleDecision, WorkJournal } from '../types.js';

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
  replayed = { evaluations: 0, reflections: 0 };
  /** Logged metric calls whose answer was a failure: paid, never reused (resuming tries them again). */
  private readonly failures: number;
  /** Those of them not yet passed over by a replay (they are in `evaluations` still). */
  private failuresLeft = 0;
  /** Dollars earlier processes spent before their first call. */
  private readonly preRunUsd: number = 0;
  /** The async path earlier processes logged (the optimizer keeps how far it has walked it). */
  private readonly path: ScheduleDecision[] = [];

  /**
   * `records`: what earlier processes logged; `append`: where this process logs. `holdAll`: the
   * logged work not replayed is held against the budgets from the start, not only past the
   * logged path: a run whose budget was raised may leave the path anywhere (its last steps were
   * narrowed to the smaller budget), and its logged calls were paid all the same.
   */
  constructor(
    records: readonly RunLogRecord[],
    private readonly append: (record: RunLogRecord) => void,
    private readonly holdAll = false,
  ) {
    for (const r of records) {
      if (r.t === 'eval') {
        this.evaluations.push(r.key, r.evaluation);
        if (r.evaluation.failure) this.failuresLeft++;
      }
      else if (r.t === 'reflect') this.reflections.push(r.promptHash, r.reply);
      else if (r.t === 'propose') this.proposals.push(r.inputHash, { texts: r.texts });
      else if (r.t === 'prerun') this.preRunUsd += r.costUsd;
      else if (r.t === 'decision') {
        // A later process that left the path at n rewrote it from there.
        this.path.length = Math.min(this.path.length, r.n);
        this.path.push({ kind: r.kind, id: r.id });
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
  get unreplayed(): { evaluations: number; reflections: number; usd: number } {
    return { evaluations: this.evaluations.size - this.failuresLeft, reflections: this.reflections.size, usd: this.evaluations.usd + this.reflections.usd };
  }

  loggedPath(): readonly ScheduleDecision[] {
    return this.path;
  }

  recordDecision(decision: ScheduleDecision & { n: number }): void {
    this.append({ t: 'decision', ...decision });
  }

  heldWork(pastLoggedPath: boolean): { calls: number; usd: number } {
    return pastLoggedPath || this.holdAll ? { calls: this.evaluations.size - this.failuresLeft, usd: this.evaluations.usd + this.reflections.usd } : { calls: 0, usd: 0 };
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

  replayProposal(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[]): { texts: unknown } | undefined {
    return this.proposals.shift(proposalInputHash(candidate, dataset, components));
  }

  recordProposal(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[], texts: unknown): void {
    this.append({ t: 'propose', inputHash: proposalInputHash(candidate, dataset, components), texts });
  }
}
