import { describe, expect, it } from 'vitest';
import { OutOfMemoryError } from '../../src/heap/api.js';
import { createHeap } from '../../src/heap/heap.js';
import { refgraphLayout, sableLayout } from '../../src/heap/layout.js';
import { HEADER_TAG, STATUS_FORWARDED } from '../../src/heap/object-model.js';
import { formatGcRecord, formatGcStats } from '../../src/heap/telemetry.js';
import { createCollector, SerialMarker, type Marker } from '../../src/gc/index.js';
import type { MarkRequest } from '../../src/gc/marker.js';
import { makeHeap, RootArray } from '../gc/helpers.js';

describe('space plan', () => {
  it('defaults to HotSpot proportions: young a third, eden/survivor 8, in address order', () => {
    const heap = createHeap();
    const p = heap.plan;
    expect(p.heapBytes).toBe(256 * 1024 * 1024);
    const young = heap.youngEnd - heap.youngStart;
    expect(Math.abs(young * 4 - p.heapBytes / 3)).toBeLessThan(64);
    expect(heap.edenStart).toBe(heap.youngStart);
    expect(heap.fromStart).toBe(heap.edenEnd);
    expect(heap.toStart).toBe(heap.fromEnd);
    expect(heap.tenuredStart).toBe(heap.toEnd);
    expect(heap.youngEnd).toBe(heap.tenuredStart);
    expect(Math.round((heap.edenEnd - heap.edenStart) / p.survivorWords)).toBe(8);
    expect(heap.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(heap.tenureAge).toBe(15);
  });

  it('rejects a heap too small to hold its spaces', () => {
    expect(() => createHeap({ heapBytes: 1024 })).toThrow(/heap too small/);
  });
});

describe('sable layout', () => {
  it('puts refs right of the header and scalars left, keeping inherited offsets', () => {
    const a = sableLayout.placeFields(['int', 'ref', 'float', 'ref']);
    expect(a.offsets).toEqual([-1, 4, -3, 5]);
    expect(a.edgeIndex).toEqual([-1, 0, -1, 1]);
    expect(a.leftWords).toBe(4); // lead word + int + float
    const b = sableLayout.placeFields(['int', 'ref', 'float', 'ref', 'ref', 'bool']);
    expect(b.offsets.slice(0, 4)).toEqual(a.offsets);
    expect(b.offsets.slice(4)).toEqual([6, -4]);
  });

  it('lays instances out in the heap with a lead word and the reference count in a+2', () => {
    const { heap } = makeHeap();
    const shape = heap.defineClass('P', ['int', 'ref', 'float']);
    const a = heap.allocInstance(shape);
    const w = heap.words;
    expect(w[a]! & HEADER_TAG).toBe(HEADER_TAG);
    expect(w[a + heap.typeWordOffset]).toBe(shape.typeId);
    expect(w[a + 2]).toBe(1);
    expect(w[a - 4]).toBe(4); // lead word: words from the object's start to its header
    heap.words[a + shape.offsets[0]!] = 42;
    heap.writeFloat(a + shape.offsets[2]!, 2.5);
    expect(heap.words[a + shape.offsets[0]!]).toBe(42);
    expect(heap.readFloat(a + shape.offsets[2]!)).toBe(2.5);
    expect(heap.typeName(shape.typeId)).toBe('P');
  });
});

describe('refgraph layout', () => {
  it('places fields in declaration order after the header', () => {
    const p = refgraphLayout.placeFields(['int', 'ref', 'float', 'ref']);
    expect(p.offsets).toEqual([4, 5, 6, 8]);
    expect(p.edgeIndex).toEqual([-1, 0, -1, 1]);
    expect(p.leftWords).toBe(0);
    expect(p.refOffsets).toEqual([5, 8]);
  });
});

describe('allocation', () => {
  it('bump-allocates zeroed objects in eden and arrays with their length', () => {
    const { heap } = makeHeap();
    const shape = heap.defineClass('N', ['ref', 'int']);
    const a = heap.allocInstance(shape);
    const b = heap.allocInstance(shape);
    expect(heap.isYoung(a)).toBe(true);
    expect(b).toBeGreaterThan(a);
    const ints = heap.defineArray('int[]', 'int');
    const arr = heap.allocArray(ints, 10);
    expect(heap.words[arr + heap.lengthWordOffset]).toBe(10);
    for (let i = 0; i < 10; i++) expect(heap.words[arr + heap.arrayDataOffset + i]).toBe(0);
    const s = heap.allocArray(heap.stringTypeId, 3);
    expect(heap.typeName(heap.words[s + 1]!)).toBe('string');
  });

  it('sends objects above the large-object threshold straight to tenured', () => {
    const { heap } = makeHeap({ largeObjectBytes: 1024 });
    const ints = heap.defineArray('int[]', 'int');
    const small = heap.allocArray(ints, 100);
    const big = heap.allocArray(ints, 1000);
    expect(heap.isYoung(small)).toBe(true);
    expect(big).toBeGreaterThanOrEqual(heap.tenuredStart);
  });

  it('returns 0 and makes a young collection pending when eden is full', () => {
    const { heap } = makeHeap();
    const shape = heap.defineClass('N', ['ref']);
    let n = 0;
    while (heap.allocInstance(shape) !== 0) n++;
    expect(n).toBeGreaterThan(100);
    expect(heap.collectionPending).toBe(true);
  });

  it('with the none collector, a failed allocation is out of memory at once', () => {
    const { heap } = makeHeap({}, 'none');
    const shape = heap.defineClass('N', ['ref']);
    heap.requestCollection('full', 'gc() call');
    expect(heap.collectionPending).toBe(false);
    expect(() => {
      for (;;) heap.allocInstance(shape);
    }).toThrow(new OutOfMemoryError('out of memory: heap of 256 KiB exhausted (raise it with --heap)'));
  });

  it('counts allocated bytes for --stats', () => {
    const { heap } = makeHeap();
    const shape = heap.defineClass('N', ['ref', 'int']);
    heap.allocInstance(shape);
    expect(heap.stats.bytesAllocated).toBe(4 * 7);
    expect(formatGcStats(heap.stats)).toMatch(/0 young, 0 full collections/);
  });
});

describe('write barrier', () => {
  it('dirties the card of a tenured slot that receives a young reference, only then', () => {
    const { heap } = makeHeap({ largeObjectBytes: 256 });
    const refs = heap.defineArray('N[]', 'ref');
    const old = heap.allocArray(refs, 300);
    expect(old).toBeGreaterThanOrEqual(heap.tenuredStart);
    const young = heap.allocArray(refs, 1);
    const other = heap.allocArray(refs, 300);
    heap.writeRef(old, 4 + 200, 200, other); // old -> old: no card
    expect(heap.cards.isDirty(old + 4 + 200)).toBe(false);
    heap.writeRef(old, 4 + 200, 200, young);
    expect(heap.cards.isDirty(old + 4 + 200)).toBe(true);
    expect(heap.cards.isDirty(old + 4)).toBe(heap.cards.cardOf(old + 4) === heap.cards.cardOf(old + 204));
    heap.writeRef(young, 4, 0, old); // young slots never dirty anything
    expect(heap.words[young + 4]).toBe(old);
  });
});

describe('the mirror log (a GPU heap mirror\'s view of what was written)', () => {
  it('exists only when a collector asks for it, before the first allocation', () => {
    const heap = createHeap({ heapBytes: 4 * 2 ** 20 });
    expect(heap.mirror).toBeNull();
    const log = heap.attachMirrorLog();
    expect(heap.mirror).toBe(log);
    expect(heap.attachMirrorLog()).toBe(log);
    const late = createHeap({ heapBytes: 4 * 2 ** 20 });
    late.allocArray(late.stringTypeId, 3);
    expect(() => late.attachMirrorLog()).toThrow(/already allocated/);
  });

  it('hands over the written tenured cards once, merged across summary chunks', () => {
    const heap = createHeap({ heapBytes: 64 * 2 ** 20 });
    const log = heap.attachMirrorLog();
    const young = [heap.edenStart, heap.edenTop, heap.fromStart, heap.fromTop];
    expect(log.takeDirtyRanges()).toEqual(young);
    const base = heap.edenStart; // the mirror cards start at eden
    const card = (a: number): number => (a - base) >> 7;
    const t = heap.tenuredStart;
    // A summary byte covers 64 cards (8,192 words): the second write straddles the
    // boundary at chunk 1, the third is far away, the first shares no chunk with them.
    const chunkEdge = base + (Math.ceil((t + 2000 - base) / 8192) * 8192);
    const writes: [number, number][] = [
      [t + 5, t + 6],
      [chunkEdge - 300, chunkEdge + 300],
      [t + 500_000, t + 500_001],
    ];
    for (const [s, e] of writes) log.noteWrite(s, e);
    // Empty ranges (a remembered-set run without young slots) mark nothing, at tenured's start too.
    log.noteWrite(t + 40_000, t + 40_000);
    log.noteWrite(base, base);
    const want: number[] = [];
    for (const [s, e] of writes) want.push(base + (card(s) << 7), base + ((card(e - 1) + 1) << 7));
    const got = log.takeDirtyRanges();
    expect(got.slice(0, 2)).toEqual([heap.edenStart, heap.edenTop]);
    expect(got.slice(2)).toEqual(want);
    // Taken once: the cards and their summary are clean again.
    expect(log.takeDirtyRanges()).toEqual([heap.edenTop, heap.edenTop]);
  });

  it('hands eden over ahead in steps while the program goes on, then only what changed in it', async () => {
    const { heap, roots } = makeHeap({ heapBytes: 4 * 2 ** 20 });
    const log = heap.attachMirrorLog();
    const node = heap.defineClass('Node', ['int', 'ref']);
    const uploads: [number, number][] = [];
    // The copy takes each range when the test lets it (land): the program does not
    // wait for it, only for the one before when it starts the next.
    const landed: (() => void)[] = [];
    let lands = 0;
    log.setEdenUpload(1000, {
      ready: () => true,
      start: (s, e, room) => {
        expect(landed.length).toBe(0);
        expect(room).toBe(Math.min(heap.edenEnd, e + 2000));
        uploads.push([s, e]);
        return new Promise<void>((resolve) => landed.push(resolve));
      },
      land: () => {
        lands++;
        for (const resolve of landed.splice(0)) resolve();
        return 2;
      },
    });
    const first = heap.allocInstance(node);
    roots.push(first);
    let a = first;
    // Past three steps, no allocation fails or asks for anything.
    while (heap.edenTop - heap.edenStart < 3500) {
      a = heap.allocInstance(node);
      expect(a).not.toBe(0);
      expect(heap.collectionPending).toBe(false);
    }
    expect(uploads.length).toBe(3);
    expect(lands).toBe(2);
    expect(landed.length).toBe(1);
    expect(uploads[0]![0]).toBe(heap.edenStart);
    for (let i = 1; i < uploads.length; i++) expect(uploads[i]![0]).toBe(uploads[i - 1]![1]);
    const handed = uploads[2]![1];
    // A store into an object handed over marks its card, landed or not; one above the mark does not.
    heap.writeRef(first, node.offsets[1]!, 0, a);
    heap.writeRef(a, node.offsets[1]!, 0, first);
    const slot = first + node.offsets[1]!;
    const card = heap.edenStart + (((slot - heap.edenStart) >> 7) << 7);
    expect(log.takeDirtyRanges()).toEqual([handed, heap.edenTop, heap.fromStart, heap.fromTop, card, card + 128]);
    // A collection that does not replay its moves on the copy runs with the last
    // upload still under way, then empties eden: the mirror has none of the new
    // eden, and the steps start again.
    const serial = heap.collector!;
    heap.setCollector({ ...serial, collect: (kind, cause) => {
      expect(landed.length).toBe(1);
      return serial.collect(kind, cause);
    } });
    heap.requestCollection('young', 'test');
    await heap.collectPending();
    expect(lands).toBe(2);
    expect(heap.lastRecord!.landedMs).toBeUndefined();
    // The program's two waits, before the second and the third upload.
    expect(heap.lastRecord!.aheadWaitMs).toBe(4);
    expect(formatGcRecord(heap.lastRecord!)).toMatch(/ ahead-wait=4\.00ms( |$)/);
    expect(log.takeDirtyRanges().slice(0, 2)).toEqual([heap.edenStart, heap.edenStart]);
    uploads.length = 0;
    while (uploads.length === 0) expect(heap.allocInstance(node)).not.toBe(0);
    expect(uploads[0]![0]).toBe(heap.edenStart);
    // The next step waits for the one the collection left under way.
    expect(lands).toBe(3);
    await heap.landUploads();
    expect(lands).toBe(4);
    expect(landed.length).toBe(0);
  });


  it('lets eden grow on while the copy cannot take uploads yet, trying again a step later, then hands it all over', () => {
    const { heap, roots } = makeHeap({ heapBytes: 4 * 2 ** 20 });
    const log = heap.attachMirrorLog();
    const node = heap.defineClass('Node', ['int', 'ref']);
    const uploads: [number, number][] = [];
    const tries: number[] = [];
    let ready = false;
    log.setEdenUpload(1000, {
      ready: () => (tries.push(heap.edenTop), ready),
      start: (s, e) => (uploads.push([s, e]), Promise.resolve()),
      land: () => 0,
    });
    roots.push(heap.allocInstance(node));
    while (heap.edenTop - heap.edenStart < 3500) expect(heap.allocInstance(node)).not.toBe(0);
    // One try a step, none in between, and nothing handed over.
    expect(tries.length).toBe(3);
    // (An allocation that ends past the step tries: a node is 6 words.)
    for (let i = 1; i < tries.length; i++) expect(Math.abs(tries[i]! - tries[i - 1]! - 1000)).toBeLessThan(8);
    expect(uploads).toEqual([]);
    ready = true;
    while (heap.edenTop - heap.edenStart < 4600) expect(heap.allocInstance(node)).not.toBe(0);
    // The first upload takes eden from its start, all the steps declined with it.
    expect(tries.length).toBe(4);
    expect(uploads).toEqual([[heap.edenStart, tries[3]!]]);
    expect(log.takeDirtyRanges().slice(0, 2)).toEqual([tries[3]!, heap.edenTop]);
  });
  it('an evacuation the copy replays lands the uploads first, before it writes eden', async () => {
    const heap = createHeap({ heapBytes: 4 * 2 ** 20 });
    const roots = new RootArray();
    heap.setRoots(roots);
    const node = heap.defineClass('Node', ['int', 'ref']);
    const log = heap.attachMirrorLog();
    const seen: string[] = [];
    const replaying = {
      name: 'replaying',
      constraints: { keepsHeapCopy: true, replaysEvacuation: true, scansRememberedSet: false, copiesYoung: false },
      inner: new SerialMarker(heap),
      mark(request: MarkRequest) {
        seen.push('mark');
        return this.inner.mark(request);
      },
      async replayEvacuation() {
        seen.push('replay');
      },
      dispose() {},
    };
    createCollector('serial', heap, { marker: replaying as unknown as Marker });
    let pending: (() => void) | null = null;
    log.setEdenUpload(1000, {
      ready: () => true,
      start: () => new Promise<void>((resolve) => (pending = resolve)),
      land: () => {
        // The copy reads eden now: nothing in it is forwarded yet.
        for (let i = 0; i < roots.count; i++) expect(heap.words[roots.get(i)]! & STATUS_FORWARDED).toBe(0);
        seen.push('land');
        pending?.();
        pending = null;
        return 3;
      },
    });
    while (heap.edenTop - heap.edenStart < 1500) roots.push(heap.allocInstance(node));
    heap.requestCollection('young', 'test');
    await heap.collectPending();
    expect(seen).toEqual(['land', 'mark', 'replay']);
    expect(heap.lastRecord!.landedMs).toBe(3);
    expect(formatGcRecord(heap.lastRecord!)).toMatch(/ landed=3\.00ms( |$)/);
  });

  it('a failed upload ahead is met where the heap lands its uploads', async () => {
    const { heap } = makeHeap({ heapBytes: 4 * 2 ** 20 });
    const log = heap.attachMirrorLog();
    const node = heap.defineClass('Node', ['int', 'ref']);
    log.setEdenUpload(1000, { ready: () => true, start: () => Promise.reject(new Error('the copy failed')), land: () => 0 });
    while (heap.edenTop - heap.edenStart < 1500) expect(heap.allocInstance(node)).not.toBe(0);
    await expect(heap.landUploads()).rejects.toThrow('the copy failed');
  });
});
