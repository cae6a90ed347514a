/**
 * The collectors' warm-up (gc/warm-up.ts): its scratch program takes the paths a
 * program's collections take (promotion by age and by survivor overflow, dirty
 * cards, full collections) under every CPU collector and layout, checked by
 * --verify-gc's heap walk; the parallel collector's threads, lent to the scratch
 * heap, come back to the program's heap and collect it correctly; and the CLI
 * reports the warm-up apart from the program's collections.
 */

import { describe, expect, it } from 'vitest';
import { AutoMarker } from '../../src/collectors/auto-marker.js';
import { GpuFallbackMarker } from '../../src/collectors/gpu-fallback.js';
import { ParallelMarker } from '../../src/gc/parallel-marker.js';
import { SurvivalProbe } from '../../src/gc/survival-probe.js';
import { warmUpCollector } from '../../src/gc/warm-up.js';
import { alloc, makeParallelHeap } from './helpers.js';
import { minivm, scratch } from '../minivm.js';

describe('the warm-up workload', () => {
  for (const layout of ['sable', 'refgraph']) {
    it(`takes every path of a young and a full collection (serial, ${layout})`, async () => {
      const s = await warmUpCollector('serial', { layout, verifyGc: true }, () => undefined);
      expect(s.young).toBeGreaterThanOrEqual(5);
      expect(s.full).toBeGreaterThanOrEqual(3);
      expect(s.overflowBytes).toBeGreaterThan(0);
      // Promotion by age besides the overflow.
      expect(s.promotedBytes).toBeGreaterThan(s.overflowBytes);
      expect(s.dirtyCards).toBeGreaterThan(0);
      // The branches a program's first collections would otherwise meet cold
      // (docs/decisions/s36-01-warm-up-coverage.md): allocation finding eden full,
      // and promoted copies that still refer to young objects.
      expect(s.edenFull).toBe(1);
      expect(s.promotedDirtyCards).toBeGreaterThan(0);
      // The remembered set's walk steps over a float array on a dirty card.
      expect(s.walkedFloatArray).toBe(true);
    });
  }
});

describe("the GPU collectors' warm-up", () => {
  it("rehearses the threshold's survival probe once, over live objects", async () => {
    let calls = 0;
    let probe: SurvivalProbe | null = null;
    class Counting extends GpuFallbackMarker {
      override rehearse(): void {
        calls++;
        probe = this.probe;
        super.rehearse();
      }
    }
    await warmUpCollector('serial', {}, (h) => new Counting(null, h, () => {}));
    expect(calls).toBe(1);
    expect(probe!.lastSlots).toBeGreaterThan(0);
  });
});

describe("auto's warm-up", () => {
  it('runs the scratch collections through a choosing marker: it chooses before each one, learns from its record, and rehearses its probe over live objects', async () => {
    class Counting extends AutoMarker {
      rehearsals = 0;
      collectionsBefore = -1;
      override rehearse(): void {
        this.rehearsals++;
        this.collectionsBefore = this.counts.serial;
        super.rehearse();
      }
    }
    let made: Counting | null = null;
    const s = await warmUpCollector('serial', { verifyGc: true }, (h) => (made = new Counting(h, { threads: 1 })));
    const auto = made as Counting | null;
    expect(auto).not.toBeNull();
    expect(auto!.rehearsals).toBe(1);
    // Before the last collection, which follows the workload's dropping of every root:
    // a probe of a heap that no root reaches would leave the probe's loops cold.
    expect(auto!.collectionsBefore).toBe(s.young + s.full - 1);
    expect(auto!.survivalProbe.lastSlots).toBeGreaterThan(0);
    // Every collection was chosen (begin) and observed: observe counts it per engine.
    expect(auto!.counts.serial).toBe(s.young + s.full);
    expect(auto!.counts.parallel).toBe(0);
    expect(auto!.chooseMs).toBeGreaterThan(0);
    expect(auto!.model.error().count).toBeGreaterThan(0);
  });
});

describe('the parallel collector warmed up on its own threads', () => {
  for (const layout of ['sable', 'refgraph']) {
    it(`lends its pool to the scratch heap and gets it back (${layout})`, async () => {
      const { heap, roots, marker } = await makeParallelHeap(3, { heapBytes: 1 << 20, layout, verifyGc: true });
      // The program's heap holds a list before the warm-up, as a program's globals would.
      const node = heap.defineClass('Node', ['int', 'ref']);
      const slot = roots.push(0);
      for (let i = 0; i < 500; i++) {
        const a = await alloc(heap, node);
        heap.words[a + node.offsets[0]!] = i;
        heap.writeRef(a, node.offsets[1]!, node.edgeIndex[1]!, roots.get(slot));
        roots.slots[slot] = a;
      }
      const s = await warmUpCollector('parallel', { layout, verifyGc: true }, (h) => new ParallelMarker(h, marker.threads, marker.gc.pool));
      expect(s.young + s.full).toBeGreaterThanOrEqual(8);
      expect(s.overflowBytes).toBeGreaterThan(0);
      expect(heap.stats.youngCollections + heap.stats.fullCollections).toBe(0);
      // The threads copy the program's heap again, every node once and intact.
      for (const kind of ['young', 'full', 'young'] as const) {
        heap.requestCollection(kind, 'test');
        await heap.collectPending();
      }
      expect(heap.stats.youngCollections).toBe(2);
      let n = 0;
      for (let a = roots.get(slot); a !== 0; a = heap.words[a + node.offsets[1]!]!) {
        expect(heap.words[a + node.offsets[0]!]).toBe(499 - n);
        n++;
      }
      expect(n).toBe(500);
    });
  }
});

describe("the threads' rehearsals", () => {
  for (const layout of ['sable', 'refgraph']) {
    it(`each thread, the main one too, copies and marks the whole heap alone, on its own copy of it (${layout})`, async () => {
      const threads = 3;
      const { heap, roots, marker } = await makeParallelHeap(threads, { heapBytes: 1 << 20, layout, verifyGc: true, tenureAge: 2 });
      const node = heap.defineClass('Node', ['int', 'ref']);
      const slot = roots.push(0);
      let count = 0;
      const grow = async (n: number): Promise<void> => {
        for (let i = 0; i < n; i++) {
          const a = await alloc(heap, node);
          heap.words[a + node.offsets[0]!] = count++;
          heap.writeRef(a, node.offsets[1]!, node.edgeIndex[1]!, roots.get(slot));
          roots.slots[slot] = a;
        }
      };
      marker.gc.rehearse = true;
      // Young collections (a copy each; the third promotes by age), then a full
      // one, each with new young nodes at the list's head.
      for (const kind of ['young', 'young', 'young', 'full'] as const) {
        await grow(kind === 'young' ? 700 : 100);
        heap.requestCollection(kind, 'test');
        await heap.collectPending();
        // Each of the three threads processed alone all the objects that the threads
        // together processed in the last command (a copy, or a full collection's last).
        const all = marker.gc.objects.reduce((x, y) => x + y, 0);
        expect(all).toBeGreaterThan(0);
        expect(marker.gc.rehearsed).toBe(threads * all);
      }
      // The rehearsals left the heap alone: the collections verified, and the list is intact.
      let n = 0;
      for (let a = roots.get(slot); a !== 0; a = heap.words[a + node.offsets[1]!]!) {
        expect(heap.words[a + node.offsets[0]!]).toBe(count - 1 - n);
        n++;
      }
      expect(n).toBe(count);
    });
  }
});

describe('minivm run', () => {
  const { program } = scratch('minivm-warm-up-');
  const file = program('one.mini', 'class A { var x: int; }\nvar a = new A();\nminorGc();\nprint(1);\n');

  it('reports the warm-up apart from the program collections: by default under parallel, with --gc-warm-up on under serial', () => {
    for (const args of [['--gc', 'parallel', '--threads', '2'], ['--gc', 'serial', '--gc-warm-up', 'on']]) {
      const r = minivm(['run', file, ...args, '--stats']);
      expect(r).toMatchObject({ status: 0, stdout: '1\n' });
      expect(r.stderr).toMatch(/gc warm-up: \d+ collections of a scratch heap, [\d.]+ ms before the program ran/);
      expect(r.stderr).toContain('gc: 1 young, 0 full collections');
    }
  });

  it('serial by default, --gc-warm-up off and --gc none run none', () => {
    for (const args of [['--gc', 'serial'], ['--gc', 'parallel', '--threads', '2', '--gc-warm-up', 'off'], ['--gc', 'none']]) {
      const r = minivm(['run', file, ...args, '--stats']);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('gc: ');
      expect(r.stderr).not.toContain('warm-up');
    }
  });

  it('rejects a value other than on or off', () => {
    const r = minivm(['run', file, '--gc-warm-up', 'maybe']);
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('--gc-warm-up');
  });
});
