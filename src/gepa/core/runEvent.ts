// The events a run reports while it runs (gepa-ai/gepa's callbacks, as data): what onEvent
// receives. Types only; src/types.ts re-exports them.
import type { Candidate, CallFailure, Evaluation, ReflectiveDataset, RetryNotice } from './adapter.js';
import type { ProposalRecord } from './optimizeResult.js';
import type { StopReason } from './stopReason.js';

/** What a proposal evaluates: its parent and child on the minibatch, the child on the valset. */
type EvaluationTarget = 'parent' | 'child' | 'valset';

/** Events the runtime reports while it runs (the reference's callbacks, as data). */
export type RunEvent =
  | { type: 'run.started'; workers: number; valsetSize: number }
  | { type: 'step.started'; step: number; tasks: number }
  | { type: 'candidate.selected'; step: number; task: number; parent: number }
  | { type: 'minibatch.sampled'; step: number; task: number; ids: number[] }
  | { type: 'evaluation.started'; step: number; task: number; target: EvaluationTarget }
  /** `evaluations`: the minibatch's evaluations, in minibatch order (gepa's callbacks read their scores, outputs, traces). */
  | { type: 'evaluation.ended'; step: number; task: number; target: EvaluationTarget; sum: number; evaluations?: readonly Evaluation[] }
  /** `scores`: the parent's minibatch scores, when its evaluation ran (it is what was skipped on). */
  | { type: 'evaluation.skipped'; step: number; task: number; reason: string; scores?: number[] }
  /** `merge`: set when the proposal is a merge of two pool candidates into `candidate`. */
  | { type: 'proposal.started'; step: number; task: number; merge?: { parents: number[]; candidate: Candidate } }
  /** The reflective dataset was built and the reflection (or the user's proposeNewTexts) is asked for new texts. */
  | { type: 'reflection.started'; step: number; task: number; components: string[]; dataset: ReflectiveDataset }
  /** The reflection answered and a child was made: `newTexts` per changed component; `prompts` per component when the built-in or templated prompt was used. */
  | { type: 'reflection.ended'; step: number; task: number; newTexts: Record<string, string>; prompts?: Record<string, string> }
  /** The seed's valset evaluation: candidate 0's mean and its score on each valset example (valset order). */
  | { type: 'seed.evaluated'; valScore: number; valSubscores: number[] }
  /** `staleness`: pool additions between its parent's sampling and its end (ProposalRecord's). */
  | { type: 'proposal.ended'; step: number; task: number; outcome: ProposalRecord['outcome']; reason: string; staleness: number }
  /** `step`/`task`: the proposal that made it; `valSubscores`: its score on each valset example (valset order). */
  | { type: 'candidate.accepted'; index: number; parents: number[]; valScore: number; candidate?: Candidate; step?: number; task?: number; valSubscores?: number[] }
  | { type: 'candidate.rejected'; step: number; task: number; reason: string }
  /** `front`: the candidates on the Pareto front (ascending), `frontSize` of them. */
  | { type: 'front.updated'; bestIndex: number; bestScore: number; frontSize: number; front?: number[] }
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
  | { type: 'run.ended'; stopReason: StopReason };
