/**
 * Randomised mutation against a JavaScript model of the object graph, under
 * --gc-stress and --verify-gc: after every step the heap reachable from the roots
 * must equal the model, whatever the collections moved, aged, promoted or swept.
 */

import { describe, expect, it } from 'vitest';
import type { HeapImpl } from '../../src/heap/heap.js';
import type { HeapOptions } from '../../src/heap/options.js';
import type { MirrorLog } from '../../src/heap/mirror-log.js';
import { vertexWordsInUse } from '../../src/heap/ref-graph.js';
import { registerMarker } from '../../src/gc/index.js';
import { HEAP_READER, type MarkRequest, type MarkResult, type Marker } from '../../src/gc/marker.js';
import { SerialMarker } from '../../src/gc/serial-marker.js';
import { verifyMarks } from '../../src/gc/verify.js';
import { makeHeap, rng } from './helpers.js';

/**
 * A marker that traces a mirror of the heap kept up to date only through
 * `takeDirtyRanges`, as a GPU marker does, and checks its marks against the heap.
 * `ahead`: eden also goes to the mirror in steps of 64 words while the program
 * runs, as a GPU marker's `upload=ahead` does (MirrorLog.setEdenUpload), and a
 * step's copy lands when the next step or the mark comes, as the GPU worker takes
 * its requests in order: in turn, with the words as they were when the step
 * started (a copy that read them at once) and as they are when it lands (one that
 * read them late, after the program's stores meanwhile).
 */
class MirrorMarker implements Marker {
  readonly name = 'mirror-check';
  readonly constraints = HEAP_READER;
  readonly mirror: Int32Array;
  private readonly inner: SerialMarker;
  aheadWords = 0;
  private readonly log: MirrorLog;
  constructor(
    private readonly heap: HeapImpl,
    ahead = false,
  ) {
    this.mirror = new Int32Array(heap.words.length);
    this.inner = new SerialMarker({ words: this.mirror, refSlots: heap.refSlots, occupiedRanges: () => heap.occupiedRanges() } as HeapImpl);
    this.log = heap.attachMirrorLog();
    if (ahead) {
      let early = false;
      // Every third try finds the copy not ready (a GPU device still starting):
      // eden grows on, and the next upload takes the steps it declined too.
      let tries = 0;
      this.log.setEdenUpload(64, {
        ready: () => ++tries % 3 !== 0,
        start: (start, end) => {
          early = !early;
          const words = early ? heap.words.slice(start, end) : null;
          this.copies.push(() => this.mirror.set(words ?? heap.words.subarray(start, end), start));
          this.aheadWords += end - start;
          return Promise.resolve();
        },
        land: () => {
          this.landCopies();
          return 0;
        },
      });
      lastAhead = this;
    }
  }
  /** Uploads ahead not yet in the mirror, in the order they started. */
  private readonly copies: (() => void)[] = [];
  private landCopies(): void {
    for (const copy of this.copies.splice(0)) copy();
  }
  mark(request: MarkRequest): MarkResult {
    this.landCopies();
    const ranges = this.log.takeDirtyRanges();
    for (let i = 0; i < ranges.length; i += 2) this.mirror.set(this.heap.words.subarray(ranges[i]!, ranges[i + 1]!), ranges[i]!);
    const result = this.inner.mark(request);
    verifyMarks(this.heap, request, result, 'mirror-check');
    return result;
  }
  dispose(): void {}
}
registerMarker('mirror-check', (heap) => new MirrorMarker(heap));
let lastAhead: MirrorMarker | null = null;
registerMarker('mirror-check-ahead', (heap) => new MirrorMarker(heap, true));

/** A marker that keeps copies of the tenured reference graph through `takeDirtyGraphs`
 *  and checks, at every mark, that the copies equal the graph's words in use. */
class GraphMirrorMarker implements Marker {
  readonly name = 'graph-mirror-check';
  readonly constraints = HEAP_READER;
  private vertices: Uint32Array = new Uint32Array(0);
  private edges: Uint32Array = new Uint32Array(0);
  private readonly inner: SerialMarker;
  constructor(private readonly heap: HeapImpl) {
    this.inner = new SerialMarker(heap);
  }
  mark(request: MarkRequest): MarkResult {
    const g = this.heap.graph!.tenured;
    const dirty = this.heap.graph!.takeDirtyGraphs();
    const apply = (copy: Uint32Array, src: Uint32Array, inUse: number, ranges: number[] | undefined): Uint32Array => {
      const next = new Uint32Array(src.length);
      next.set(copy.subarray(0, Math.min(copy.length, next.length)));
      if (ranges === undefined) next.set(src.subarray(0, inUse));
      else for (let i = 0; i < ranges.length; i += 2) next.set(src.subarray(ranges[i]!, ranges[i + 1]!), ranges[i]!);
      return next;
    };
    // The sentinel's slot too: the last vertex's edge count reads it.
    this.vertices = apply(this.vertices, g.vertices, vertexWordsInUse(g.vertexCount), dirty.tenuredVertices);
    this.edges = apply(this.edges, g.edges, g.edgeCount, dirty.tenuredEdges);
    for (let i = 0; i < vertexWordsInUse(g.vertexCount); i++) {
      if (this.vertices[i] !== g.vertices[i]) throw new Error(`mirror: tenured vertex word ${i} is stale`);
    }
    for (let i = 0; i < g.edgeCount; i++) {
      if (this.edges[i] !== g.edges[i]) throw new Error(`mirror: tenured edge ${i} is stale`);
    }
    return this.inner.mark(request);
  }
  dispose(): void {}
}
registerMarker('graph-mirror-check', (heap) => new GraphMirrorMarker(heap));


interface ModelObj {
  id: number;
  refs: Array<ModelObj | null>;
  isArray: boolean;
}

export async function runModel(
  options: HeapOptions,
  steps: number,
  seed: number,
  collector = 'serial',
): Promise<HeapImpl> {
  const { heap, roots } = makeHeap(options, collector);
  const random = rng(seed);
  const node = heap.defineClass('Node', ['int', 'ref', 'float', 'ref', 'ref']);
  const [idOff, , fOff] = node.offsets as [number, number, number];
  const refOffs = [node.offsets[1]!, node.offsets[3]!, node.offsets[4]!];
  const arrType = heap.defineArray('Node[]', 'ref');
  const ROOTS = 32;
  const model: Array<ModelObj | null> = new Array(ROOTS).fill(null);
  for (let i = 0; i < ROOTS; i++) roots.push(0);
  // One spare root slot keeps a freshly allocated object alive across the collection
  // its sibling allocation may trigger.
  const spare = roots.push(0);
  let nextId = 1;
  const slotOf = (_obj: number, isArray: boolean, j: number): [number, number] =>
    isArray ? [4 + j, j] : [refOffs[j]!, j];

  const allocObj = async (): Promise<[number, ModelObj]> => {
    const isArray = random() < 0.2;
    const len = isArray ? 1 + Math.floor(random() * (random() < 0.05 ? 3000 : 6)) : 3;
    for (;;) {
      const a = isArray ? heap.allocArray(arrType, len) : heap.allocInstance(node);
      if (a !== 0) {
        const m: ModelObj = { id: nextId++, refs: new Array(len).fill(null), isArray };
        if (!isArray) {
          heap.words[a + idOff] = m.id;
          heap.writeFloat(a + fOff, m.id + 0.5);
        }
        return [a, m];
      }
      await heap.collectPending();
    }
  };
  const check = (): void => {
    // Identity: one address per model object and one model object per address
    // (arrays carry no id word, so this is what identifies them).
    const seen = new Map<number, ModelObj>();
    const where = new Map<ModelObj, number>();
    const walk = (a: number, m: ModelObj | null, path: string): void => {
      if (m === null) {
        expect(a, path).toBe(0);
        return;
      }
      expect(a, path).not.toBe(0);
      if (m.isArray) expect(heap.words[a + 3], `${path}: array length at ${a}`).toBe(m.refs.length);
      else {
        expect(heap.words[a + idOff], `${path}: object at ${a}`).toBe(m.id);
        expect(heap.readFloat(a + fOff)).toBe(m.id + 0.5);
      }
      if (seen.has(a)) {
        expect(seen.get(a) === m, `${path}: ${a} is two objects`).toBe(true);
        return;
      }
      expect(where.has(m), `${path}: object ${m.id} at two addresses`).toBe(false);
      seen.set(a, m);
      where.set(m, a);
      m.refs.forEach((child, j) => walk(heap.words[a + slotOf(a, m.isArray, j)[0]]!, child, `${path}.${j}`));
    };
    for (let i = 0; i < ROOTS; i++) walk(roots.get(i), model[i]!, `root${i}`);
  };

  // Address of each model object, refreshed after collections by walking.
  const addrOf = (target: ModelObj): number => {
    let found = 0;
    const seen = new Set<number>();
    const walk = (a: number, m: ModelObj | null): void => {
      if (m === null || found !== 0 || seen.has(a)) return;
      seen.add(a);
      if (m === target) {
        found = a;
        return;
      }
      m.refs.forEach((c, j) => walk(heap.words[a + slotOf(a, m.isArray, j)[0]]!, c));
    };
    for (let i = 0; i < ROOTS && found === 0; i++) walk(roots.get(i), model[i]!);
    return found;
  };
  const modelObjects = (): ModelObj[] => {
    const out = new Set<ModelObj>();
    const walk = (m: ModelObj | null): void => {
      if (m === null || out.has(m)) return;
      out.add(m);
      m.refs.forEach(walk);
    };
    model.forEach(walk);
    return [...out];
  };

  for (let step = 0; step < steps; step++) {
    const op = random();
    if (op < 0.45) {
      // Allocate into a root slot.
      const [a, m] = await allocObj();
      const r = Math.floor(random() * ROOTS);
      roots.slots[r] = a;
      model[r] = m;
    } else if (op < 0.8) {
      // Allocate and store into a field of a reachable object.
      const objs = modelObjects();
      if (objs.length === 0) continue;
      const target = objs[Math.floor(random() * objs.length)]!;
      const [a, m] = await allocObj();
      roots.slots[spare] = a;
      const t = addrOf(target);
      if (t === 0) continue;
      const j = Math.floor(random() * target.refs.length);
      const [off, edge] = slotOf(t, target.isArray, j);
      heap.writeRef(t, off, edge, roots.slots[spare]!);
      target.refs[j] = m;
      roots.slots[spare] = 0;
    } else if (op < 0.95) {
      // Link two reachable objects (creates cycles and old-to-young references).
      const objs = modelObjects();
      if (objs.length < 2) continue;
      const from = objs[Math.floor(random() * objs.length)]!;
      const to = random() < 0.1 ? null : objs[Math.floor(random() * objs.length)]!;
      const f = addrOf(from);
      const t = to === null ? 0 : addrOf(to);
      const j = Math.floor(random() * from.refs.length);
      const [off, edge] = slotOf(f, from.isArray, j);
      heap.writeRef(f, off, edge, t);
      from.refs[j] = to;
    } else {
      // Drop a root.
      const r = Math.floor(random() * ROOTS);
      roots.slots[r] = 0;
      model[r] = null;
    }
    if (step % 25 === 0) check();
  }
  check();
  return heap;
}

for (const layout of ['sable', 'refgraph']) {
  describe(`random mutation against a model (${layout})`, () => {
    for (const [name, options] of [
      ['default sizes, gc-stress 7', { gcStress: 7, verifyGc: true }],
      ['tiny survivors, tenureAge 1', { gcStress: 13, tenureAge: 1, survivorRatio: 30, verifyGc: true }],
      [
        'no stress, small young generation',
        { heapBytes: 128 * 1024, youngBytes: 12 * 1024, verifyGc: true, largeObjectBytes: 2048 },
      ],
    ] as Array<[string, HeapOptions]>) {
      it(name, async () => {
        const heap = await runModel({ ...options, layout }, 3000, 42);
        const s = heap.stats;
        expect(s.youngCollections + s.fullCollections).toBeGreaterThan(5);
      });
    }

    it('gc-stress makes every 4th stress collection a full one', async () => {
      const heap = await runModel({ gcStress: 5, verifyGc: true, heapBytes: 4 * 1024 * 1024, layout }, 1000, 7);
      const s = heap.stats;
      expect(s.fullCollections).toBeGreaterThan(0);
      expect(Math.abs(s.youngCollections - 3 * s.fullCollections)).toBeLessThanOrEqual(3);
    });
  });
}

describe('dirty ranges for heap mirrors', () => {
  it('a marker tracing a mirror updated only through takeDirtyRanges marks exactly', async () => {
    const heap = await runModel({ gcStress: 9, tenureAge: 2, verifyGc: true }, 3000, 5, 'mirror-check');
    expect(heap.stats.fullCollections).toBeGreaterThan(3);
  });

  it('so does one that also takes eden ahead of the collections, in steps', async () => {
    // Without stress, so that eden fills and the steps come between collections;
    // the model stores into objects the mirror already has.
    const heap = await runModel({ tenureAge: 2, verifyGc: true, heapBytes: 128 * 1024 }, 3000, 7, 'mirror-check-ahead');
    expect(heap.stats.youngCollections).toBeGreaterThan(3);
    expect(lastAhead!.aheadWords).toBeGreaterThan(10_000);
  });
});

describe('dirty graph ranges for GPU mirrors', () => {
  it('a copy of the tenured graph updated only through takeDirtyGraphs stays exact', async () => {
    const heap = await runModel(
      { gcStress: 9, tenureAge: 1, verifyGc: true, layout: 'refgraph' },
      3000,
      11,
      'graph-mirror-check',
    );
    expect(heap.stats.fullCollections).toBeGreaterThan(3);
  });
});
