// The slots' queue: items come out in (priority, arrival) order, whatever order they went in.
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/gepa/core/rng.js';
import { WorkHeap } from '../src/evaluation/workHeap.js';

describe('WorkHeap', () => {
  it('pops lower priorities first and equal priorities in arrival order, interleaved with pushes', () => {
    const rng = new Rng(11);
    const heap = new WorkHeap<{ priority: number; seq: number }>();
    const model: Array<{ priority: number; seq: number }> = [];
    let seq = 0;
    for (let i = 0; i < 2_000; i++) {
      if (model.length === 0 || rng.next() < 0.55) {
        const item = { priority: rng.int(4), seq: seq++ };
        heap.push(item);
        model.push(item);
      } else {
        model.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
        expect(heap.pop()).toBe(model.shift());
      }
      expect(heap.size).toBe(model.length);
    }
  });

  it('is empty when nothing is left', () => {
    const heap = new WorkHeap<{ priority: number; seq: number }>();
    expect(heap.pop()).toBeUndefined();
    heap.push({ priority: 2, seq: 0 });
    heap.push({ priority: 1, seq: 1 });
    expect([heap.pop()?.seq, heap.pop()?.seq, heap.pop()]).toEqual([1, 0, undefined]);
  });
});
