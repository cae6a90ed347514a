/**
 * Every optimization switch of both engines, the bfs offset variants and CPU
 * fallback, load balancing's effect, heaps split over several bindings, and
 * markers reused across collections with incremental mirror updates.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { GpuMarker } from '../../src/gpu/worker/gpu-marker.js';
import { destroyGpu } from '../../src/gpu/device/device.js';
import { vertexFirst } from '../../src/heap/ref-graph.js';
import type { GpuOptions } from '../../src/gpu/options.js';
import type { ObjectGraph } from './graphs.js';
import {
  binaryTree,
  bitmapSet,
  complete,
  expectedMarks,
  generational,
  layoutRefgraph,
  layoutSable,
  list,
  parallelLists,
  randomGraph,
  request,
  rng,
  wide,
} from './graphs.js';

afterAll(async () => {
  await destroyGpu();
});

type Engine = 'gpu-dfs' | 'gpu-bfs';

/** One graph with every feature: wide objects, long chains, cycles, sharing. */
function mixed(): ObjectGraph {
  const parts = [randomGraph(700, 3, 8, 31), wide(700), list(150), complete(25, 2)];
  const refs: number[][] = [];
  const roots: number[] = [];
  for (const p of parts) {
    const base = refs.length;
    for (const rs of p.refs) refs.push(rs.map((t) => (t < 0 ? -1 : t + base)));
    for (const r of p.roots) roots.push(r + base);
  }
  const r = rng(99);
  return { name: 'mixed', refs, roots, young: refs.map(() => r() < 0.6) };
}

/** 40 chains of 50 that all run into one 400-node tail (from node 2000), which
 *  ends in a cycle of 60 with a branching node in it; roots at every chain's
 *  head, in the middle of the cycle and at `extraRoots`; each node young with
 *  probability `youngShare`. */
function mergingChains(name: string, extraRoots: number[], seed: number, youngShare: number): ObjectGraph {
  const refs: number[][] = [];
  const roots: number[] = [];
  const tail = 40 * 50;
  for (let c = 0; c < 40; c++) {
    roots.push(refs.length);
    for (let i = 0; i < 50; i++) refs.push([i + 1 < 50 ? refs.length + 1 : tail]);
  }
  const ring = tail + 400;
  for (let i = 0; i < 400; i++) refs.push([i + 1 < 400 ? refs.length + 1 : ring]);
  for (let i = 0; i < 60; i++) refs.push(i === 30 ? [ring + 31, 7] : [ring + ((i + 1) % 60)]);
  roots.push(ring + 45, ...extraRoots);
  const r = rng(seed);
  return { name, refs, roots, young: refs.map(() => r() < youngShare) };
}

/** `packed`: sable with objects back to back in id order (layoutSable's packed form). */
async function markOnce(engine: Engine, g: ObjectGraph, kind: 'young' | 'full', options: string | Partial<GpuOptions>, form: 'sable' | 'refgraph' | 'packed' = 'sable') {
  const layout = form === 'refgraph' ? 'refgraph' : 'sable';
  const heap = layout === 'sable' ? layoutSable(g, 1, form === 'packed') : layoutRefgraph(g);
  const marker = new GpuMarker({
    engine,
    input:
      layout === 'sable'
        ? { layout, words: heap.words }
        : { layout, words: heap.words, graphs: () => heap.graphs! },
    options,
  });
  try {
    const req = request(g, kind, heap.addr, heap.youngRange);
    const res = await marker.mark(req);
    const want = expectedMarks(g, req, heap.addr);
    expect(bitmapSet(res.bitmap)).toEqual(want);
    if (kind === 'young') expect([...res.live!].sort((a, b) => a - b)).toEqual([...want].sort((a, b) => a - b));
    // -2: the frontier ring overflowed and the CPU marked everything, which the
    // queue's sizing rules out on these heaps.
    expect(marker.lastStats!.fallbackFrontier).not.toBe(-2);
    return { res, stats: marker.lastStats! };
  } finally {
    marker.dispose();
  }
}

describe('gpu-dfs: every combination of +A +H +D +V', () => {
  const g = mixed();
  for (let bits = 0; bits < 16; bits++) {
    const names = ['atomic', 'hybrid', 'balance', 'vector'].filter((_, i) => bits & (1 << i));
    const spec = names.length === 0 ? 'none' : names.join(',');
    it(spec, async () => {
      await markOnce('gpu-dfs', g, 'full', spec);
      if (bits === 0 || bits === 15) await markOnce('gpu-dfs', g, 'young', spec);
    });
  }
});

describe('gpu-dfs: wide objects spread over the grid (+W)', () => {
  for (const spec of ['divergence', 'divergence,vector', 'divergence,hybrid,balance', 'all']) {
    it(spec, async () => {
      await markOnce('gpu-dfs', mixed(), 'full', spec);
      await markOnce('gpu-dfs', wide(5000), 'full', spec, 'refgraph');
      await markOnce('gpu-dfs', mixed(), 'young', spec, 'refgraph');
    });
  }
});

describe('gpu-bfs: offsets, divergence, vector, atomic', () => {
  const g = mixed();
  for (const offsets of ['histogram', 'prefix'] as const) {
    for (const divergence of [false, true]) {
      for (const vector of [false, true]) {
        it(`${offsets} divergence=${divergence} vector=${vector}`, async () => {
          const o = { offsets, divergence, vector, atomic: true, fallback: false };
          await markOnce('gpu-bfs', g, 'full', o);
          await markOnce('gpu-bfs', g, 'young', o, 'refgraph');
        });
      }
    }
  }
  it('none (Maas baseline) and without the atomic optimization', async () => {
    await markOnce('gpu-bfs', g, 'full', 'none');
    await markOnce('gpu-bfs', g, 'young', 'all,-atomic');
  });
});

describe('gpu-bfs CPU fallback (Maas §5.4)', () => {
  it('a long list falls back after the minimum iterations and is correct', async () => {
    const { stats } = await markOnce('gpu-bfs', list(400), 'full', 'all');
    expect(stats.fallbackFrontier).toBeGreaterThan(0);
    expect(stats.rounds).toBe(5);
  });
  it('with the fallback off the GPU finishes the list', async () => {
    const { stats } = await markOnce('gpu-bfs', list(400), 'full', 'all,-fallback');
    expect(stats.fallbackFrontier).toBe(-1);
    expect(stats.rounds).toBeGreaterThanOrEqual(400);
  });
  it('threshold and minimum iterations are settable', async () => {
    const a = await markOnce('gpu-bfs', binaryTree(9), 'full', 'all,threshold=1000,min-iters=3');
    expect(a.stats.rounds).toBe(3);
    expect(a.stats.fallbackFrontier).toBe(8);
    const b = await markOnce('gpu-bfs', binaryTree(9), 'full', 'all,threshold=1000,min-iters=6');
    expect(b.stats.rounds).toBe(6);
  });
  it('young collections fall back correctly (live list merged)', async () => {
    const g = list(300);
    const { stats } = await markOnce('gpu-bfs', { ...g, young: g.refs.map((_, i) => i > 20) , roots: [0, 25] }, 'young', 'all', 'refgraph');
    expect(stats.fallbackFrontier).toBeGreaterThan(0);
    await markOnce('gpu-bfs', { ...g, young: g.refs.map((_, i) => i > 20), roots: [0, 25] }, 'young', 'all');
  });
});

describe('gpu-dfs: pointer-chase steps (chain=)', () => {
  it('a chase step costs 1/chain of a step of the round budget', async () => {
    // 64 lists of 600, one head per thread: every expansion is a chase. At 16
    // steps a round the lists take 38 rounds (submits of 4, 8, 16, 32 rounds
    // after the roots' one: 61 dispatched); at 16 x 4 chase steps, 10 (13).
    // (broad-chain= pinned to chain=: 64 busy threads make every round broad.)
    const g = parallelLists(64, 600);
    const one = await markOnce('gpu-dfs', g, 'full', 'all,-fallback,steps=16,chain=1,broad-chain=1');
    const four = await markOnce('gpu-dfs', g, 'full', 'all,-fallback,steps=16,chain=4,broad-chain=4');
    expect(one.stats.rounds).toBe(61);
    expect(four.stats.rounds).toBe(13);
    await markOnce('gpu-dfs', g, 'young', 'all,-fallback,steps=16,chain=4,broad-chain=4');
  });
  it('the chase loop (chase=loop) charges each node a chase step, as chase=step does', async () => {
    // chase() marks node after node inside one expansion; the round budget
    // must still bound it by nodes, so both modes take the same rounds.
    const g = parallelLists(64, 600);
    for (const chase of ['loop', 'step']) {
      const r = await markOnce('gpu-dfs', g, 'full', `all,-fallback,steps=16,chain=4,broad-chain=4,chase=${chase}`);
      expect(r.stats.rounds).toBe(13);
      await markOnce('gpu-dfs', g, 'young', `all,-fallback,steps=16,chain=4,broad-chain=4,chase=${chase}`);
    }
  });
  it('chases that end in branching nodes, shared tails and cycles mark the same under both modes', async () => {
    const merged = mergingChains('merging chains', [], 7, 0.8);
    for (const chase of ['loop', 'step']) {
      for (const spec of [`all,chase=${chase}`, `all,-atomic,chase=${chase}`, `all,chain=1,broad-chain=1,chase=${chase}`]) {
        await markOnce('gpu-dfs', merged, 'young', spec);
        await markOnce('gpu-dfs', merged, 'full', spec);
      }
    }
    // The default (loop) runs every other test of these files.
    await markOnce('gpu-dfs', mixed(), 'young', 'all,chase=step');
  });
  it('rounds with more busy threads than the threshold take the broad discount', async () => {
    // 64 chases > threshold 20: 16 x 16 chase steps a round, so the lists end
    // in the first submit (5 rounds dispatched); with threshold=64 every round
    // is narrow again, as at broad-chain=4 above.
    const g = parallelLists(64, 600);
    const broad = await markOnce('gpu-dfs', g, 'full', 'all,-fallback,steps=16,chain=4');
    expect(broad.stats.rounds).toBe(5);
    const narrow = await markOnce('gpu-dfs', g, 'full', 'all,-fallback,steps=16,chain=4,threshold=64');
    expect(narrow.stats.rounds).toBe(13);
    await markOnce('gpu-dfs', g, 'young', 'all,steps=16');
  });
  it('branching work is charged whole steps: marks are the same at any chain', async () => {
    for (const spec of ['all,chain=1', 'all,chain=64', 'none,chain=64']) {
      await markOnce('gpu-dfs', binaryTree(11), 'full', spec);
      await markOnce('gpu-dfs', mixed(), 'young', spec);
      await markOnce('gpu-dfs', mixed(), 'full', spec, 'refgraph');
    }
  });
});

describe('gpu-dfs: chases that mark ahead of their loads (ahead=)', () => {
  // Chains of consecutive ids lie at one stride in the packed layout: every
  // guess there is right. The default layout puts scalars and junk between
  // objects, so there guesses mostly miss; both must mark the same.
  /** m lists of len nodes whose links run to the next id (up) or the previous one (down). */
  function lists(m: number, len: number, dir: 'up' | 'down'): ObjectGraph {
    const refs: number[][] = [];
    const roots: number[] = [];
    for (let l = 0; l < m; l++) {
      const base = refs.length;
      for (let i = 0; i < len; i++) {
        const to = dir === 'up' ? (i + 1 < len ? base + i + 1 : -1) : i > 0 ? base + i - 1 : -1;
        refs.push([to]);
      }
      roots.push(dir === 'up' ? base : base + len - 1);
    }
    return { name: `lists(${m}x${len},${dir})`, refs, roots, young: refs.map(() => true) };
  }
  it('lists laid out at one stride, up or down the heap: nodes after the first of a run come from guesses', async () => {
    for (const dir of ['up', 'down'] as const) {
      const g = lists(40, 300, dir);
      for (const kind of ['young', 'full'] as const) {
        const { stats } = await markOnce('gpu-dfs', g, kind, 'all', 'packed');
        // Runs of 8: 7 of every 8 nodes of a chase, less each list's first run.
        expect(stats.chasedAhead).toBeGreaterThan(40 * 300 * 0.8);
        const one = await markOnce('gpu-dfs', g, kind, 'all,ahead=1', 'packed');
        expect(one.stats.chasedAhead).toBe(0);
      }
    }
  });
  it('two lists interleaved node by node lie at twice the stride, and are guessed too', async () => {
    const refs: number[][] = [];
    for (let i = 0; i < 600; i++) refs.push([i + 2 < 600 ? i + 2 : -1]);
    const g: ObjectGraph = { name: 'interleaved lists', refs, roots: [0, 1], young: refs.map(() => true) };
    const { stats } = await markOnce('gpu-dfs', g, 'young', 'all,-fallback', 'packed');
    expect(stats.chasedAhead).toBeGreaterThan(500);
  });
  it('guesses that miss (objects of mixed sizes between the nodes) mark the same', async () => {
    const g = lists(40, 300, 'down');
    for (const ahead of [2, 3, 8]) {
      await markOnce('gpu-dfs', g, 'young', `all,ahead=${ahead}`);
      await markOnce('gpu-dfs', g, 'full', `all,ahead=${ahead}`);
    }
  });
  it('runs that reach nodes other threads marked, shared tails, cycles and branching nodes mark the same', async () => {
    // Packed, so that guesses run across the chains' joins; one more root
    // in the middle of the tail.
    const g = mergingChains('merging chains, packed', [2000 + 200], 11, 0.85);
    for (const spec of ['all,ahead=2', 'all,ahead=3', 'all', 'all,-atomic', 'all,steps=4,chain=1,broad-chain=1']) {
      await markOnce('gpu-dfs', g, 'young', spec, 'packed');
      await markOnce('gpu-dfs', g, 'full', spec, 'packed');
    }
  });
  it('the round budget still counts nodes: a run never marks past it', async () => {
    // As 'the chase loop charges each node a chase step' above, with every guess right.
    const g = parallelLists(64, 600);
    for (const ahead of [1, 8]) {
      const r = await markOnce('gpu-dfs', g, 'full', `all,-fallback,steps=16,chain=4,broad-chain=4,ahead=${ahead}`, 'packed');
      expect(r.stats.rounds).toBe(13);
    }
  });
});

describe('gpu-dfs: load balancing (+D)', () => {
  it('idle threads take a tree from its one root: fewer rounds than without', async () => {
    // Without stealing one thread expands all of it, at most `steps` nodes a
    // round; with it, the spilled subtrees spread over the idle threads (which
    // scan only while some thread ended the last round with a global stack).
    const g = binaryTree(12);
    const spec = 'all,-fallback,-divergence,steps=16';
    const alone = await markOnce('gpu-dfs', g, 'full', `${spec},-balance`);
    const shared = await markOnce('gpu-dfs', g, 'full', spec);
    expect(alone.stats.rounds).toBeGreaterThanOrEqual(Math.floor((2 ** 12 - 1) / 16));
    expect(shared.stats.rounds * 4).toBeLessThan(alone.stats.rounds);
  });
  it('lists whose chases keep their one node leave nothing to steal, and mark the same', async () => {
    await markOnce('gpu-dfs', parallelLists(40, 300), 'full', 'all,-fallback');
    await markOnce('gpu-dfs', parallelLists(40, 300), 'young', 'all,-fallback,chase=step');
  });
});

describe('the young live list handed out as the mapped read-back', () => {
  it('young marks of growing, shrinking and equal live sets on one marker', async () => {
    // Each young list is the read-back buffer's mapped range, unmapped when the
    // next young mark reads its own (the buffer grows for the second mark).
    const g0 = parallelLists(48, 120);
    const g: ObjectGraph = { ...g0, young: g0.refs.map(() => true) };
    const heap = layoutSable(g);
    const all = request(g, 'young', heap.addr, heap.youngRange);
    const marker = new GpuMarker({ engine: 'gpu-dfs', input: { layout: 'sable', words: heap.words }, options: 'all' });
    try {
      // 1, 48 and 8 lists of 120 objects.
      for (const n of [1, 48, 48, 8, 8, 48]) {
        const req = { ...all, roots: all.roots.slice(0, n) };
        const res = await marker.mark(req);
        const want = expectedMarks(g, req, heap.addr);
        expect(want.size).toBe(n * 120);
        expect([...res.live!].sort((a, b) => a - b)).toEqual([...want].sort((a, b) => a - b));
        expect(bitmapSet(res.bitmap)).toEqual(want);
      }
    } finally {
      marker.dispose();
    }
  });
});

describe('gpu-dfs: idle threads scan the occupied young spaces only (areas=occupied)', () => {
  it('young marks with the work in two object ranges, stolen from one root', async () => {
    const g = binaryTree(13);
    const heap = layoutSable(g);
    const [ys, ye] = heap.youngRange;
    // Objects lie below ys (old) and in [ys, ye); the young part is handed
    // over as two ranges, as eden and a survivor space would be.
    const mid = ys + ((ye - ys) >> 1);
    const ranges = [0, ys, ys, mid, mid, ye];
    for (const spec of ['all,areas=occupied', 'all,scan=4,areas=occupied', 'atomic,hybrid,balance,areas=occupied', 'all']) {
      const marker = new GpuMarker({ engine: 'gpu-dfs', input: { layout: 'sable', words: heap.words, objectRanges: () => ranges }, options: spec });
      try {
        for (const kind of ['young', 'full'] as const) {
          const req = request(g, kind, heap.addr, heap.youngRange);
          const res = await marker.mark(req);
          const want = expectedMarks(g, req, heap.addr);
          expect(bitmapSet(res.bitmap)).toEqual(want);
          if (kind === 'young') expect([...res.live!].sort((a, b) => a - b)).toEqual([...want].sort((a, b) => a - b));
        }
      } finally {
        marker.dispose();
      }
    }
  });
});

describe('gpu-dfs CPU fallback for narrow tails (+F, our addition)', () => {
  it('a long list falls back after the minimum rounds and is correct', async () => {
    const { stats } = await markOnce('gpu-dfs', list(12000), 'full', 'all');
    expect(stats.fallbackFrontier).toBeGreaterThan(0);
    // Three submits (4, 8 and 16 rounds after the roots' one) saw one busy thread:
    // 12000 nodes would take ~47 rounds (64 steps a round, a chase step a quarter of one).
    expect(stats.rounds).toBe(29);
    expect(stats.phases.cpu).toBeGreaterThanOrEqual(0);
  });
  it('refgraph, and young collections with the live list merged', async () => {
    const g = list(12000);
    const y = { ...g, young: g.refs.map((_, i) => i > 20), roots: [0, 25] };
    expect((await markOnce('gpu-dfs', g, 'full', 'all', 'refgraph')).stats.fallbackFrontier).toBeGreaterThan(0);
    // In address order (the default) the kernels keep no list: the CPU reads
    // it off the bitmap once it has finished; in mark order it appends to the GPU's.
    const ordered = await markOnce('gpu-dfs', y, 'young', 'all');
    expect(ordered.stats.fallbackFrontier).toBeGreaterThan(0);
    const live = [...ordered.res.live!];
    expect(live).toEqual([...live].sort((a, b) => a - b));
    expect((await markOnce('gpu-dfs', y, 'young', 'all,order=mark')).stats.fallbackFrontier).toBeGreaterThan(0);
    expect((await markOnce('gpu-dfs', y, 'young', 'all', 'refgraph')).stats.fallbackFrontier).toBeGreaterThan(0);
  });
  it('a list hanging off a tree: pending nodes of several threads', async () => {
    const t = binaryTree(8);
    const l = list(4000);
    const n = t.refs.length;
    const refs = [...t.refs.map((rs) => [...rs]), ...l.refs.map((rs) => rs.map((x) => (x < 0 ? -1 : x + n)))];
    // Every leaf of the tree points into the list at a different place.
    let k = 0;
    for (const rs of refs.slice(0, n)) if (rs.every((x) => x < 0)) rs.push(n + (k++ * 37) % 4000);
    const g = { name: 'tree+list', refs, roots: [0], young: refs.map((_, i) => i % 3 !== 0) };
    await markOnce('gpu-dfs', g, 'full', 'all');
    await markOnce('gpu-dfs', g, 'young', 'all');
    await markOnce('gpu-dfs', g, 'full', 'all,threshold=100000,min-iters=1');
    await markOnce('gpu-dfs', g, 'young', 'all,threshold=100000,min-iters=1', 'refgraph');
  });
  it('off (-fallback, none) the GPU finishes; wide work never falls back', async () => {
    expect((await markOnce('gpu-dfs', list(600), 'full', 'all,-fallback')).stats.fallbackFrontier).toBe(-1);
    expect((await markOnce('gpu-dfs', list(600), 'full', 'none')).stats.fallbackFrontier).toBe(-1);
    expect((await markOnce('gpu-dfs', parallelLists(512, 40), 'full', 'all')).stats.fallbackFrontier).toBe(-1);
  });
  it('a marker reused after a fallback clears the stack it left', async () => {
    const g = list(12000);
    const heap = layoutSable(g);
    const marker = new GpuMarker({ engine: 'gpu-dfs', input: { layout: 'sable', words: heap.words } });
    try {
      for (const opts of ['full', 'young', 'full'] as const) {
        const req = request(g, opts, heap.addr, heap.youngRange);
        const res = await marker.mark(req);
        expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, req, heap.addr));
      }
      expect(marker.lastStats!.fallbackFrontier).toBeGreaterThan(0);
    } finally {
      marker.dispose();
    }
  });
});

describe('gpu-dfs load balancing (FastCollect §4.2)', () => {
  it('spreads one deep tree over idle threads', async () => {
    const g = binaryTree(13);
    const alone = await markOnce('gpu-dfs', g, 'full', 'atomic,hybrid,vector');
    const shared = await markOnce('gpu-dfs', g, 'full', 'all');
    // Without load balancing one thread expands all 8191 nodes, a step budget per round.
    expect(shared.stats.rounds * 4).toBeLessThan(alone.stats.rounds);
  });
});

describe('large root sets go through the staging ring', () => {
  it('a young collection with 200,000 remembered-set roots (duplicates) marks exactly', async () => {
    const g = generational(3000, 3, 5);
    const heap = layoutSable(g);
    const marker = new GpuMarker({ engine: 'gpu-dfs', input: { layout: 'sable', words: heap.words } });
    const bfs = new GpuMarker({ engine: 'gpu-bfs', input: { layout: 'sable', words: heap.words } });
    try {
      const base = request(g, 'young', heap.addr, heap.youngRange);
      const roots = new Int32Array(200_000);
      for (let i = 0; i < roots.length; i++) roots[i] = base.roots[i % base.roots.length]!;
      const req = { ...base, roots };
      for (const m of [marker, bfs]) {
        const res = await m.mark(req);
        expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, base, heap.addr));
        expect(res.times.uploadBytes).toBe(heap.words.length * 4 + roots.length * 4);
      }
    } finally {
      marker.dispose();
      bfs.dispose();
    }
  });
});

describe('heap mirror over several bindings', () => {
  const g = generational(1200, 3, 41);
  for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
    for (const vector of [false, true]) {
      it(`${engine} vector=${vector}, 4096-word chunks`, async () => {
        const heap = layoutSable(g);
        expect(heap.words.length).toBeGreaterThan(2 * 4096);
        await markOnce(engine, g, 'full', { vector, chunkWords: 4096 });
        await markOnce(engine, g, 'young', { vector, chunkWords: 4096 });
      });
    }
  }
});

describe('markers reused across collections', () => {
  for (const engine of ['gpu-dfs', 'gpu-bfs'] as const) {
    it(`${engine} sable: young, full, young with dirty ranges`, async () => {
      const g = generational(1000, 3, 77);
      const heap = layoutSable(g);
      let dirty = 'all' as number[] | 'all';
      const marker = new GpuMarker({
        engine,
        input: {
          layout: 'sable',
          words: heap.words,
          takeDirtyRanges: () => {
            const d = dirty;
            dirty = [];
            return d;
          },
        },
      });
      const r = rng(5);
      try {
        for (let round = 0; round < 4; round++) {
          const kind = round % 2 === 0 ? 'young' : 'full';
          const req = request(g, kind, heap.addr, heap.youngRange);
          const res = await marker.mark(req);
          expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, req, heap.addr));
          // uploadBytes counts the mirror's words and the roots.
          if (round === 0) expect(res.times.uploadBytes).toBe(heap.words.length * 4 + req.roots.length * 4);
          else expect(res.times.uploadBytes!).toBeLessThan(heap.words.length * 2);
          // The mutator rewires some references; the barrier reports the words.
          for (let k = 0; k < 40; k++) {
            const i = Math.floor(r() * g.refs.length);
            const rs = g.refs[i]!;
            if (rs.length === 0) continue;
            const slot = Math.floor(r() * rs.length);
            const t = r() < 0.2 ? -1 : Math.floor(r() * g.refs.length);
            rs[slot] = t;
            const w = heap.addr[i]! + 4 + slot;
            heap.words[w] = t < 0 ? 0 : heap.addr[t]!;
            (dirty as number[]).push(w, w + 1);
          }
        }
      } finally {
        marker.dispose();
      }
    });

    it(`${engine} refgraph: edges rewritten between collections`, async () => {
      const g = generational(800, 3, 13);
      const heap = layoutRefgraph(g);
      const graphs = heap.graphs!;
      let dirtyEdges: number[] = [];
      const marker = new GpuMarker({
        engine,
        input: {
          layout: 'refgraph',
          words: heap.words,
          graphs: () => graphs,
          takeDirtyGraphs: () => {
            const d = { youngVertices: [], tenuredVertices: [], youngEdges: dirtyEdges, tenuredEdges: [] };
            dirtyEdges = [];
            return d;
          },
        },
      });
      const r = rng(8);
      const youngIds = g.refs.map((_, i) => i).filter((i) => g.young[i]);
      try {
        for (let round = 0; round < 3; round++) {
          const req = request(g, round === 1 ? 'full' : 'young', heap.addr, heap.youngRange);
          const res = await marker.mark(req);
          expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, req, heap.addr));
          // Rewire young objects' edges to other young objects.
          for (let k = 0; k < 30; k++) {
            const i = youngIds[Math.floor(r() * youngIds.length)]!;
            const rs = g.refs[i]!;
            if (rs.length === 0) continue;
            const slot = Math.floor(r() * rs.length);
            const t = youngIds[Math.floor(r() * youngIds.length)]!;
            rs[slot] = t;
            const v = heap.words[heap.addr[i]! + 2]!;
            const e = vertexFirst(graphs.young.vertices, v) + slot;
            graphs.young.edges[e] = heap.words[heap.addr[t]! + 2]! + 1;
            dirtyEdges.push(e, e + 1);
          }
        }
      } finally {
        marker.dispose();
      }
    });
  }

  it('gpu-dfs sable: the first update uploads only the ranges given (the mirror starts zeroed)', async () => {
    const g = generational(600, 3, 21);
    const heap = layoutSable(g);
    // A heap three times as large as its objects: only the objects are written.
    const words = new Int32Array(heap.words.length * 3);
    words.set(heap.words);
    let used = 0;
    for (let i = words.length - 1; i >= 0; i--) if (words[i] !== 0) { used = i + 1; break; }
    const marker = new GpuMarker({
      engine: 'gpu-dfs',
      input: { layout: 'sable', words, takeDirtyRanges: () => [0, used] },
    });
    try {
      const req = request(g, 'full', heap.addr, heap.youngRange);
      const res = await marker.mark(req);
      expect(res.times.uploadBytes).toBe(used * 4 + req.roots.length * 4);
      expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, req, heap.addr));
    } finally {
      marker.dispose();
    }
  });

  it('gpu-dfs sable: changes pushed with update() before the mark', async () => {
    const g = generational(600, 3, 12);
    const heap = layoutSable(g);
    const marker = new GpuMarker({ engine: 'gpu-dfs', input: { layout: 'sable', words: heap.words } });
    try {
      const req = request(g, 'full', heap.addr, heap.youngRange);
      expect(bitmapSet((await marker.mark(req)).bitmap)).toEqual(expectedMarks(g, req, heap.addr));
      // Cut every reference of the first root: it alone stays marked among its referents.
      const root = g.roots[0]!;
      const a = heap.addr[root]!;
      g.refs[root] = g.refs[root]!.map(() => -1);
      heap.words.fill(0, a + 4, a + 4 + g.refs[root]!.length);
      const pushed = await marker.update([a + 4, a + 4 + g.refs[root]!.length]);
      const res = await marker.mark(req);
      expect(res.times.uploadBytes).toBe(pushed.bytes + req.roots.length * 4);
      expect(pushed.bytes).toBeLessThan(4096);
      expect(bitmapSet(res.bitmap)).toEqual(expectedMarks(g, req, heap.addr));
    } finally {
      marker.dispose();
    }
  });
});
