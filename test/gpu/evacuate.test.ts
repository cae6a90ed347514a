/**
 * Young evacuation on the GPU (`--gpu-opt evacuate=gpu`, both layouts) against the CPU's:
 * random graphs of each shape are built the same way in two heaps, one collected
 * by gpu-dfs or gpu-bfs evacuating on the device (with --verify-gc, which checks
 * every address, copy word, forwarding header, remembered slot and card against
 * the CPU's computation of the same evacuation), the other by serial, evacuating
 * on the CPU. After each collection both heaps must hold the same objects
 * reachable from the roots: same types, scalars, ages and shape of references,
 * and (without survivor overflow, where the policies differ) the same generation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { destroyGpu } from '../../src/gpu/device/device.js';
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { GenerationalPlan } from '../../src/gc/plan.js';
import type { ClassShape } from '../../src/heap/api.js';
import { createHeap, type HeapImpl } from '../../src/heap/heap.js';
import type { GcRecord } from '../../src/heap/telemetry.js';
import { AGE_MASK, AGE_SHIFT, KIND_INSTANCE } from '../../src/heap/object-model.js';
import { createCollector } from '../../src/gc/index.js';
import { gpuInput } from '../../src/collectors/memory.js';
import { alloc, allocArray, collect, RootArray, rng } from '../gc/helpers.js';

afterAll(async () => {
  await destroyGpu();
});

interface World {
  heap: HeapImpl;
  roots: RootArray;
  records: GcRecord[];
  node: ClassShape;
  pair: ClassShape;
  wideArr: number;
  ints: number;
  dispose(): void;
}

const HEAP = { heapBytes: 512 * 1024, youngBytes: 192 * 1024 };

function world(
  collector: 'gpu-dfs' | 'gpu-bfs' | 'serial',
  extra: { tenureAge?: number; heapBytes?: number } = {},
  options = 'evacuate=gpu',
  verifyGc = true,
  layout: 'sable' | 'refgraph' = 'sable',
): World {
  const records: GcRecord[] = [];
  const heap = createHeap({ ...HEAP, ...extra, layout, verifyGc, logGc: (_line, r) => records.push(r) });
  const roots = new RootArray(4096);
  heap.setRoots(roots);
  let marker: GpuMarker | null = null;
  if (collector === 'serial') {
    createCollector('serial', heap);
  } else {
    marker = new GpuMarker({ engine: collector, options, input: gpuInput(heap) });
    heap.setCollector(new GenerationalPlan(heap, marker));
  }
  return {
    heap,
    roots,
    records,
    node: heap.defineClass('Node', ['ref', 'int']),
    pair: heap.defineClass('Pair', ['int', 'ref', 'float', 'ref']),
    wideArr: heap.defineArray('Node[]', 'ref'),
    ints: heap.defineArray('int[]', 'int'),
    dispose: () => marker?.dispose(),
  };
}

type Scenario = (w: World, r: () => number) => Promise<void>;

/** Allocates a Node with value `v` and `next`, keeping `next` alive through a root meanwhile. */
async function node(w: World, v: number, next: number): Promise<number> {
  const slot = w.roots.push(next);
  const a = await alloc(w.heap, w.node);
  const n = w.roots.get(slot);
  w.roots.count--;
  w.heap.writeRef(a, w.node.offsets[0]!, 0, n);
  w.heap.words[a + w.node.offsets[1]!] = v;
  return a;
}

/** Links `count` fresh nodes onto root slot `slot`. */
async function growList(w: World, slot: number, count: number, r: () => number): Promise<void> {
  for (let i = 0; i < count; i++) w.roots.slots[slot] = await node(w, Math.floor(r() * 1e6), w.roots.get(slot));
}

const scenarios: Record<string, Scenario> = {
  async lists(w, r) {
    for (let k = 0; k < 6; k++) w.roots.push(0);
    for (let i = 0; i < 400; i++) await growList(w, Math.floor(r() * 6), 1, r);
    await collect(w.heap, 'young');
    for (let i = 0; i < 200; i++) await growList(w, Math.floor(r() * 6), 1, r);
    await collect(w.heap, 'young');
  },
  async trees(w, r) {
    const build = async (depth: number): Promise<number> => {
      const p = await alloc(w.heap, w.pair);
      if (depth === 0) return p;
      const s = w.roots.push(p);
      const left = await build(depth - 1);
      w.heap.writeRef(w.roots.get(s), w.pair.offsets[1]!, 0, left);
      const right = r() < 0.8 ? await build(depth - 1) : 0;
      w.heap.writeRef(w.roots.get(s), w.pair.offsets[3]!, 1, right);
      w.heap.writeFloat(w.roots.get(s) + w.pair.offsets[2]!, r());
      w.heap.words[w.roots.get(s) + w.pair.offsets[0]!] = depth;
      w.roots.count--;
      return w.roots.get(s);
    };
    w.roots.push(await build(7));
    await collect(w.heap, 'young');
    w.roots.push(await build(6));
    await collect(w.heap, 'young');
  },
  async wide(w, r) {
    const arr = await allocArray(w.heap, w.wideArr, 300);
    w.roots.push(arr);
    for (let i = 0; i < 300; i++) {
      const n = await node(w, i, 0);
      if (r() < 0.7) w.heap.writeRef(w.roots.get(0), 4 + i, i, n);
    }
    const ints = await allocArray(w.heap, w.ints, 100);
    for (let i = 0; i < 100; i++) w.heap.words[ints + 4 + i] = i * 7;
    w.roots.push(ints);
    await collect(w.heap, 'young');
    await collect(w.heap, 'young');
  },
  async cycles(w, r) {
    for (let c = 0; c < 20; c++) {
      const slot = w.roots.push(0);
      const len = 1 + Math.floor(r() * 15);
      await growList(w, slot, len, r);
      // Close the ring: the last node (the list's end) points back at the head.
      let p = w.roots.get(slot);
      while (w.heap.words[p + 4] !== 0) p = w.heap.words[p + 4]!;
      w.heap.writeRef(p, w.node.offsets[0]!, 0, w.roots.get(slot));
    }
    await collect(w.heap, 'young');
    await collect(w.heap, 'young');
  },
  async oldToYoung(w, r) {
    // Tenured objects (promoted by a full collection's... by age 1) holding young references.
    const arr = await allocArray(w.heap, w.wideArr, 200);
    w.roots.push(arr);
    for (let i = 0; i < 200; i++) w.heap.writeRef(w.roots.get(0), 4 + i, i, await node(w, i, 0));
    await collect(w.heap, 'young');
    await collect(w.heap, 'young'); // tenureAge 1: promoted here
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 200; i++) {
        if (r() < 0.3) {
          const n = await node(w, i + round * 1000, 0);
          w.heap.writeRef(w.roots.get(0), 4 + i, i, n);
          const old = w.heap.words[w.roots.get(0) + 4 + ((i + 1) % 200)]!;
          if (old !== 0) w.heap.writeRef(old, w.node.offsets[0]!, 0, n);
        }
      }
      await collect(w.heap, 'young');
    }
  },
  async survivorOverflow(w, r) {
    // More live young words than a survivor space holds.
    for (let k = 0; k < 4; k++) w.roots.push(0);
    for (let i = 0; i < 2600; i++) await growList(w, Math.floor(r() * 4), 1, r);
    await collect(w.heap, 'young');
    for (let i = 0; i < 1000; i++) await growList(w, Math.floor(r() * 4), 1, r);
    await collect(w.heap, 'young');
  },
  async tenuredNearlyFull(w, r) {
    // Tenured filled with large arrays, every other one then freed: its free
    // space lies in chunks smaller than the promotions need together, though
    // each promoted object alone fits.
    const big = w.heap.largeObjectWords + 16;
    const first = w.roots.count;
    while (w.heap.freeList.freeWords >= big + 64) w.roots.push(await allocArray(w.heap, w.ints, big));
    // The last array stays, so that no freed one joins the free space after it.
    for (let i = w.roots.count - 2; i >= first; i -= 2) w.roots.slots[i] = 0;
    await collect(w.heap, 'full');
    const slot = w.roots.push(0);
    for (let i = 0; i < 2600; i++) await growList(w, slot, 1, r);
    await collect(w.heap, 'young');
    await collect(w.heap, 'young');
  },
};

/** Both heaps' objects reachable from the roots are the same up to addresses. */
function compareHeaps(gpu: World, cpu: World, sameGeneration: boolean): void {
  const a = gpu.heap;
  const b = cpu.heap;
  expect(gpu.roots.count).toBe(cpu.roots.count);
  const seen = new Map<number, number>();
  const stack: [number, number][] = [];
  const pair = (x: number, y: number, where: string): void => {
    if ((x === 0) !== (y === 0)) throw new Error(`${where}: ${x} against ${y}`);
    if (x === 0) return;
    const known = seen.get(x);
    if (known !== undefined) {
      if (known !== y) throw new Error(`${where}: ${x} pairs with ${known} and ${y}`);
      return;
    }
    seen.set(x, y);
    stack.push([x, y]);
  };
  for (let i = 0; i < gpu.roots.count; i++) pair(gpu.roots.get(i), cpu.roots.get(i), `root ${i}`);
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    const wa = a.words;
    const wb = b.words;
    const t = wa[x + 1]!;
    expect(wb[y + 1], `type at ${x}/${y}`).toBe(t);
    // Objects promoted by one side's overflow and not the other's stop ageing at different times.
    if (sameGeneration) {
      expect((wa[x]! >> AGE_SHIFT) & AGE_MASK, `age at ${x}/${y}`).toBe((wb[y]! >> AGE_SHIFT) & AGE_MASK);
      expect(a.isYoung(x), `generation of ${x}/${y}`).toBe(b.isYoung(y));
    }
    const left = a.types.kind[t] === KIND_INSTANCE ? a.types.left[t]! : 0;
    const right = a.types.rightWords(wa, x);
    const refs = new Set<number>();
    a.refSlots.forEach(wa, x, (s) => refs.add(s - x));
    // Sable counts the references in a+2; refgraph names the object's vertex there.
    if (a.graph === null) expect(wb[y + 2]).toBe(wa[x + 2]);
    for (let k = -left; k < 0; k++) expect(wa[x + k], `scalar ${k} of ${x}`).toBe(wb[y + k]);
    expect(wa[x + 3]).toBe(wb[y + 3]);
    for (let k = 4; k < 4 + right; k++) {
      if (refs.has(k)) pair(wa[x + k]!, wb[y + k]!, `ref ${k} of ${x}/${y}`);
      else expect(wa[x + k], `word ${k} of ${x}`).toBe(wb[y + k]);
    }
  }
  expect(seen.size).toBeGreaterThan(0);
}

// The default settings, then the live list in the engines' own order and the
// remembered set scanned on the GPU however small (its runs then come from the
// device), then the read-back written into the heap by writer threads.
// Under refgraph the engines mark the reference graphs and evacuate in a heap
// mirror kept beside them; the graphs are rebuilt from the new addresses, with
// the remembered slots' edges placed by the runs the device found (remset=0).
for (const [engine, options, seeds, layout] of [
  ['gpu-dfs', 'evacuate=gpu', [1, 2], 'sable'],
  ['gpu-bfs', 'evacuate=gpu', [3], 'sable'],
  ['gpu-dfs', 'evacuate=gpu,order=mark,remset=0', [4], 'sable'],
  ['gpu-bfs', 'evacuate=gpu,order=mark,remset=0', [5], 'sable'],
  ['gpu-dfs', 'evacuate=gpu,remset=0,writers=2', [8], 'sable'],
  ['gpu-dfs', 'evacuate=gpu', [9], 'refgraph'],
  ['gpu-bfs', 'evacuate=gpu,writers=2', [10], 'refgraph'],
  ['gpu-dfs', 'evacuate=gpu,remset=0', [11], 'refgraph'],
  ['gpu-bfs', 'evacuate=gpu,remset=0', [12], 'refgraph'],
] as const) {
  describe(`${engine} ${options} (${layout})`, () => {
    for (const [name, run] of Object.entries(scenarios)) {
      for (const seed of seeds) {
        it(`${name} (seed ${seed})`, async () => {
          const extra = name === 'oldToYoung' ? { tenureAge: 1 } : name === 'lists' ? { tenureAge: 2 } : {};
          const gpu = world(engine, extra, options, true, layout);
          const cpu = world('serial', extra, undefined, true, layout);
          try {
            await run(gpu, rng(seed));
            await run(cpu, rng(seed));
            const young = gpu.records.filter((r) => r.kind === 'young');
            expect(young.length).toBeGreaterThan(0);
            if (name === 'tenuredNearlyFull') {
              // The first young collection's promotions find no chunk large enough: the CPU evacuates.
              expect(young[0]!.evacuation).toMatchObject({ where: 'cpu', reason: expect.stringMatching(/no free chunk/) });
            } else {
              for (const r of young) expect(r.evacuation, `collection ${r.number}`).toMatchObject({ where: 'gpu' });
            }
            // Remembered slots, redirected on the device, come back with the moved words.
            if (name === 'oldToYoung') expect(young.some((r) => r.evacuation?.slots === 'gpu')).toBe(true);
            // Survivor overflow: the device promotes every eligible object after the first that does not fit.
            compareHeaps(gpu, cpu, name !== 'survivorOverflow' && name !== 'tenuredNearlyFull');
            // Every collection moved the same amount of data on both sides.
            const moved = (rs: GcRecord[]) => rs.map((r) => `${r.kind} ${r.survivedBytes + r.promotedBytes}`);
            expect(moved(gpu.records)).toEqual(moved(cpu.records));
            if (name === 'survivorOverflow') expect(gpu.records.some((r) => r.promotedBytes > 0)).toBe(true);
          } finally {
            gpu.dispose();
            cpu.dispose();
          }
        });
      }
    }
  });
}

// The remembered slots the device redirected come back into the heap (the
// default), or, with `slots=cpu`, the CPU redirects them:
// both must leave the heap the CPU's evacuation leaves.
describe('gpu-dfs evacuate=gpu, remembered slots redirected by the CPU (slots=cpu)', () => {
  it('oldToYoung (seed 6)', async () => {
    const gpu = world('gpu-dfs', { tenureAge: 1 }, 'evacuate=gpu,slots=cpu');
    const cpu = world('serial', { tenureAge: 1 });
    try {
      await scenarios.oldToYoung!(gpu, rng(6));
      await scenarios.oldToYoung!(cpu, rng(6));
      const young = gpu.records.filter((r) => r.kind === 'young');
      for (const r of young) expect(r.evacuation, `collection ${r.number}`).toMatchObject({ where: 'gpu' });
      expect(young.some((r) => r.evacuation?.slots === 'cpu')).toBe(true);
      compareHeaps(gpu, cpu, true);
    } finally {
      gpu.dispose();
      cpu.dispose();
    }
  });
});

// Without --verify-gc the device leaves out the old objects' forwarding headers
// when the live list is in address order (the roots are then redirected by
// searching it, and only their new addresses come back), and writes them when
// it is not (order=mark).
for (const options of ['evacuate=gpu', 'evacuate=gpu,order=mark,remset=0']) {
  describe(`gpu-dfs ${options}, without --verify-gc`, () => {
    for (const name of ['lists', 'oldToYoung', 'cycles'] as const) {
      it(`${name} (seed 7)`, async () => {
        const extra = name === 'oldToYoung' ? { tenureAge: 1 } : name === 'lists' ? { tenureAge: 2 } : {};
        const gpu = world('gpu-dfs', extra, options, false);
        const cpu = world('serial', extra);
        try {
          await scenarios[name]!(gpu, rng(7));
          await scenarios[name]!(cpu, rng(7));
          const young = gpu.records.filter((r) => r.kind === 'young');
          for (const r of young) expect(r.evacuation, `collection ${r.number}`).toMatchObject({ where: 'gpu' });
          if (!options.includes('order=mark') && name !== 'oldToYoung') {
            // The roots were found in the list: only their referents' new addresses came back.
            for (const r of young) expect(r.evacuation!.readbackBytes, `collection ${r.number}`).toBeLessThan(r.survivedBytes + r.promotedBytes + 4 * r.liveYoungObjects);
          }
          compareHeaps(gpu, cpu, true);
        } finally {
          gpu.dispose();
          cpu.dispose();
        }
      });
    }
  });
}
