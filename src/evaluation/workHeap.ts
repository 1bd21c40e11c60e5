// The queue work waits in for a worker slot: a binary min-heap on (priority, seq), so that the
// most urgent kind of work goes first and equal priorities keep their arrival order. p-limit's
// queue is first-in first-out only; priorities are the point of the slot order.

/** What the heap orders on: lower priority first, then lower seq (arrival). */
export interface Ordered {
  priority: number;
  seq: number;
}

export class WorkHeap<T extends Ordered> {
  private items: T[] = [];

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    let i = this.items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The first item in (priority, seq) order, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** The first item in (priority, seq) order, removed; undefined when empty. */
  pop(): T | undefined {
    const top = this.items[0];
    const last = this.items.pop();
    if (this.items.length > 0 && last) {
      this.items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.items.length && this.less(l, m)) m = l;
        if (r < this.items.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }

  private less(i: number, j: number): boolean {
    const a = this.items[i] as T;
    const b = this.items[j] as T;
    return a.priority < b.priority || (a.priority === b.priority && a.seq < b.seq);
  }

  /** With a temporary: a destructuring swap allocated an array each time (the heap sampler shows it). */
  private swap(i: number, j: number): void {
    const item = this.items[i] as T;
    this.items[i] = this.items[j] as T;
    this.items[j] = item;
  }
}
