/**
 * Test heaps for the GPU markers: abstract object graphs (shapes from both seed
 * papers' microbenchmarks plus random ones), laid out as a sable heap or as a
 * refgraph heap with its CSR graphs, and an independent CPU reference trace.
 */
import type { MarkRequest, Marker, MarkResult } from '../../src/gc/marker.js';
import type { CsrGraph, RefGraphs } from '../../src/gpu/mirror/mirror.js';
import { VERTEX_ADDRESS, VERTEX_FIRST, VERTEX_WORDS, vertexWordsInUse } from '../../src/heap/ref-graph.js';
import { rng } from '../gc/helpers.js';

export { rng };

/** Objects 0..n-1 with their references (-1 = null) and generation. */
export interface ObjectGraph {
  readonly refs: number[][];
  readonly young: boolean[];
  readonly roots: number[];
  readonly name: string;
}


function graph(name: string, refs: number[][], roots: number[], young?: boolean[]): ObjectGraph {
  return { name, refs, roots, young: young ?? refs.map(() => false) };
}

export function list(n: number): ObjectGraph {
  return graph(`list(${n})`, Array.from({ length: n }, (_, i) => (i + 1 < n ? [i + 1] : [-1])), [0]);
}

export function parallelLists(m: number, len: number): ObjectGraph {
  const refs: number[][] = [];
  const roots: number[] = [];
  for (let l = 0; l < m; l++) {
    roots.push(refs.length);
    for (let i = 0; i < len; i++) refs.push(i + 1 < len ? [refs.length + 1] : [-1]);
  }
  return graph(`parallelLists(${m}x${len})`, refs, roots);
}

export function binaryTree(depth: number): ObjectGraph {
  const n = 2 ** depth - 1;
  return graph(
    `binaryTree(${depth})`,
    Array.from({ length: n }, (_, i) => (2 * i + 2 < n ? [2 * i + 1, 2 * i + 2] : [])),
    [0],
  );
}

/** One object referencing `k` leaves (Maas's "Very Wide Object"), some refs null. */
export function wide(k: number): ObjectGraph {
  const refs: number[][] = [Array.from({ length: k }, (_, i) => (i % 97 === 5 ? -1 : i + 1))];
  for (let i = 0; i < k; i++) refs.push([]);
  return graph(`wide(${k})`, refs, [0]);
}

export function cycle(n: number): ObjectGraph {
  return graph(`cycle(${n})`, Array.from({ length: n }, (_, i) => [(i + 1) % n]), [Math.floor(n / 2)]);
}

/** FastCollect's CompleteGraph: every node references every other; a few roots. */
export function complete(n: number, roots: number): ObjectGraph {
  return graph(
    `complete(${n})`,
    Array.from({ length: n }, (_, i) => Array.from({ length: n - 1 }, (_, j) => (j < i ? j : j + 1))),
    Array.from({ length: roots }, (_, i) => (i * 7) % n),
  );
}

export function randomDag(n: number, deg: number, seed: number): ObjectGraph {
  const r = rng(seed);
  const refs = Array.from({ length: n }, (_, i) => {
    const k = Math.floor(r() * (2 * deg + 1));
    return Array.from({ length: k }, () => (i + 1 < n && r() > 0.1 ? i + 1 + Math.floor(r() * (n - i - 1)) : -1));
  });
  return graph(`randomDag(${n},${deg},${seed})`, refs, [0, Math.floor(n / 3)]);
}

/** Random graph with cycles and shared referents; unreachable parts included. */
export function randomGraph(n: number, deg: number, roots: number, seed: number): ObjectGraph {
  const r = rng(seed);
  const refs = Array.from({ length: n }, () => {
    const k = r() < 0.02 ? 20 + Math.floor(r() * 60) : Math.floor(r() * (2 * deg + 1));
    return Array.from({ length: k }, () => (r() < 0.1 ? -1 : Math.floor(r() * n)));
  });
  return graph(
    `randomGraph(${n},${deg},${seed})`,
    refs,
    Array.from({ length: roots }, () => Math.floor(r() * n)),
  );
}

/** Random young+tenured mixture: references in both directions, roots in both. */
export function generational(n: number, deg: number, seed: number): ObjectGraph {
  const g = randomGraph(n, deg, Math.max(2, n >> 6), seed);
  const r = rng(seed ^ 0x5bd1e995);
  return { ...g, name: `generational(${n},${deg},${seed})`, young: g.refs.map(() => r() < 0.5) };
}

/** The shapes the engine tests mark in full collections, on either layout. */
export function fullShapes(): ObjectGraph[] {
  return [
    list(300),
    parallelLists(40, 25),
    binaryTree(10),
    wide(3000),
    cycle(100),
    complete(40, 3),
    randomDag(800, 3, 7),
    randomGraph(1500, 3, 10, 11),
    generational(1500, 3, 5),
  ];
}

/** The request a generational plan would make: for young, the interpreter roots
 *  plus the remembered set (young objects referenced from tenured ones). */
export function request(g: ObjectGraph, kind: 'young' | 'full', addr: number[], range: [number, number]): MarkRequest {
  const roots = g.roots.map((i) => addr[i]!);
  if (kind === 'young') {
    g.refs.forEach((rs, i) => {
      if (g.young[i]) return;
      for (const t of rs) if (t >= 0 && g.young[t]) roots.push(addr[t]!);
    });
  }
  return { roots: Int32Array.from(roots), kind, youngStart: range[0], youngEnd: range[1] };
}

/** The reference trace: addresses of the objects a correct marker marks. */
export function expectedMarks(g: ObjectGraph, req: MarkRequest, addr: number[]): Set<number> {
  const index = new Map(addr.map((a, i) => [a, i]));
  const young = req.kind === 'young';
  const traced = (i: number): boolean => !young || g.young[i]!;
  const seen = new Set<number>();
  const work: number[] = [];
  for (const a of req.roots) {
    const i = index.get(a)!;
    if (traced(i) && !seen.has(i)) {
      seen.add(i);
      work.push(i);
    }
  }
  while (work.length > 0) {
    for (const t of g.refs[work.pop()!]!) {
      if (t >= 0 && traced(t) && !seen.has(t)) {
        seen.add(t);
        work.push(t);
      }
    }
  }
  return new Set([...seen].map((i) => addr[i]!));
}

/** One `kind` collection of g laid out as `heap`: the marker's result and the
 *  addresses a correct marker marks (the reference trace). */
export async function markAndTrace(
  marker: Pick<Marker, 'mark'>,
  g: ObjectGraph,
  kind: 'young' | 'full',
  heap: LaidOut,
): Promise<{ res: MarkResult; want: Set<number> }> {
  const req = request(g, kind, heap.addr, heap.youngRange);
  const res = await marker.mark(req);
  return { res, want: expectedMarks(g, req, heap.addr) };
}

export function bitmapSet(bitmap: Uint32Array): Set<number> {
  const s = new Set<number>();
  for (let w = 0; w < bitmap.length; w++) {
    let m = bitmap[w]!;
    while (m !== 0) {
      const b = 31 - Math.clz32(m & -m);
      m &= m - 1;
      s.add(w * 32 + b);
    }
  }
  return s;
}

export interface LaidOut {
  readonly words: Int32Array;
  /** Address of each object's header. */
  readonly addr: number[];
  /** Young range [start, end): tenured objects come first. */
  readonly youngRange: [number, number];
  readonly graphs?: RefGraphs;
}

function order(g: ObjectGraph): number[] {
  const idx = g.refs.map((_, i) => i);
  return [...idx.filter((i) => !g.young[i]), ...idx.filter((i) => g.young[i])];
}

/** The sable layout: instances have a lead word and scalar fields left of the
 *  header (so headers are not 4-aligned); some objects are reference arrays;
 *  scalar arrays full of address-like junk are interleaved and must not be traced. */
export function layoutSable(g: ObjectGraph, seed = 1, packed = false): LaidOut {
  if (packed) return layoutPacked(g);
  const r = rng(seed);
  const words: number[] = [0, 0, 0];
  const addr = new Array<number>(g.refs.length);
  let youngStart = -1;
  const junk = (): void => {
    const len = Math.floor(r() * 6);
    const a = words.length;
    words.push(0, 9, 0, len);
    for (let i = 0; i < len; i++) words.push(4 + Math.floor(r() * a));
  };
  for (const i of order(g)) {
    if (g.young[i] && youngStart < 0) youngStart = words.length;
    if (r() < 0.2) junk();
    const n = g.refs[i]!.length;
    if (r() < 0.5) {
      const scalars = Math.floor(r() * 4);
      words.push(1 + scalars);
      for (let s = 0; s < scalars; s++) words.push(Math.floor(r() * 1000));
      addr[i] = words.length;
      words.push(0, 1, n, 0);
    } else {
      addr[i] = words.length;
      words.push(0, 2, n, n);
    }
    for (let k = 0; k < n; k++) words.push(0);
  }
  if (youngStart < 0) youngStart = words.length;
  junk();
  const youngEnd = words.length;
  return sealSable(g, words, addr, [youngStart, youngEnd]);
}

/** Fills in the sable objects' reference words (ids to addresses) and pads the heap. */
function sealSable(g: ObjectGraph, words: number[], addr: number[], youngRange: [number, number]): LaidOut {
  for (let i = 0; i < g.refs.length; i++) {
    g.refs[i]!.forEach((t, k) => (words[addr[i]! + 4 + k] = t >= 0 ? addr[t]! : 0));
  }
  words.push(0, 0, 0, 0, 0);
  return { words: Int32Array.from(words), addr, youngRange };
}

/** The sable layout as a bump allocator leaves objects allocated one after the
 *  other: headers only, no junk between them, in id order (tenured first). A
 *  chain of consecutive ids lies at one stride, as gpu-dfs's chaseAhead predicts. */
function layoutPacked(g: ObjectGraph): LaidOut {
  const words: number[] = [0, 0, 0, 0];
  const addr = new Array<number>(g.refs.length);
  let youngStart = -1;
  for (const i of order(g)) {
    if (g.young[i] && youngStart < 0) youngStart = words.length;
    addr[i] = words.length;
    const n = g.refs[i]!.length;
    words.push(0, 1, n, 0);
    for (let k = 0; k < n; k++) words.push(0);
  }
  if (youngStart < 0) youngStart = words.length;
  const youngEnd = words.length;
  return sealSable(g, words, addr, [youngStart, youngEnd]);
}

/** The refgraph layout: fields in declaration order (a+2 = vertex id in its
 *  generation) and one CSR graph per generation, edges padded to 4 words. */
export function layoutRefgraph(g: ObjectGraph, seed = 1): LaidOut {
  const r = rng(seed);
  const words: number[] = [0, 0, 0, 0];
  const addr = new Array<number>(g.refs.length);
  const vid = new Array<number>(g.refs.length);
  let youngStart = -1;
  const count = [0, 0];
  for (const i of order(g)) {
    if (g.young[i] && youngStart < 0) youngStart = words.length;
    const gen = g.young[i] ? 0 : 1;
    vid[i] = count[gen]!++;
    addr[i] = words.length;
    const n = g.refs[i]!.length;
    words.push(0, 1, vid[i]!, 0);
    const fields = n + Math.floor(r() * 3);
    for (let k = 0; k < fields; k++) words.push(0);
  }
  if (youngStart < 0) youngStart = words.length;
  const youngEnd = words.length;
  words.push(0, 0, 0, 0);
  const build = (gen: number): CsrGraph => {
    const members = order(g).filter((i) => (g.young[i] ? 0 : 1) === gen);
    // Junk past the sentinel's slot: a tracer must not read beyond it.
    const vertices = new Uint32Array(vertexWordsInUse(members.length) + 2 * VERTEX_WORDS).fill(1);
    let edgeCount = 0;
    for (const i of members) edgeCount += Math.ceil(g.refs[i]!.length / 4) * 4;
    const edges = new Uint32Array(edgeCount + 4);
    let e = 0;
    for (const i of members) {
      const o = vid[i]! * VERTEX_WORDS;
      vertices[o + VERTEX_FIRST] = e;
      vertices[o + VERTEX_ADDRESS] = addr[i]!;
      g.refs[i]!.forEach((t, k) => {
        edges[e + k] = t < 0 ? 0 : g.young[t] ? vid[t]! + 1 : (0x80000000 | (vid[t]! + 1)) >>> 0;
      });
      // The padding stays 0 (null): the derived edge count includes it.
      e += Math.ceil(g.refs[i]!.length / 4) * 4;
    }
    vertices[members.length * VERTEX_WORDS + VERTEX_FIRST] = edgeCount;
    return { vertices, vertexCount: members.length, edges, edgeCount };
  };
  return {
    words: Int32Array.from(words),
    addr,
    youngRange: [youngStart, youngEnd],
    graphs: { young: build(0), tenured: build(1) },
  };
}
