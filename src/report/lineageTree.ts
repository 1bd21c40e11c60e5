// The candidate lineage as an indented tree (SVG): each candidate on its own row in depth-first
// order under its first parent, so labels never collide whatever the pool's shape; merges draw
// their second parent as a dashed edge. Nodes are coloured by valset score, from the run's lowest
// (red) to its highest (green); the best is ringed.
import { px } from './chartScale.js';
import { escapeHtml } from './htmlEscape.js';
import { scoreColor } from './palette.js';

export interface LineagePosition {
  depth: number;
  row: number;
}

/** Depth under the first parent and depth-first row of each candidate (children in index order). */
export function layoutLineage(parents: readonly (readonly number[])[]): LineagePosition[] {
  const n = parents.length;
  const children: number[][] = Array.from({ length: n }, () => []);
  const roots: number[] = [];
  parents.forEach((ps, i) => {
    const first = ps[0];
    // A parent always has a smaller index; anything else is treated as a root rather than a cycle.
    if (first !== undefined && first >= 0 && first < i) children[first]?.push(i);
    else roots.push(i);
  });
  const positions: LineagePosition[] = new Array(n);
  let row = 0;
  const stack: Array<[index: number, depth: number]> = roots.reverse().map((r) => [r, 0]);
  while (stack.length > 0) {
    const [index, depth] = stack.pop() as [number, number];
    positions[index] = { depth, row: row++ };
    const kids = children[index] ?? [];
    for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k] as number, depth + 1]);
  }
  return positions;
}

export interface LineageInput {
  parents: readonly (readonly number[])[];
  valScores: readonly number[];
  bestIndex: number;
  /** Candidates on the per-example Pareto front, marked with a diamond. */
  front: ReadonlySet<number>;
}

const ROW = 24;
const COL = 44;
const LEFT = 16;
const TOP = 16;
const R = 7;

export function renderLineageTree(input: LineageInput): string {
  const positions = layoutLineage(input.parents);
  // Colours span this run's scores: candidates often differ by a few hundredths.
  const lo = Math.min(...input.valScores);
  const hi = Math.max(...input.valScores);
  const shade = (score: number) => scoreColor(hi > lo ? (score - lo) / (hi - lo) : 1);
  const maxDepth = Math.max(0, ...positions.map((p) => p.depth));
  const width = LEFT + maxDepth * COL + 220;
  const height = TOP * 2 + (positions.length - 1) * ROW + 8;
  const at = (i: number) => {
    const p = positions[i] as LineagePosition;
    return { x: LEFT + p.depth * COL, y: TOP + p.row * ROW };
  };
  const edges: string[] = [];
  input.parents.forEach((ps, i) => {
    const c = at(i);
    ps.forEach((parent, k) => {
      if (parent < 0 || parent >= i) return;
      const p = at(parent);
      edges.push(
        k === 0
          ? `<path class="lineage-edge" d="M${px(p.x)} ${px(p.y + R)} V${px(c.y)} H${px(c.x - R)}" />`
          : `<path class="lineage-edge merge" d="M${px(p.x + R)} ${px(p.y)} C${px(c.x + 30)} ${px(p.y)} ${px(c.x + 30)} ${px(c.y)} ${px(c.x + R)} ${px(c.y)}" />`,
      );
    });
  });
  const nodes = input.parents.map((ps, i) => {
    const { x, y } = at(i);
    const score = input.valScores[i] ?? 0;
    const best = i === input.bestIndex;
    const onFront = input.front.has(i);
    const origin = ps.length === 0 ? 'seed' : ps.length > 1 ? `merge of ${ps.map((p) => `#${p}`).join(' and ')}` : `child of #${ps[0]}`;
    const title = `candidate #${i} (${origin}): valset score ${score.toFixed(3)}${best ? ', best' : ''}${onFront ? ', on the Pareto front' : ''}`;
    return (
      // Focusable: the candidate panel (candidatePanel.ts) opens on click, Enter or Space.
      `<g class="lineage-node${best ? ' best' : ''}" data-index="${i}" tabindex="0" role="button" aria-label="${escapeHtml(`show ${title}`)}"><title>${escapeHtml(title)}</title>` +
      (best ? `<circle class="best-ring" cx="${px(x)}" cy="${px(y)}" r="${R + 4}" />` : '') +
      `<circle cx="${px(x)}" cy="${px(y)}" r="${R}" fill="${shade(score)}" />` +
      `<text x="${px(x + R + 6)}" y="${px(y + 4)}"><tspan class="idx">#${i}</tspan> ${score.toFixed(3)}${onFront ? ' ◆' : ''}${best ? ' ★ best' : ''}</text></g>`
    );
  });
  return `<svg class="lineage" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="candidate lineage tree">${edges.join('')}${nodes.join('')}</svg>`;
}
