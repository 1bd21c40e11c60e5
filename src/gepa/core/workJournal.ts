// What a run asks of its durable record (gepa-ai/gepa keeps its run state in core/ too): replay
// completed paid work, record new work, the work earlier processes paid for that this one holds
// against the budget, and (async schedule) the decisions an earlier process took.
// storage/runJournal.ts implements it; its log validates against SCHEDULE_DECISION_KINDS. Types
// and that list only; 'gepa-actors/storage' re-exports the types.
import type { Candidate, Evaluation, ReflectiveDataset } from './adapter.js';
import type { LmReply } from './languageModel.js';

/**
 * Durable runs: completed paid work is recorded, and on resume replayed instead of paid again.
 * Keys are `${candidateHash}:${exampleId}:${traces ? 1 : 0}` for metric calls and the prompt for
 * reflections; a key may recur, so replays are consumed in recording order.
 */
export interface WorkJournal {
  /** The next logged evaluation for this key not yet replayed, or undefined (then the call is made). */
  replayEvaluation(key: string): Evaluation | undefined;
  /** Records a completed metric call. */
  recordEvaluation(key: string, evaluation: Evaluation): void;
  /** The next logged reply to this prompt not yet replayed, or undefined (then the call is made). */
  replayReflection(prompt: string): LmReply | undefined;
  /** Records a completed reflection. */
  recordReflection(prompt: string, reply: LmReply): void;
  /**
   * Async schedule: the decisions earlier processes took, in order (what completion order was).
   * Read once when the run starts; the optimizer keeps how far it has walked it.
   */
  loggedPath?(): readonly ScheduleDecision[];
  /**
   * Async schedule: a decision the run took off the logged path (it left the path there, or is
   * past it), the run's `n`-th counted from 0: append it to the log.
   */
  recordDecision?(decision: ScheduleDecision & { n: number }): void;
  /**
   * Logged work of earlier processes not replayed, once the run is past the logged path
   * (`walk.pastLoggedPath`; from the start in a run whose budget was raised on resume): it was
   * paid, so it counts against the budgets. On the path, a budget raised since that stretch of it
   * was taken (`walk.taken` decisions in) is held instead. A read: it changes nothing.
   */
  heldWork?(walk: ResumeWalk): {
    /** Metric calls held. */
    calls: number;
    /** Dollars held. */
    usd: number;
  };
  /**
   * Metric calls earlier processes paid whose answer was a failure. Resuming tries them again, so
   * their answers are never reused; they are counted as spent from the start (metricCalls and the
   * budget), and excluded from heldWork.
   */
  failedCalls?(): number;
  /** Dollars earlier processes spent before their first call (preRunCostUsd): still part of the run's cost. */
  earlierPreRunCostUsd?(): number;
  /** Records dollars spent before the first call (preRunCostUsd). */
  recordPreRunCost?(costUsd: number): void;
  /** An answer of the user's proposeNewTexts that an earlier process logged for these inputs. */
  replayProposal?(
    candidate: Candidate,
    dataset: ReflectiveDataset,
    components: readonly string[],
  ):
    | {
        /** What proposeNewTexts returned. */
        texts: unknown;
      }
    | undefined;
  /** Records an answer of the user's proposeNewTexts, keyed by its inputs. */
  recordProposal?(candidate: Candidate, dataset: ReflectiveDataset, components: readonly string[], texts: unknown): void;
}

/**
 * An async run's decisions: a proposal's child judged (a verdict), a proposal finished (a fold),
 * and schedule 'auto' choosing the shape ('shape', its id `async:<K>:<heldSlot>`).
 */
export const SCHEDULE_DECISION_KINDS = ['judged', 'finished', 'shape'] as const;

/** How far a resumed async run has walked its logged path (a batched run: not past it, none taken). */
export interface ResumeWalk {
  /** Every logged decision is taken, or the run left the path. */
  pastLoggedPath: boolean;
  /** Decisions taken so far in this run. */
  taken: number;
}

/** One decision of the async schedule, in the order the optimizer took it. */
export interface ScheduleDecision {
  /** A child judged ('judged'), a proposal folded ('finished'), or auto's shape chosen ('shape'). */
  kind: (typeof SCHEDULE_DECISION_KINDS)[number];
  /** The proposal's id (`p<step>-<task>`, `merge-<step>`), or the shape's (`async:<K>:<heldSlot>`): launches are a function of the decisions before them. */
  id: string;
  /** A shape's reason, for readers of the log (a resumed run follows the shape, not the reason). */
  reason?: string;
}
