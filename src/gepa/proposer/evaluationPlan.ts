// A proposal's evaluation plan: which candidate each of its evaluations is of, on which examples,
// as which kind of work, and whether it captures traces (only the parent's: the reflection reads
// them); and the request ids that let a reply say what it answers. The proposer machine asks
// here and sends what it is told.
import type { Candidate } from '../core/adapter.js';
import type { RebaseGateRun } from './rebaseGate.js';
import type { ValsetRaceRun } from './valsetRaceRun.js';

/** The evaluations a proposal can ask for. */
export type EvaluationName = 'parent' | 'child' | 'valset' | 'race-chunk' | 'rebased-child' | 'rebase-onto';

/** What the evaluation is, as work: a merge's child is evaluated as 'merge' (its own priority). */
export type EvaluationKind = 'parent' | 'child' | 'merge' | 'valset';

/** One evaluation to ask for. */
export interface EvaluationAsk {
  requestId: number;
  candidate: Candidate;
  hash: string;
  /** Ids in the run's example table. */
  exampleIds: readonly number[];
  kind: EvaluationKind;
  captureTraces: boolean;
}

/** What the plan reads of a proposal in progress. */
export interface EvaluationPlanView {
  parent: Candidate;
  parentHash: string;
  /** The task's minibatch (a merge: its subsample), example-table ids. */
  minibatch: readonly number[];
  /** The valset, example-table ids. */
  valIds: readonly number[];
  /** Present for a merge (its child is evaluated as 'merge' work). */
  merge?: unknown;
  /** The child, once made (a rebased child once told to rebase). */
  child?: Candidate;
  childHash?: string;
  race?: ValsetRaceRun;
  rebase?: RebaseGateRun;
}

/**
 * Request ids: each evaluation's own (a race's chunks share the valset's: one is in flight at a
 * time), and a reflection round's requests from REFLECTION_REQUEST_BASE, one per request (a round
 * starts once the one before has every reply, so rounds may share them).
 */
export const EVALUATION_REQUEST_IDS: Readonly<Record<EvaluationName, number>> = { parent: 0, child: 1, valset: 2, 'race-chunk': 2, 'rebased-child': 3, 'rebase-onto': 4 };
const REFLECTION_REQUEST_BASE = 100;

/** A rebase gate evaluated ahead (search/gatePrefetch.ts): the child's and its new base's request ids, apart from every other evaluation's. */
export const PREFETCH_REQUEST_IDS = { child: 5, onto: 6 } as const;

/** Whether a reply answers a gate evaluated ahead. */
export const isPrefetchRequestId = (requestId: number): boolean => requestId === PREFETCH_REQUEST_IDS.child || requestId === PREFETCH_REQUEST_IDS.onto;

/** The request id of the reflection round's request at `position` (one per component for the built-in prompt). */
export const reflectionRequestId = (position: number): number => REFLECTION_REQUEST_BASE + position;

/** The position in its round of the request a reflection's reply answers. */
export const askOfReply = (requestId: number): number => requestId - REFLECTION_REQUEST_BASE;

/** Which of a rebase gate's two evaluations a reply answers. */
export const rebaseSideOf = (requestId: number): 'child' | 'onto' => (requestId === EVALUATION_REQUEST_IDS['rebased-child'] ? 'child' : 'onto');

/**
 * The child and its hash, for `purpose`; reading them before the child is made is a bug in the
 * proposer, not a run's failure (a checked read where a cast would hide it).
 */
export function madeChild(view: Pick<EvaluationPlanView, 'child' | 'childHash'>, purpose: string): { candidate: Candidate; hash: string } {
  if (view.child === undefined || view.childHash === undefined) throw new Error(`proposer: ${purpose} before the child was made`);
  return { candidate: view.child, hash: view.childHash };
}

const made = (view: EvaluationPlanView, what: EvaluationName) => madeChild(view, `the ${what} evaluation was asked for`);

/** The evaluation `what` of a candidate on examples (only the parent's reads traces). */
function askOf(what: EvaluationName, of: { candidate: Candidate; hash: string }, exampleIds: readonly number[], kind: EvaluationKind): EvaluationAsk {
  return { requestId: EVALUATION_REQUEST_IDS[what], ...of, exampleIds, kind, captureTraces: what === 'parent' };
}

/** The evaluation `what` of the proposal as it stands: of what, on which examples, as which work. */
export function evaluationAsk(what: EvaluationName, view: EvaluationPlanView): EvaluationAsk {
  switch (what) {
    case 'parent':
      return askOf(what, { candidate: view.parent, hash: view.parentHash }, view.minibatch, 'parent');
    case 'child':
      return askOf(what, made(view, what), view.minibatch, view.merge === undefined ? 'child' : 'merge');
    case 'valset':
      return askOf(what, made(view, what), view.valIds, 'valset');
    case 'race-chunk':
      return askOf(what, made(view, what), view.race?.next.kind === 'evaluate' ? view.race.next.exampleIds : [], 'valset');
    case 'rebased-child':
      return askOf(what, made(view, what), view.rebase?.exampleIds ?? [], 'child');
    case 'rebase-onto':
      if (view.rebase === undefined) throw new Error('proposer: the rebase-onto evaluation was asked for before the rebase was decided');
      return askOf(what, { candidate: view.rebase.onto, hash: view.rebase.ontoHash }, view.rebase.exampleIds, 'child');
  }
}

/**
 * A rebase gate evaluated ahead (search/gatePrefetch.ts): the replayed child and the candidate it
 * may be rebased onto, each on the gate's examples, as the real gate would ask (untraced child work),
 * so that the real gate finds both in the evaluation cache.
 */
export function prefetchAsks(gate: { child: Candidate; childHash: string; onto: Candidate; ontoHash: string }, exampleIds: readonly number[]): [EvaluationAsk, EvaluationAsk] {
  return [
    { requestId: PREFETCH_REQUEST_IDS.child, candidate: gate.child, hash: gate.childHash, exampleIds, kind: 'child', captureTraces: false },
    { requestId: PREFETCH_REQUEST_IDS.onto, candidate: gate.onto, hash: gate.ontoHash, exampleIds, kind: 'child', captureTraces: false },
  ];
}
