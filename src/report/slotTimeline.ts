// The worker-slot timeline (SVG): one row per slot, one bar per stretch of work, coloured by
// kind (seed valset, parent and child minibatches, reflections, valset, merges). Gaps are idle
// slots: where a barrier or a lack of work left capacity unused.
import type { SlotInterval } from '../evaluation/workerSlots.js';
import { linearScale, niceTicks, px } from './chartScale.js';
import { escapeHtml } from './htmlEscape.js';
import { SLOT_KIND_COLORS, SLOT_KIND_LABELS } from './palette.js';

export interface TimelineInput {
  intervals: readonly SlotInterval[];
  workers: number;
  /** Clock time the run started at; bars are placed relative to it. */
  startedAt: number;
  /** Length of the run, ms. */
  elapsedMs: number;
  formatTime: (ms: number) => string;
}

// Drawn at about the width it is shown at in a 900 px window, so its labels are not shrunk below ~10 px.
const W = 800;
const LEFT = 56;
const RIGHT = 12;
const TOP = 8;
const BOTTOM = 30;

export function renderSlotTimeline(input: TimelineInput): string {
  if (input.intervals.length === 0) return '<p class="muted">No slot intervals were recorded.</p>';
  const slots = Math.max(input.workers, ...input.intervals.map((i) => i.slot + 1));
  const rowH = slots > 64 ? 4 : slots > 24 ? 8 : 16;
  const end = Math.max(input.elapsedMs, ...input.intervals.map((i) => i.end - input.startedAt), 1e-9);
  const sx = linearScale(0, end, LEFT, W - RIGHT);
  const height = TOP + slots * rowH + BOTTOM;
  const rows = Array.from({ length: slots }, (_, s) =>
    slots <= 24 || s % 8 === 0 ? `<text class="tick" x="${LEFT - 6}" y="${px(TOP + s * rowH + rowH / 2 + 4)}" text-anchor="end">slot ${s}</text>` : '',
  ).join('');
  const bars = input.intervals
    .map((iv) => {
      const x0 = sx(Math.max(0, iv.start - input.startedAt));
      const x1 = sx(Math.max(0, iv.end - input.startedAt));
      const title = `slot ${iv.slot}: ${SLOT_KIND_LABELS[iv.kind]}, ${input.formatTime(iv.start - input.startedAt)} to ${input.formatTime(iv.end - input.startedAt)}`;
      return `<rect class="slot-bar ${iv.kind}" x="${px(x0)}" y="${px(TOP + iv.slot * rowH + 1)}" width="${px(Math.max(0.6, x1 - x0))}" height="${px(rowH - 2)}" fill="${SLOT_KIND_COLORS[iv.kind]}"><title>${escapeHtml(title)}</title></rect>`;
    })
    .join('');
  const axisY = TOP + slots * rowH;
  const ticks = niceTicks(0, end, 8)
    .map((t) => `<line class="axis" x1="${px(sx(t))}" x2="${px(sx(t))}" y1="${axisY}" y2="${axisY + 4}" /><text class="tick" x="${px(sx(t))}" y="${axisY + 17}" text-anchor="middle">${escapeHtml(input.formatTime(t))}</text>`)
    .join('');
  const kinds = [...new Set(input.intervals.map((i) => i.kind))];
  const legend = kinds
    .map((k) => `<span class="legend-item"><span class="swatch" style="background:${SLOT_KIND_COLORS[k]}"></span>${escapeHtml(SLOT_KIND_LABELS[k])}</span>`)
    .join('');
  return (
    `<div class="legend">${legend}</div>` +
    `<svg class="timeline" viewBox="0 0 ${W} ${height}" role="img" aria-label="worker slot timeline">` +
    `<rect class="lane-bg" x="${LEFT}" y="${TOP}" width="${W - LEFT - RIGHT}" height="${slots * rowH}" />` +
    rows +
    bars +
    `<line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${axisY}" y2="${axisY}" />` +
    ticks +
    `</svg>`
  );
}
