// The messages the actors exchange. Every event is typed here so that a custom evaluator or
// proposer (provided through optimizerMachine.provide({ actors })) knows exactly what it
// receives and must send. See machines/README.md for who sends what to whom.
import type { ActorRef, EventObject, Snapshot } from 'xstate';
import type { CallOrigin } from '../src/evaluation/callRecord.js';
import type { EvaluateReply, ProposeReply, ReflectReply } from '../src/evaluation/evaluationService.js';
import type { WorkKind } from '../src/evaluation/workerSlots.js';
import type { MinibatchOutcome, Proposal, ProposalSpend } from '../src/gepa/core/proposal.js';
import type { ChildMessage } from '../src/gepa/search/childAnswers.js';
import type { GatePrefetch } from '../src/gepa/search/gatePrefetch.js';
import type { RunReflection } from '../src/gepa/reflection/reflectionRun.js';
import type { ReflectionEvidence } from '../src/gepa/reflection/reflectionStrategy.js';
import type { AcceptanceRule } from '../src/settingValues.js';
import type { Candidate, Evaluation, EvaluatedExample, ReflectiveDataset } from '../src/gepa/core/adapter.js';
import type { FailureCounts } from '../src/gepa/core/optimizeResult.js';
import type { CallOutcomes } from '../src/gepa/search/failureRule.js';
import type { PromptPart } from '../src/gepa/core/languageModel.js';
import type { RunEvent } from '../src/gepa/core/runEvent.js';

/**
 * Where a reply goes: an actor that accepts exactly that reply, so tsc rejects a reply missing a
 * field (an `evaluator.failed` without `paidCalls`) wherever it is sent from.
 */
export type ReplyTo<Reply extends EventObject> = ActorRef<Snapshot<unknown>, Reply>;

/** Proposer or optimizer -> evaluator (systemId 'evaluator'; the built-in one takes them at its service, 'evaluator.inbox': machines/evaluatorInbox.ts). */
export type EvaluatorRequest =
  | {
      /** Run `candidate` on these examples (metric calls); answered with 'evaluated'. */
      type: 'evaluate';
      /** The requester's id for this request, echoed in the reply. */
      requestId: number;
      /** Where the reply goes. */
      replyTo: ReplyTo<EvaluatorReply>;
      /** The candidate to run. */
      candidate: Candidate;
      /** candidateHash(candidate): the cache and the journal key on it. */
      hash: string;
      /** Ids in the run's example table. */
      exampleIds: readonly number[];
      /** Whether the evaluations' traces will be read (EvalContext.captureTraces). */
      captureTraces: boolean;
      /** What the work is for ('seed', 'parent', 'child', 'valset', 'merge'): the slot policy orders by it. */
      kind: WorkKind;
      /** The proposal it is for (absent: the run's own, the seed); telemetry nests its spans there. */
      origin?: CallOrigin;
      /** false: not refined (optimizeAnything's refiner), the candidate's own scores only (the holdout's scoring). Default true. */
      refine?: false;
    }
  | {
      /** Call the reflection model with `prompt`; answered with 'reflected'. */
      type: 'reflect';
      /** The requester's id for this request, echoed in the reply. */
      requestId: number;
      /** Where the reply goes. */
      replyTo: ReplyTo<EvaluatorReply>;
      /** The reflection prompt. */
      prompt: string;
      /** The proposal it is for; telemetry nests its span there. */
      origin?: CallOrigin;
      /** The prompt as parts, when it holds images. */
      content?: readonly PromptPart[];
    }
  /** Run the configured proposeNewTexts (in a reflection slot); answered with 'proposed'. */
  | {
      /** Run the configured proposeNewTexts; answered with 'proposed'. */
      type: 'propose';
      /** The requester's id for this request, echoed in the reply. */
      requestId: number;
      /** Where the reply goes. */
      replyTo: ReplyTo<EvaluatorReply>;
      /** The parent whose texts are rewritten. */
      candidate: Candidate;
      /** Its reflective records, per component. */
      dataset: ReflectiveDataset;
      /** The components to rewrite. */
      components: readonly string[];
      /** The proposal it is for; telemetry nests its span there. */
      origin?: CallOrigin;
    }
  /** Optimizer -> evaluator at the end of a run: send your counts; answered with 'evaluator.stats'. */
  | {
      /** Send your counts; answered with 'evaluator.stats'. */
      type: 'stats';
      /** Where the counts go. */
      replyTo: ReplyTo<EvaluatorStats>;
    };

/** The evaluator as its requesters see it. */
export type EvaluatorRef = ActorRef<Snapshot<unknown>, EvaluatorRequest>;

/** Evaluator -> requester. */
export type EvaluatorReply =
  | ({
      /** An 'evaluate' request's evaluations. */
      type: 'evaluated';
      /** The request's id. */
      requestId: number;
    } & EvaluateReply)
  | ({
      /** A 'reflect' request's reply. */
      type: 'reflected';
      /** The request's id. */
      requestId: number;
    } & ReflectReply)
  | ({
      /** A 'propose' request's new texts. */
      type: 'proposed';
      /** The request's id. */
      requestId: number;
    } & ProposeReply)
  /** The request could not be completed (aborted, or refused by the dollar budget); what ran is paid. */
  | {
      /** The request could not be completed; what ran is paid. */
      type: 'evaluator.failed';
      /** The request's id. */
      requestId: number;
      /** Why, readable. */
      error: string;
      /** Metric calls that ran for it before it failed: paid, so counted. */
      paidCalls: number;
      /** Dollars they cost. */
      costUsd: number;
    };

/** The evaluator's counts at the end of a run (the reply to 'stats'). */
export interface EvaluatorStats {
  /** The reply to 'stats'. */
  type: 'evaluator.stats';
  /** Metric calls paid (cache hits and replays excluded). */
  metricCalls: number;
  /** Reflection calls made. */
  reflectionCalls: number;
  /** Dollars spent. */
  costUsd: number;
  /** Sum of the time slots were busy, in ms (workerUtilization's numerator). */
  busySlotMs: number;
  /** The most calls in flight at once. */
  maxInFlight: number;
  /** Failed calls by kind; absent = none counted. */
  failures?: FailureCounts;
  /** What the failure rule reads (proposed candidates evaluated, reflections answered); absent = not counted, those rules are not asked. */
  outcomes?: CallOutcomes;
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
  /** Stop the run. */
  type: 'stop';
  /** The stopReason it ends with. */
  reason: 'error';
  /** The cause, readable (result.error). */
  error: string;
}

/**
 * Optimizer -> proposer, when it spawns one: everything a proposal does follows from this and from
 * the replies it receives (every random choice was drawn by the optimizer).
 */
export interface ProposerInput {
  /** The proposal's id (`p<step>-<task>`, `merge-<step>`). */
  id: string;
  /** Step number (batched) or proposal number (async). */
  step: number;
  /** The proposal's place in its step. */
  task: number;
  /** The parent candidate. */
  parent: Candidate;
  /** candidateHash(parent). */
  parentHash: string;
  /** Example-table ids of the task's minibatch. */
  minibatch: number[];
  /** Example-table ids of the valset. */
  valIds: number[];
  /** The components the proposal rewrites. */
  components: string[];
  /** The run's example table (trainset, then the valset's examples not in it), indexed by the ids above. */
  examples: readonly unknown[];
  /** When the child passes its minibatch gate (OptimizeConfig.acceptance). */
  acceptance: AcceptanceRule;
  /** Skip the proposal when the parent is perfect on its minibatch. */
  skipPerfectScore: boolean;
  /** The score that counts as perfect. */
  perfectScore: number;
  /** Builds the reflective records (the adapter's makeReflectiveDataset, or the default). */
  buildDataset: (candidate: Candidate, results: EvaluatedExample<unknown>[], components: string[]) => Promise<ReflectiveDataset>;
  /** How the new texts are asked for: the run's reflection strategy and its options (default: the built-in prompt per component). */
  reflection?: RunReflection;
  /**
   * Other recent results the strategy may read beside the parent's (ReflectionInput.evidence),
   * newest first; the optimizer keeps that history for a strategy that reads it (its `evidence`).
   */
  evidence?: ReflectionEvidence[];
  /** The run keeps a history of results (the strategy reads evidence): the proposal reports its parent's records with its end. */
  shareEvidence?: boolean;
  /** The run's listener: receives this task's fine-grained run events (evaluation started, ended, skipped; errors). */
  onEvent?: (event: RunEvent) => void;
  /**
   * The parent's minibatch evaluation, when the optimizer asked for it before spawning the
   * proposer (runs with the built-in proposer, async or batched: a proposal skipped on that
   * evaluation then needs no actor) and it said go on: the proposer starts from it, with its reply's charge as
   * the proposal's spend so far, instead of asking again.
   */
  parentEvaluated?: {
    /** The parent's evaluations on the minibatch, in its order. */
    evaluations: Evaluation[];
    /** What that evaluation's reply charged: the proposal's spend so far. */
    spend: ProposalSpend;
    /** The parent's minibatch sum, which the optimizer's go-on answer (afterParentEvaluation) gave. */
    sum: number;
  };
  /**
   * Async with `perParent` N > 1: the proposal's place in its group after the first (1 to N - 1),
   * whose reflection prompts say so (siblingPrompt.ts); absent on the first.
   */
  sample?: number;
  /** Present for a merge proposal: the merged child and its parents' sums on the subsample (`minibatch`). */
  merge?: {
    /** The merged child. */
    child: Candidate;
    /** Its two parents' score sums on the subsample. */
    parentSums: [number, number];
  };
}

/** Proposer -> optimizer (its parent): patches to the optimizer's record of the proposal. */
export type ProposalUpdate =
  /** An accepted child's verdict: the optimizer answers it with a grant or a denial. */
  | ({
      /** An accepted child's verdict, awaiting the optimizer's answer. */
      type: 'proposal.judged';
      /** The proposal's id. */
      id: string;
      /** The minibatch verdict. */
      outcome: MinibatchOutcome;
    } & Pick<Proposal, 'child'>)
  /**
   * The end: what it spent, and the verdict when no 'proposal.judged' carried it (a skip, a
   * rejection; a failure leaves none), and the valset scores when the child was evaluated there.
   */
  | ({
      /** The proposal is over. */
      type: 'proposal.finished';
      /** The proposal's id. */
      id: string;
      /** What it spent. */
      spend: ProposalSpend;
      /** With ProposerInput.shareEvidence: its parent's records and scores, for later proposals' strategies. */
      evidence?: ReflectionEvidence;
    } & Pick<Proposal, 'outcome' | 'child' | 'valset' | 'valsetStop' | 'rebaseGateExamples' | 'tooLong'>);

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
