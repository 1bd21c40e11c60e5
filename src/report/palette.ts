// The report's colours: a red-to-green ramp for scores in [0, 1] and one colour per kind of
// slot work, so the lineage tree, the Pareto grid and the timeline read the same way.
import type { SlotInterval } from '../evaluation/workerSlots.js';

/** Hue 0 (red) at 0 through 130 (green) at 1; out-of-range scores are clamped. */
export function scoreColor(score: number): string {
  const t = Math.min(1, Math.max(0, Number.isFinite(score) ? score : 0));
  return `hsl(${Math.round(t * 130)}, 62%, ${Math.round(52 - t * 10)}%)`;
}

export const SLOT_KIND_COLORS: Record<SlotInterval['kind'], string> = {
  seed: '#6b7280',
  valset: '#2563eb',
  parent: '#a3a3a3',
  child: '#f59e0b',
  merge: '#db2777',
  reflection: '#7c3aed',
};

export const SLOT_KIND_LABELS: Record<SlotInterval['kind'], string> = {
  seed: 'seed valset',
  valset: 'valset',
  parent: 'parent minibatch',
  child: 'child minibatch',
  merge: 'merge',
  reflection: 'reflection',
};
