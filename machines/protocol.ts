// The messages the actors exchange. Every event is typed here so that a custom evaluator or
// proposer (provided through optimizerMachine.provide({ actors })) knows exactly what it
// receives and must send. See machines/README.md for who sends what to whom.
import type { ActorRef, EventObject, Snapshot } from 'xstate';
import type { CallOrigin, EvaluateReply, ProposeReply, ReflectReply } from '../src/evaluation/evaluationService.js';
import type { WorkKind } from '../src/evaluation/workerSlots.js';
import type { MinibatchOutcome, Proposal, ProposalSpend } from '../src/gepa/core/proposal.js';
import type { ChildMessage } from '../src/gepa/search/childAnswers.js';
import type { GatePrefetch } from '../src/gepa/search/gatePrefetch.js';
import type { ReflectionStrategy } from '../src/gepa/proposer/reflectionStrategy.js';
import type { AcceptanceRule, Candidate, EvaluatedExample, FailureCounts, ReflectiveDataset, RunEvent } from '../src/types.js';

/**
 * Where a reply goes: an actor that accepts exactly that reply, so tsc rejects a reply missing a
 * field (an `evaluator.failed` without `paidCalls`) wherever it is sent from.
 */
export type ReplyTo<Reply extends EventObject> = ActorRef<Snapshot<unknown>, Reply>;

/** Proposer or optimizer -> evaluator (systemId 'evaluator'). */
export type EvaluatorRequest =
  | {
      type: 'evaluate';
      requestId: number;
      replyTo: ReplyTo<EvaluatorReply>;
      candidate: Candidate;
      hash: string;
      /** Ids in the run's example table. */
      exampleIds: readonly number[];
      captureTraces: boolean;
      kind: WorkKind;
      /** The proposal it is for (absent: the run's own, the seed); telemetry nests its spans there. */
      origin?: CallOrigin;
    }
  | { type: 'reflect'; requestId: number; replyTo: ReplyTo<EvaluatorReply>; prompt: string; origin?: CallOrigin }
  /** Run the configured proposeNewTexts (in a reflection slot); answered with 'proposed'. */
  | { type: 'propose'; requestId: number; replyTo: ReplyTo<EvaluatorReply>; candidate: Candidate; dataset: ReflectiveDataset; components: readonly string[]; origin?: CallOrigin }
  /** Optimizer -> evaluator at the end of a run: send your counts; answered with 'evaluator.stats'. */
  | { type: 'stats'; replyTo: ReplyTo<EvaluatorStats> };

/** The evaluator as its requesters see it. */
export type EvaluatorRef = ActorRef<Snapshot<unknown>, EvaluatorRequest>;

/** Evaluator -> requester. */
export type EvaluatorReply =
  | ({ type: 'evaluated'; requestId: number } & EvaluateReply)
  | ({ type: 'reflected'; requestId: number } & ReflectReply)
  | ({ type: 'proposed'; requestId: number } & ProposeReply)
  /** The request could not be completed (aborted, or refused by the dollar budget); what ran is paid. */
  | { type: 'evaluator.failed'; requestId: number; error: string; paidCalls: number; costUsd: number };

export interface EvaluatorStats {
  type: 'evaluator.stats';
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  busySlotMs: number;
  maxInFlight: number;
  /** Failed calls by kind; absent = none counted. */
  failures?: FailureCounts;
}

/**
 * Evaluator -> optimizer (its parent), once: the dollars left cannot pay for a call as dear as the
 * dearest seen, so nothing more should be planned. The evaluator owns the dollar budget.
 */
export interface DollarsExhausted {
  type: 'dollars.exhausted';
}

/**
 * Evaluator -> optimizer, once: the failures are systemic (src/evaluation/failureTally.ts), so
 * the run stops now with stopReason 'error' and `error` naming the cause.
 */
export interface SystemicFailure {
  type: 'stop';
  reason: 'error';
  error: string;
}

/**
 * Optimizer -> proposer, when it spawns one: everything a proposal does follows from this and from
 * the replies it receives (every random choice was drawn by the optimizer).
 */
export interface ProposerInput {
  id: string;
  step: number;
  task: number;
  parent: Candidate;
  parentHash: string;
  /** Example-table ids of the task's minibatch. */
  minibatch: number[];
  /** Example-table ids of the valset. */
  valIds: number[];
  components: string[];
  examples: readonly unknown[];
  acceptance: AcceptanceRule;
  skipPerfectScore: boolean;
  perfectScore: number;
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  /** How the new texts are asked for (default: the built-in reflection prompt per component). */
  reflection?: ReflectionStrategy;
  /** The run's listener: receives this task's fine-grained run events (evaluation started, ended, skipped; errors). */
  onEvent?: (event: RunEvent) => void;
  /** Present for a merge proposal: the merged child and its parents' sums on the subsample (`minibatch`). */
  merge?: { child: Candidate; parentSums: [number, number] };
}

/** Proposer -> optimizer (its parent): patches to the optimizer's record of the proposal. */
export type ProposalUpdate =
  /** An accepted child's verdict: the optimizer answers it with a grant or a denial. */
  | ({ type: 'proposal.judged'; id: string; outcome: MinibatchOutcome } & Pick<Proposal, 'child'>)
  /**
   * The end: what it spent, and the verdict when no 'proposal.judged' carried it (a skip, a
   * rejection; a failure leaves none), and the valset scores when the child was evaluated there.
   */
  | ({ type: 'proposal.finished'; id: string; spend: ProposalSpend } & Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop' | 'rebaseGateExamples'>);

/** @deprecated The old name of ProposalUpdate ("report" also named the HTML report and the evaluator's stats request). */
export type ProposerReport = ProposalUpdate;

/**
 * Optimizer -> proposer, answering an accepted child: evaluate it on the valset, drop it, or
 * (async rebasing) judge `child`, its edit replayed onto the newer candidate `onto`, against
 * `onto` first, on the examples of its minibatch that `gate` names. With `schedule.speculate:
 * 'rebase-gate'`, a held child may first be told to evaluate ahead the rebase gates it may face
 * ('rebase.prefetch', one message per gate; nothing is reported for them but what they paid).
 */
export type ProposerDecision = ChildMessage | GatePrefetch;
