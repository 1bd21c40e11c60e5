// The messages the actors exchange. Every event is typed here so that a custom evaluator or
// proposer (provided through optimizerMachine.provide({ actors })) knows exactly what it
// receives and must send. See machines/README.md for who sends what to whom.
import type { AnyActorRef } from 'xstate';
import type { EvaluateReply, ReflectReply } from '../src/evaluation/evaluationService.js';
import type { Objectives } from '../src/gepa/core/paretoFront.js';
import type { MinibatchOutcome } from '../src/gepa/strategies/proposalSelection.js';
import type { Candidate } from '../src/types.js';
import type { WorkKind } from '../src/evaluation/workerSlots.js';

/** Proposer or optimizer -> evaluator (systemId 'evaluator'). */
export type EvaluatorRequest =
  | {
      type: 'evaluate';
      requestId: number;
      replyTo: AnyActorRef;
      candidate: Candidate;
      hash: string;
      /** Ids in the run's example table. */
      exampleIds: readonly number[];
      captureTraces: boolean;
      kind: WorkKind;
    }
  | { type: 'reflect'; requestId: number; replyTo: AnyActorRef; prompt: string }
  /** Optimizer -> evaluator at the end of a run; answered with 'evaluator.stats'. */
  | { type: 'report'; replyTo: AnyActorRef };

/** Evaluator -> requester. */
export type EvaluatorReply =
  | ({ type: 'evaluated'; requestId: number } & EvaluateReply)
  | ({ type: 'reflected'; requestId: number } & ReflectReply)
  /** The request could not be completed (aborted, or refused by the dollar budget); what ran is paid. */
  | { type: 'evaluator.failed'; requestId: number; error: string; paidCalls: number; costUsd: number };

export interface EvaluatorStats {
  type: 'evaluator.stats';
  metricCalls: number;
  reflectionCalls: number;
  costUsd: number;
  busySlotMs: number;
  maxInFlight: number;
}

/** Proposer -> optimizer (its parent). */
export type ProposerReport =
  /** An accepted child's verdict: the optimizer answers it with a grant or a denial. */
  | { type: 'proposal.judged'; id: string; outcome: MinibatchOutcome; child?: Candidate }
  | {
      type: 'proposal.finished';
      id: string;
      paidCalls: number;
      reflectionCalls: number;
      reflectionCostUsd: number;
      costUsd: number;
      /** The verdict, when no 'proposal.judged' carried it (a skip, a rejection, a failure leaves none). */
      outcome?: MinibatchOutcome;
      child?: Candidate;
      /** Present when the child was evaluated on the valset. */
      valset?: { subscores: number[]; objectives: Array<Objectives | undefined> };
    };

/** Optimizer -> proposer. */
export type ProposerDecision = { type: 'valset.granted' } | { type: 'valset.denied' };
