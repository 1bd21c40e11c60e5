// The events a run reports while it runs (gepa-ai/gepa's callbacks, as data): what onEvent
// receives. Types only; src/types.ts re-exports them.
import type { Candidate, CallFailure, RetryNotice } from './adapter.js';
import type { ProposalRecord } from './optimizeResult.js';

/** What a proposal evaluates: its parent and child on the minibatch, the child on the valset. */
type EvaluationTarget = 'parent' | 'child' | 'valset';

/** Events the runtime reports while it runs (the reference's callbacks, as data). */
export type RunEvent =
  | { type: 'run.started'; workers: number; valsetSize: number }
  /** A seedless run (optimizeAnything without a seedCandidate): the reflection model wrote the seed. */
  | { type: 'seed.written'; candidate: Candidate }
  | { type: 'step.started'; step: number; tasks: number }
  | { type: 'candidate.selected'; step: number; task: number; parent: number }
  | { type: 'minibatch.sampled'; step: number; task: number; ids: number[] }
  | { type: 'evaluation.started'; step: number; task: number; target: EvaluationTarget }
  | { type: 'evaluation.ended'; step: number; task: number; target: EvaluationTarget; sum: number }
  | { type: 'evaluation.skipped'; step: number; task: number; reason: string }
  | { type: 'proposal.started'; step: number; task: number }
  /** `staleness`: pool additions between its parent's sampling and its end (ProposalRecord's). */
  | { type: 'proposal.ended'; step: number; task: number; outcome: ProposalRecord['outcome']; reason: string; staleness: number }
  | { type: 'candidate.accepted'; index: number; parents: number[]; valScore: number; candidate?: Candidate }
  | { type: 'candidate.rejected'; step: number; task: number; reason: string }
  | { type: 'front.updated'; bestIndex: number; bestScore: number; frontSize: number }
  | { type: 'budget.updated'; metricCalls: number; reserved: number; costUsd: number }
  /**
   * Something failed: a reflection, or a metric call (then `failure` says how); `systemic` when
   * it stops the run (stopReason 'error').
   */
  | { type: 'error'; message: string; failure?: CallFailure; systemic?: boolean }
  /** Something to know that is not a failure, e.g. no worker serving the BullMQ queue. */
  | { type: 'warning'; message: string }
  /** A model call will be retried after `delayMs` (a capped Retry-After says what was asked for). */
  | ({ type: 'retry.scheduled' } & RetryNotice)
  | { type: 'run.ended'; stopReason: string };
