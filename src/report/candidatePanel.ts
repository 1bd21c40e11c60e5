// The candidate panel: every candidate's full text (each component) and its word diff from its
// first parent, rendered into the page (escaped here) and hidden; clicking a lineage node, or
// Enter / Space on a focused one, shows that candidate's. No server and no data to fetch: the
// small inline script only toggles `hidden`. The best candidate is shown until one is chosen.
import { escapeHtml } from './htmlEscape.js';
import { wordDiff } from './wordDiff.js';
import type { Candidate } from '../gepa/core/adapter.js';

/** `before` -> `after` as escaped HTML: insertions in <ins>, deletions in <del>. */
export function diffHtml(before: string, after: string): string {
  return wordDiff(before, after)
    .map((p) => (p.op === 'same' ? escapeHtml(p.text) : p.op === 'insert' ? `<ins>${escapeHtml(p.text)}</ins>` : `<del>${escapeHtml(p.text)}</del>`))
    .join('');
}

export interface CandidatePanelInput {
  candidates: readonly Candidate[];
  parents: readonly (readonly number[])[];
  valScores: readonly number[];
  bestIndex: number;
}

function origin(parents: readonly number[]): string {
  if (parents.length === 0) return 'the seed';
  if (parents.length > 1) return `a merge of ${parents.map((p) => `#${p}`).join(' and ')} (diff from #${parents[0]})`;
  return `child of #${parents[0]}`;
}

/** Candidate `i`'s title (score, origin) and each component's full text beside its diff from its first parent. */
export function renderCandidateDetail(input: CandidatePanelInput, i: number): string {
  const candidate = input.candidates[i] ?? {};
  const parentIndex = input.parents[i]?.[0];
  const parent = parentIndex !== undefined ? input.candidates[parentIndex] : undefined;
  const components = Object.keys(candidate).map((name) => {
    const text = candidate[name] ?? '';
    const diff = parent
      ? `<div class="muted">diff from #${parentIndex} (<ins>inserted</ins>, <del>deleted</del>)</div><pre class="diff">${diffHtml(parent[name] ?? '', text)}</pre>`
      : '';
    return `<div class="component" data-component="${escapeHtml(name)}"><h3><code>${escapeHtml(name)}</code></h3><div class="two-col"><div><div class="muted">full text</div><pre class="candidate-text">${escapeHtml(text)}</pre></div><div>${diff}</div></div></div>`;
  });
  const score = (input.valScores[i] ?? 0).toFixed(3);
  const best = i === input.bestIndex ? ', the best' : '';
  return `<h3 class="candidate-title">Candidate #${i}: valset ${score}${best}; ${escapeHtml(origin(input.parents[i] ?? []))}</h3>${components.join('')}`;
}

function detail(input: CandidatePanelInput, i: number): string {
  return `<article class="candidate-detail" data-index="${i}"${i === input.bestIndex ? '' : ' hidden'}>${renderCandidateDetail(input, i)}</article>`;
}

export function renderCandidatePanel(input: CandidatePanelInput): string {
  const details = input.candidates.map((_, i) => detail(input, i)).join('');
  return `<p class="muted">Click a node of the lineage tree (or focus it and press Enter) to see that candidate here.</p><div id="candidate-panel" aria-live="polite">${details}</div>`;
}

// Lineage nodes are focusable buttons (lineageTree.ts); choosing one shows its detail and marks it.
export const CANDIDATE_PANEL_SCRIPT = `
(() => {
  const details = [...document.querySelectorAll('#candidate-panel .candidate-detail')];
  const nodes = [...document.querySelectorAll('.lineage-node')];
  const show = (node) => {
    const index = node.dataset.index;
    for (const d of details) d.hidden = d.dataset.index !== index;
    for (const n of nodes) n.classList.toggle('selected', n === node);
  };
  for (const node of nodes) {
    node.addEventListener('click', () => show(node));
    node.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); show(node); }
    });
  }
})();
`;
