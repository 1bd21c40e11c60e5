// The report's table of proposals: every proposal of the run (result.proposals) with its step,
// parent(s), child, where it ended and why. The reason is the run's own text; the outcome column
// names the stage a reader looks for (rejected at the minibatch gate, on the valset, skipped,
// failed, a duplicate, rebased), read from the record's outcome and reason.
import { escapeHtml } from './htmlEscape.js';
import type { ProposalRecord } from '../gepa/core/optimizeResult.js';

export type ProposalStage =
  | 'accepted'
  | 'rejected at minibatch'
  | 'rejected on valset'
  | 'duplicate'
  | 'not selected'
  | 'skipped'
  | 'failed'
  | 'stopped';

/** The stage a proposal ended at. Reasons are the domain's wording (src/gepa/strategies/proposalSelection.ts, proposer). */
export function proposalStage(p: Pick<ProposalRecord, 'outcome' | 'reason'>): ProposalStage {
  if (p.outcome === 'accepted') return 'accepted';
  if (p.reason.startsWith('stopped before')) return 'stopped';
  if (p.outcome === 'skipped') return /fail|error|threw/i.test(p.reason) ? 'failed' : 'skipped';
  if (p.reason.startsWith('failed acceptance')) return 'rejected at minibatch';
  if (/already in the pool|duplicate/.test(p.reason)) return 'duplicate';
  if (p.reason.startsWith('not selected')) return 'not selected';
  if (/valset/i.test(p.reason)) return 'rejected on valset';
  return /fail|error/i.test(p.reason) ? 'failed' : 'rejected at minibatch';
}

const stageClass = (stage: ProposalStage) => stage.replace(/ /g, '-');

function minibatchCell(p: ProposalRecord): string {
  if (p.parentMinibatchSum === undefined || p.childMinibatchSum === undefined) return '';
  return `${p.childMinibatchSum} vs ${p.parentMinibatchSum}`;
}

/**
 * One row per proposal, in numeric order (an async run records them as they end, which is not
 * the order they started in); a summary of the stages above it. A batched run's proposals are
 * named step.task; an async run's by their number alone (each is its own step).
 */
export function renderProposalTable(proposals: readonly ProposalRecord[], asyncRun = false): string {
  if (proposals.length === 0) return '<p class="muted">No proposals: the run stopped after the seed.</p>';
  const counts = new Map<ProposalStage, number>();
  const ordered = [...proposals].sort((a, b) => a.step - b.step || a.task - b.task);
  const rows = ordered.map((p) => {
    const stage = proposalStage(p);
    counts.set(stage, (counts.get(stage) ?? 0) + 1);
    const parents = p.parents.map((i) => `#${i}`).join(' + ');
    const rebased = p.rebasedFrom !== undefined ? ` <span class="muted">(rebased from #${p.rebasedFrom})</span>` : '';
    // Several children per parent: the proposal whose parent evaluation this one reflected on.
    const sibling = p.siblingOf !== undefined ? ` <span class="muted">(parent evaluation of ${p.siblingOf})</span>` : '';
    const child = p.candidateIndex !== undefined ? `#${p.candidateIndex}` : '';
    return (
      `<tr class="proposal ${stageClass(stage)}" data-stage="${escapeHtml(stage)}">` +
      `<td class="num">${asyncRun ? p.step : `${p.step}.${p.task}`}</td><td>${escapeHtml(p.kind)}</td><td>${escapeHtml(parents)}${rebased}${sibling}</td>` +
      `<td>${escapeHtml(child)}</td><td class="stage">${escapeHtml(stage)}</td><td class="num">${escapeHtml(minibatchCell(p))}</td>` +
      `<td class="reason">${escapeHtml(p.reason)}</td></tr>`
    );
  });
  const summary = [...counts.entries()].map(([stage, n]) => `${n} ${stage}`).join(', ');
  return (
    `<p class="muted">${proposals.length} proposals: ${escapeHtml(summary)}. Minibatch: the child's sum vs its parent's on the proposal's minibatch.</p>` +
    `<div class="scroll"><table class="proposals"><thead><tr><th class="num">${asyncRun ? 'proposal' : 'step.task'}</th><th>kind</th><th>parent</th><th>child</th><th>outcome</th><th class="num">minibatch</th><th>reason</th></tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div>`
  );
}
