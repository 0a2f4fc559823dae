export interface PairCount {
  pair: number;
  count: number;
}

/** Highest count first; among equal counts the smaller pair key, so training never depends on insertion order. */
const before = (a: PairCount, b: PairCount): boolean => a.count > b.count || (a.count === b.count && a.pair < b.pair);

/** A binary max-heap of pair counts. Entries may go stale; the trainer checks each popped count against the live one. */
export class PairQueue {
  private readonly heap: PairCount[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(entry: PairCount): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  pop(): PairCount | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < heap.length && before(heap[left], heap[best])) best = left;
      if (right < heap.length && before(heap[right], heap[best])) best = right;
      if (best === i) return top;
      [heap[i], heap[best]] = [heap[best], heap[i]];
      i = best;
    }
  }
}
