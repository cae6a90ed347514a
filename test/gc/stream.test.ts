/**
 * A marker may hand its young live list over while still writing it
 * (MarkResult.liveReady: the GPU worker copies it out of a mapped read-back
 * while the evacuation starts). The plan must read no entry before asking for
 * it: here the list stays zero until each `liveReady` call fills it up to the
 * count asked, so an early read would evacuate address 0 and break the heap,
 * which the heap check after the collection catches.
 */
import { describe, expect, it } from 'vitest';
import { createCollector, SerialMarker, verifyHeap, type Marker, type MarkRequest, type MarkResult } from '../../src/gc/index.js';
import { HEAP_READER } from '../../src/gc/marker.js';
import type { HeapImpl } from '../../src/heap/heap.js';
import { alloc, collect, makeHeap } from './helpers.js';

class StreamingMarker implements Marker {
  readonly name = 'streaming';
  readonly constraints = HEAP_READER;
  readonly asked: number[] = [];
  private readonly inner: SerialMarker;
  constructor(heap: HeapImpl) {
    this.inner = new SerialMarker(heap);
  }
  mark(request: MarkRequest): MarkResult {
    const r = this.inner.mark(request);
    if (request.kind !== 'young' || r.live === undefined) return r;
    const whole = r.live.slice();
    const shown = new Int32Array(whole.length);
    let filled = 0;
    this.asked.length = 0;
    return {
      bitmap: r.bitmap,
      times: r.times,
      live: shown,
      liveReady: (count: number) => {
        this.asked.push(count);
        if (count > filled) {
          shown.set(whole.subarray(filled, count), filled);
          filled = count;
        }
      },
    };
  }
  dispose(): void {
    this.inner.dispose();
  }
}

describe('a streamed live list', () => {
  it('is read block by block, each block asked for first', async () => {
    const { heap, roots } = makeHeap({ heapBytes: 24 << 20 });
    const marker = new StreamingMarker(heap);
    createCollector('streaming', heap, { marker });
    const node = heap.defineClass('Node', ['ref', 'int']);
    const [next, val] = node.offsets as [number, number];
    const head = roots.push(0);
    const n = 150_000;
    for (let i = 0; i < n; i++) {
      const a = await alloc(heap, node);
      heap.words[a + val] = i;
      heap.writeRef(a, next, 0, roots.get(head));
      roots.slots[head] = a;
    }
    await collect(heap, 'young');
    verifyHeap(heap);
    expect(heap.lastRecord!.liveYoungObjects).toBe(n);
    // Ascending blocks of at most 65,536 entries, the last one the whole list.
    expect(marker.asked.length).toBeGreaterThan(2);
    expect(marker.asked.at(-1)).toBe(n);
    for (let i = 0; i < marker.asked.length; i++) {
      const prev = i === 0 ? 0 : marker.asked[i - 1]!;
      expect(marker.asked[i]! - prev).toBeGreaterThan(0);
      expect(marker.asked[i]! - prev).toBeLessThanOrEqual(65_536);
    }
    let a = roots.get(head);
    for (let i = n - 1; i >= 0; i--) {
      expect(heap.words[a + val]).toBe(i);
      a = heap.words[a + next]!;
    }
    expect(a).toBe(0);
  });
});
