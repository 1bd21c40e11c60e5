// The report's lineage layout: each candidate on its own row, depth-first under its first
// parent, children in index order; a merge's second parent only draws an extra edge.
import { describe, expect, it } from 'vitest';
import { layoutLineage, renderLineageTree } from '../src/report/lineageTree.js';

describe('layoutLineage', () => {
  it('places candidates depth-first under their first parent', () => {
    // 0 -> 1 -> 3, 0 -> 2, 1 -> 4, and 5 merges 3 and 2.
    const parents = [[], [0], [0], [1], [1], [3, 2]];
    expect(layoutLineage(parents)).toEqual([
      { depth: 0, row: 0 },
      { depth: 1, row: 1 },
      { depth: 1, row: 5 },
      { depth: 2, row: 2 },
      { depth: 2, row: 4 },
      { depth: 3, row: 3 },
    ]);
  });

  it('treats a candidate whose parent is not earlier as a root instead of looping', () => {
    expect(layoutLineage([[], [2], [1]])).toEqual([
      { depth: 0, row: 0 },
      { depth: 0, row: 1 },
      { depth: 1, row: 2 },
    ]);
  });

  it('draws one node per candidate and a dashed edge for a merge', () => {
    const svg = renderLineageTree({ parents: [[], [0], [0], [1, 2]], valScores: [0.4, 0.5, 0.45, 0.6], bestIndex: 3, front: new Set([3]) });
    expect(svg.match(/class="lineage-node/g)).toHaveLength(4);
    expect(svg.match(/class="lineage-edge merge"/g)).toHaveLength(1);
    expect(svg.match(/class="lineage-edge"/g)).toHaveLength(3);
    expect(svg).toContain('candidate #3 (merge of #1 and #2): valset score 0.600, best, on the Pareto front');
  });
});
