// "Best valset score so far" charts (SVG): every candidate as a dot where it was found (x = wall
// clock or metric calls spent), and the best score so far as a step line to the end of the run.
import { linearScale, niceTicks, px } from './chartScale.js';
import { escapeHtml } from './htmlEscape.js';

export interface ScorePoint {
  index: number;
  x: number;
  score: number;
}

export interface ScoreChartInput {
  /** Candidates in discovery order. */
  points: readonly ScorePoint[];
  /** Where the run ended on the x axis (the line extends to it). */
  xEnd: number;
  xLabel: string;
  formatX: (x: number) => string;
  /** Distinguishes the charts' elements in the page. */
  id: string;
}

const W = 520;
const H = 260;
const M = { left: 48, right: 16, top: 14, bottom: 40 };

/** The best-so-far step line's vertices: up-steps at discoveries, flat to xEnd. */
export function bestSoFarVertices(points: readonly ScorePoint[], xEnd: number): Array<[number, number]> {
  const vertices: Array<[number, number]> = [];
  let best = -Infinity;
  for (const p of points) {
    if (vertices.length === 0) {
      vertices.push([p.x, p.score]);
      best = p.score;
    } else if (p.score > best) {
      vertices.push([p.x, best], [p.x, p.score]);
      best = p.score;
    }
  }
  const last = vertices.at(-1);
  if (last && xEnd > last[0]) vertices.push([xEnd, best]);
  return vertices;
}

/** A score axis around the data, in tenths, inside [0, 1] when the scores are. */
function scoreDomain(scores: readonly number[]): [number, number] {
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  let d0 = Math.floor((lo - 0.05) * 10) / 10;
  let d1 = Math.ceil((hi + 0.05) * 10) / 10;
  if (lo >= 0) d0 = Math.max(0, d0);
  if (hi <= 1) d1 = Math.min(1, d1);
  return d1 > d0 ? [d0, d1] : [d0 - 0.5, d0 + 0.5];
}

export function renderScoreChart(input: ScoreChartInput): string {
  const { points } = input;
  if (points.length === 0) return '<p class="muted">No candidates.</p>';
  const xMax = Math.max(input.xEnd, ...points.map((p) => p.x), 1e-9);
  const [y0, y1] = scoreDomain(points.map((p) => p.score));
  const sx = linearScale(0, xMax, M.left, W - M.right);
  const sy = linearScale(y0, y1, H - M.bottom, M.top);
  const grid = niceTicks(y0, y1, 5)
    .map((t) => `<line class="grid" x1="${M.left}" x2="${W - M.right}" y1="${px(sy(t))}" y2="${px(sy(t))}" /><text class="tick" x="${M.left - 6}" y="${px(sy(t) + 4)}" text-anchor="end">${t.toFixed(2)}</text>`)
    .join('');
  const xTicks = niceTicks(0, xMax, 6)
    .map((t) => `<line class="axis" x1="${px(sx(t))}" x2="${px(sx(t))}" y1="${H - M.bottom}" y2="${H - M.bottom + 4}" /><text class="tick" x="${px(sx(t))}" y="${H - M.bottom + 17}" text-anchor="middle">${escapeHtml(input.formatX(t))}</text>`)
    .join('');
  const vertices = bestSoFarVertices(points, input.xEnd);
  const d = vertices.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${px(sx(x))} ${px(sy(y))}`).join(' ');
  const dots = points
    .map((p) => `<circle class="score-dot" cx="${px(sx(p.x))}" cy="${px(sy(p.score))}" r="3.5"><title>${escapeHtml(`#${p.index}: ${p.score.toFixed(3)} at ${input.formatX(p.x)}`)}</title></circle>`)
    .join('');
  return (
    `<svg class="score-chart" id="${escapeHtml(input.id)}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(`best valset score over ${input.xLabel}`)}">` +
    grid +
    `<line class="axis" x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" />` +
    xTicks +
    `<text class="axis-label" x="${(M.left + W - M.right) / 2}" y="${H - 6}" text-anchor="middle">${escapeHtml(input.xLabel)}</text>` +
    `<text class="axis-label" transform="translate(12 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">valset score</text>` +
    dots +
    `<path class="best-line" d="${d}" />` +
    `</svg>`
  );
}
