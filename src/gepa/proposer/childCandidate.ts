// The child of a reflective mutation (the new texts come from the run's reflection strategy,
// gepa/reflection/): the child made of the new texts (with its hash: a child is only ever handled
// by it), why there is none, and the minibatch outcome of a child judged against its base: its own
// parent, for a merge the better of its two parents on the subsample, for a rebased child the
// candidate it was rebased onto.
import { candidateHash } from '../core/candidateHash.js';
import type { MinibatchOutcome } from '../core/proposal.js';
import { scoresOf } from '../core/scores.js';
import type { AcceptanceRule } from '../../settingValues.js';
import type { Candidate, Evaluation } from '../core/adapter.js';
import { judgeChild } from '../strategies/acceptance.js';
import { judgeMerge } from './merge.js';

/** One component's new text, or null with why there is none. */
export interface ComponentReply {
  text: string | null;
  note: string;
}

/** A child and its content hash, made together so that the hash is taken in one place. */
export interface HashedChild {
  child: Candidate;
  childHash: string;
}

export const hashedChild = (child: Candidate): HashedChild => ({ child, childHash: candidateHash(child) });

/** The child: the parent with every component for which the reflection gave new text; null if none did. */
export function buildChild(parent: Candidate, components: readonly string[], replies: ReadonlyArray<ComponentReply | undefined>): HashedChild | null {
  const child: Record<string, string> = { ...parent };
  let changed = false;
  components.forEach((name, i) => {
    const text = replies[i]?.text;
    if (text !== null && text !== undefined && text !== parent[name]) {
      child[name] = text;
      changed = true;
    }
  });
  return changed ? hashedChild(child) : null;
}

/** Why a reflection made no child, component by component. */
export function noChildReason(components: readonly string[], replies: ReadonlyArray<ComponentReply | undefined>): string {
  const notes = replies.map((r, i) => `${components[i]}: ${r?.note ?? 'no reply'}`);
  return `reflection proposed no new text (${notes.join('; ')})`;
}

/** What a child is judged against: its parent's evaluations on the minibatch, or the rebase gate's evaluations of the candidate it was rebased onto. */
export type ChildBase = { against: 'parent' | 'rebase-onto'; evaluations: readonly Evaluation[] };

/**
 * The minibatch outcome of a child of a reflective proposal or a merge. Against its parent, a
 * merge's child is judged by the merge gate (the parents' sums on the subsample); a rebased child
 * (only a reflective proposal's is ever rebased) by the acceptance rule against its new base.
 */
export function judgeChildOutcome(
  proposal: { task: number; acceptance: AcceptanceRule; merge?: { parentSums: readonly [number, number] } },
  child: { childHash: string; evaluations: readonly Evaluation[] },
  base: ChildBase,
): MinibatchOutcome {
  const childScores = scoresOf(child.evaluations);
  const baseScores = scoresOf(base.evaluations);
  const verdict = base.against === 'parent' && proposal.merge ? judgeMerge(childScores, proposal.merge.parentSums) : judgeChild(proposal.acceptance, baseScores, childScores);
  return { task: proposal.task, status: 'judged', childHash: child.childHash, verdict };
}
