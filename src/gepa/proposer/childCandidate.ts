// The reflective mutation itself, as the proposer machine asks for it (the prompts, or the
// user's proposer, come from reflectionStrategy.ts): reading each reply into new text (or why there is none), the child made
// of the new texts, and the minibatch verdict on the child: against its own parent, or for a
// merge against the better of its two parents on the subsample.
import type { AcceptanceRule, Candidate } from '../../types.js';
import { judgeChild, type AcceptanceVerdict } from '../strategies/acceptance.js';
import { extractInstruction } from './extractInstruction.js';
import { judgeMerge } from './merge.js';

/** One component's new text, or null with why there is none. */
export interface ComponentReply {
  text: string | null;
  note: string;
}

/** A reflection reply read into new text; a failed call becomes a reply without text. */
export function readReflection(reply: { ok: true; text: string } | { ok: false; error: string }): ComponentReply {
  if (!reply.ok) return { text: null, note: `reflection failed: ${reply.error}` };
  const text = extractInstruction(reply.text);
  return { text, note: text === null ? 'empty reply' : 'unchanged text' };
}

/** The child: the parent with every component for which the reflection gave new text; null if none did. */
export function buildChild(parent: Candidate, components: readonly string[], replies: ReadonlyArray<ComponentReply | undefined>): Candidate | null {
  const child: Record<string, string> = { ...parent };
  let changed = false;
  components.forEach((name, i) => {
    const text = replies[i]?.text;
    if (text !== null && text !== undefined && text !== parent[name]) {
      child[name] = text;
      changed = true;
    }
  });
  return changed ? child : null;
}

/** Why a reflection made no child, component by component. */
export function noChildReason(components: readonly string[], replies: ReadonlyArray<ComponentReply | undefined>): string {
  const notes = replies.map((r, i) => `${components[i]}: ${r?.note ?? 'no reply'}`);
  return `reflection proposed no new text (${notes.join('; ')})`;
}

/** The minibatch gate for the child of a reflective proposal or a merge. */
export function judgeProposalChild(
  proposal: { acceptance: AcceptanceRule; merge?: { parentSums: readonly [number, number] } },
  parentScores: readonly number[],
  childScores: readonly number[],
): AcceptanceVerdict {
  return proposal.merge ? judgeMerge(childScores, proposal.merge.parentSums) : judgeChild(proposal.acceptance, parentScores, childScores);
}
