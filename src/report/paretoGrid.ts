// The per-example Pareto front as a grid (SVG): a row per candidate, a column per valset
// example, cells coloured by score and dotted where the candidate is (one of) the best on that
// example. GEPA keeps every candidate that is best somewhere; this shows where.
import { px } from './chartScale.js';
import { escapeHtml } from './htmlEscape.js';
import { scoreColor } from './palette.js';

/** What the grid's colours and marks mean, above it: the ramp, the dot, the highlighted row. */
export function renderParetoLegend(): string {
  const ramp = [0, 0.25, 0.5, 0.75, 1].map((x) => `<span class="swatch" style="background:${scoreColor(x)}" title="${x.toFixed(2)}"></span>`).join('');
  return (
    '<div class="legend pareto-legend">' +
    `<span class="legend-item">cell colour: the candidate's score on that example, 0 ${ramp} 1</span>` +
    '<span class="legend-item"><svg class="legend-dot" width="11" height="11" aria-hidden="true"><circle cx="5.5" cy="5.5" r="3" fill="#111827" /></svg> dot: (one of) the best scores on that example, which keeps the candidate in the Pareto front</span>' +
    '<span class="legend-item">row label: candidate number and valset mean; <strong class="best-label">highlighted</strong>: the best mean</span>' +
    '<span class="legend-item">"best on N": examples on which the candidate is (one of) the best</span>' +
    '</div>'
  );
}

export interface ExampleFront {
  /** winners[j] = candidates with the top score on example j ([] when every score is 0). */
  winners: number[][];
  /** Candidates that are best on at least one example. */
  front: Set<number>;
}

export function perExampleFront(valSubscores: readonly (readonly number[])[]): ExampleFront {
  const examples = Math.max(0, ...valSubscores.map((row) => row.length));
  const winners: number[][] = [];
  for (let j = 0; j < examples; j++) {
    const top = Math.max(...valSubscores.map((row) => row[j] ?? -Infinity));
    winners.push(top > 0 ? valSubscores.flatMap((row, i) => (row[j] === top ? [i] : [])) : []);
  }
  return { winners, front: new Set(winners.flat()) };
}

const LABEL_W = 92;
const COUNT_W = 64;
const TOP = 22;
const MAX_GRID_W = 820;

export function renderParetoGrid(valSubscores: readonly (readonly number[])[], valScores: readonly number[], bestIndex: number): string {
  const { winners } = perExampleFront(valSubscores);
  const examples = winners.length;
  if (examples === 0) return '<p class="muted">No valset scores.</p>';
  const cell = Math.max(4, Math.min(16, Math.floor(MAX_GRID_W / examples)));
  const rowH = Math.max(cell, 14);
  const width = LABEL_W + examples * cell + COUNT_W;
  const height = TOP + valSubscores.length * rowH + 4;
  const isWinner = winners.map((w) => new Set(w));
  const header = winners
    .map((_, j) => (j % 5 === 0 ? `<text class="tick" x="${px(LABEL_W + j * cell + cell / 2)}" y="14" text-anchor="middle">${j}</text>` : ''))
    .join('');
  const rows = valSubscores.map((row, i) => {
    const y = TOP + i * rowH;
    const wins = winners.filter((w) => w.includes(i)).length;
    const cells = row
      .map((score, j) => {
        const x = LABEL_W + j * cell;
        const title = `candidate #${i} on valset example ${j}: ${score.toFixed(3)}${isWinner[j]?.has(i) ? ' (best here)' : ''}`;
        const dot = isWinner[j]?.has(i) ? `<circle class="best-here" cx="${px(x + cell / 2)}" cy="${px(y + rowH / 2)}" r="${px(Math.max(1.5, cell / 5))}" />` : '';
        return `<rect class="cell" x="${px(x)}" y="${px(y + (rowH - cell) / 2)}" width="${px(cell - 1)}" height="${px(cell - 1)}" fill="${scoreColor(score)}"><title>${escapeHtml(title)}</title></rect>${dot}`;
      })
      .join('');
    const label = `<text class="row-label${i === bestIndex ? ' best' : ''}" x="${LABEL_W - 6}" y="${px(y + rowH / 2 + 4)}" text-anchor="end">#${i} ${(valScores[i] ?? 0).toFixed(3)}</text>`;
    const count = `<text class="tick" x="${px(LABEL_W + examples * cell + 8)}" y="${px(y + rowH / 2 + 4)}">${wins > 0 ? `best on ${wins}` : ''}</text>`;
    return `<g class="grid-row" data-index="${i}">${label}${cells}${count}</g>`;
  });
  return `<svg class="pareto-grid" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="per-example Pareto front">${header}${rows.join('')}</svg>`;
}
