// The events a run reports while it runs (gepa-ai/gepa's callbacks, as data): what onEvent
// receives. Types only; the root entry re-exports them.
import type { Candidate, CallFailure, Evaluation, ReflectiveDataset, RetryNotice } from './adapter.js';
import type { HeldSlot } from '../../settingValues.js';
import type { ProposalRecord } from './optimizeResult.js';
import type { StopReason } from './stopReason.js';

/**
 * Metric calls run again because the worker holding them was lost or the call hung (a remote
 * executor's failover); each still counts once in the budget and its first answer is kept.
 */
export interface RerunNotice {
  /**
   * 'worker lost': its heartbeat stopped (killed, frozen, cut off the network); 'call overdue':
   * running far longer than calls do, on a live worker; 'lost too often': not run again, failed
   * (score 0), because its worker was lost more often than allowed (the call may be what kills them).
   */
  reason: 'worker lost' | 'call overdue' | 'lost too often';
  /** How many calls. */
  calls: number;
  /** The workers they were on (BullMQ worker names, `host:pid:n`). */
  workers: string[];
  /** The longest the run had waited on one of them past its last sign of progress. */
  waitedMs: number;
  /** Their run-log keys (`candidateHash:exampleId:traces`): the calls that may have run twice. */
  keys: string[];
  /** When, in milliseconds since the epoch. */
  atMs: number;
}

/** What a proposal evaluates: its parent and child on the minibatch, the child on the valset. */
type EvaluationTarget = 'parent' | 'child' | 'valset';

/**
 * Events the runtime reports while it runs (the reference's callbacks, as data): what onEvent
 * receives, and what optimizerMachine emits (`actor.on(type, ...)`).
 */
export type RunEvent =
  | {
      /** The run began (after its config was validated). */
      type: 'run.started';
      /** The worker slots of the run. */
      workers: number;
      /** Examples in the valset. */
      valsetSize: number;
    }
  | {
      /** A seedless run (optimizeAnything without a seedCandidate): the reflection model wrote the seed. */
      type: 'seed.written';
      /** The seed it wrote (candidate 0). */
      candidate: Candidate;
    }
  | {
      /** A batched step was planned. */
      type: 'step.started';
      /** Proposals in the step (P x N, fewer when the budget narrowed it). */
      tasks: number;
      /** Step number (batched) or proposal number (async). */
      step: number;
    }
  | {
      /** A proposal's parent was drawn. */
      type: 'candidate.selected';
      /** Pool index of the parent. */
      parent: number;
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** A proposal's minibatch was drawn. */
      type: 'minibatch.sampled';
      /** Trainset indices of the minibatch. */
      ids: number[];
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** A proposal started evaluating its parent, its child, or the child on the valset. */
      type: 'evaluation.started';
      /** What is evaluated. */
      target: EvaluationTarget;
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** That evaluation ended. */
      type: 'evaluation.ended';
      /** What was evaluated. */
      target: EvaluationTarget;
      /** The scores summed over the examples evaluated. */
      sum: number;
      /** The minibatch's evaluations, in minibatch order (gepa's callbacks read their scores, outputs, traces). */
      evaluations?: readonly Evaluation[];
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** A proposal skipped an evaluation (e.g. its parent is perfect on the minibatch). */
      type: 'evaluation.skipped';
      /** Why. */
      reason: string;
      /** The parent's minibatch scores, when its evaluation ran (it is what was skipped on). */
      scores?: number[];
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** A proposal started. */
      type: 'proposal.started';
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
      /** Async with `schedule.perParent` > 1: the proposal whose parent evaluation this one reflects on (absent on the first of a group). */
      siblingOf?: number;
      /** Set when the proposal is a merge of two pool candidates into `candidate`. */
      merge?: {
        /** The two merged candidates' pool indices (the first is `candidate.selected`'s parent). */
        parents: number[];
        /** The merged child, to be evaluated on a valset subsample. */
        candidate: Candidate;
      };
    }
  | {
      /** The reflective dataset was built and the reflection (or the user's proposeNewTexts) is asked for new texts. */
      type: 'reflection.started';
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
      /** The components to be rewritten. */
      components: string[];
      /** What the reflection reads, per component. */
      dataset: ReflectiveDataset;
    }
  | {
      /** The reflection answered and a child was made. */
      type: 'reflection.ended';
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
      /** The new text of each changed component. */
      newTexts: Record<string, string>;
      /** The prompt per component, when the built-in or templated prompt was used. */
      prompts?: Record<string, string>;
    }
  | {
      /** The seed's valset evaluation ended. */
      type: 'seed.evaluated';
      /** Candidate 0's mean valset score. */
      valScore: number;
      /** Its score on each valset example (valset order). */
      valSubscores: number[];
      /** The seed candidate (candidate 0). */
      candidate?: Candidate;
      /** Metric calls spent when it joined the pool (OptimizeResult.discoveryMetricCalls[0]). */
      metricCalls?: number;
      /** Elapsed ms when it joined (OptimizeResult.discoveryElapsedMs[0]). */
      elapsedMs?: number;
    }
  | {
      /** A proposal ended, with its outcome (ProposalRecord's). */
      type: 'proposal.ended';
      /** Whether its child joined the pool. */
      outcome: ProposalRecord['outcome'];
      /** Why, in words. */
      reason: string;
      /** Pool additions between its parent's sampling and its end. */
      staleness: number;
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** A candidate joined the pool. */
      type: 'candidate.accepted';
      /** Its pool index. */
      index: number;
      /** Pool indices of its parents. */
      parents: number[];
      /** Its mean valset score. */
      valScore: number;
      /** The candidate itself. */
      candidate?: Candidate;
      /** Step number of the proposal that made it. */
      step?: number;
      /** That proposal's place in its step. */
      task?: number;
      /** Its score on each valset example (valset order). */
      valSubscores?: number[];
      /** Metric calls spent when it joined the pool (OptimizeResult.discoveryMetricCalls[index]). */
      metricCalls?: number;
      /** Elapsed ms when it joined (OptimizeResult.discoveryElapsedMs[index]). */
      elapsedMs?: number;
      /** optimizeAnything's refiner made it from its parent (no proposal did): set true. */
      refined?: true;
    }
  | {
      /** A proposal's child did not join the pool. */
      type: 'candidate.rejected';
      /** Why. */
      reason: string;
      /** Step number (batched) or proposal number (async). */
      step: number;
      /** The proposal's place in its step (batched: 0 to P x N - 1; async: 0). */
      task: number;
    }
  | {
      /** The Pareto fronts changed. */
      type: 'front.updated';
      /** Pool index of the best candidate. */
      bestIndex: number;
      /** Its mean valset score. */
      bestScore: number;
      /** Candidates on at least one front. */
      frontSize: number;
      /** Those candidates (ascending pool indices). */
      front?: number[];
    }
  | {
      /** What was spent changed. */
      type: 'budget.updated';
      /** Metric calls paid so far. */
      metricCalls: number;
      /** Metric calls reserved for work planned or in flight. */
      reserved: number;
      /** Dollars spent so far. */
      costUsd: number;
    }
  | {
      /**
       * Something failed: a reflection, or a metric call (then `failure` says how); `systemic` when
       * it stops the run (stopReason 'error').
       */
      type: 'error';
      /** What failed, readable. */
      message: string;
      /** How a metric call failed. */
      failure?: CallFailure;
      /** True when this failure stops the run. */
      systemic?: boolean;
    }
  | {
      /** Something to know that is not a failure, e.g. no worker serving the BullMQ queue. */
      type: 'warning';
      /** What to know, readable. */
      message: string;
    }
  | {
      /**
       * Schedule 'auto' chose the run's shape, or changed it (docs/schedules.md): the in-flight
       * count and the held-slot rule from now on, and why.
       */
      type: 'schedule.decided';
      /** K, proposals in flight from now on. */
      inFlight: number;
      /** The launch order's held-slot rule from now on. */
      heldSlot: HeldSlot;
      /** Why, in a sentence. */
      reason: string;
      /** Metric calls spent when it was decided. */
      metricCalls: number;
    }
  | ({
      /** A model call will be retried after `delayMs` (a capped Retry-After says what was asked for). */
      type: 'retry.scheduled';
    } & RetryNotice)
  | ({
      /** Metric calls on remote workers run again elsewhere, or failed, because their worker was lost or they hung. */
      type: 'calls.rerun';
    } & RerunNotice)
  | {
      /** The run ended. */
      type: 'run.ended';
      /** OptimizeResult's stopReason. */
      stopReason: StopReason;
    };
