// When a reflective proposal stops before its child is judged, and why: every call of its
// parent's minibatch failed, its parent is already perfect there, or the reflection proposed no
// new text (the reflection's own stages, dataset to new texts, are gepa/reflection/reflectionRun.ts's).
// Each stage of the proposal asks one function here and gets "skip, with the reason" or "go on,
// with what the next stage needs"; the proposer machine only reads the answer.
import type { Candidate, Evaluation } from '../core/adapter.js';
import { everyCallFailed, scoresOf, sum } from '../core/scores.js';
import { isPerfect } from '../strategies/acceptance.js';
import { buildChild, noChildReason, type ComponentReply, type HashedChild } from './childCandidate.js';

/** Skip the rest of the proposal (with why), or go on with `T`. */
export type SkipOrGoOn<T> = { kind: 'skip'; reason: string } | ({ kind: 'go-on' } & T);

export const EVERY_CALL_FAILED = "every metric call of the parent's minibatch failed";
export const PARENT_PERFECT = 'parent is perfect on its minibatch';

const skip = (reason: string) => ({ kind: 'skip' as const, reason });

/** After the parent's minibatch evaluation: go on with its score sum (what the run's event reports). */
export function afterParentEvaluation(evaluations: readonly Evaluation[], settings: { skipPerfectScore: boolean; perfectScore: number }): SkipOrGoOn<{ parentSum: number }> {
  // Nothing to reflect on: a reflection would be paid to "improve" on error messages.
  if (everyCallFailed(evaluations)) return skip(EVERY_CALL_FAILED);
  const scores = scoresOf(evaluations);
  if (settings.skipPerfectScore && isPerfect(scores, settings.perfectScore)) return skip(PARENT_PERFECT);
  return { kind: 'go-on', parentSum: sum(scores) };
}

/** After every component's reflection replied: go on with the child (and its hash) when any text is new. */
export function afterReflection(parent: Candidate, components: readonly string[], replies: ReadonlyArray<ComponentReply | undefined>): SkipOrGoOn<HashedChild> {
  const child = buildChild(parent, components, replies);
  return child ? { kind: 'go-on', ...child } : skip(noChildReason(components, replies));
}
