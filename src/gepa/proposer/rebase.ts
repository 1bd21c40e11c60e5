// Rebasing a stale edit: a child made from parent P returns after P gained a newer descendant D.
// Instead of competing with D, its edit (P -> child) is replayed onto D, component by component,
// by a three-way merge with P as the base, as version control rebases a branch onto new work.
// The result is D's work plus the child's change; or a conflict (both changed the same sentence
// differently); or nothing new (D already holds the change).
import type { Candidate } from '../core/adapter.js';
import { mergeTexts } from './textMerge.js';

export type Rebase =
  | { kind: 'rebased'; child: Candidate }
  | { kind: 'contained' }
  | { kind: 'conflict'; component: string; ours: string; theirs: string };

export function rebaseEdit(parent: Candidate, child: Candidate, onto: Candidate): Rebase {
  const merged: Record<string, string> = { ...onto };
  for (const name of Object.keys(child)) {
    const result = mergeTexts(parent[name] ?? '', onto[name] ?? '', child[name] ?? '');
    if (!result.ok) return { kind: 'conflict', component: name, ours: result.conflict.ours, theirs: result.conflict.theirs };
    merged[name] = result.text;
  }
  const same = Object.keys(merged).every((name) => merged[name] === onto[name]);
  return same ? { kind: 'contained' } : { kind: 'rebased', child: merged };
}
