/**
 * The CPU side of the GPU engines: the nodes of each layout seen from the CPU,
 * and the serial trace that finishes a gpu-bfs mark whose frontier stayed
 * narrow (Maas et al. §5.4: with few entries in flight the GPU cannot hide its
 * memory latency, while the CPU's caches hold the small active part of the
 * queue). The decode rules must match kernels/layout-*.wgsl exactly.
 */
import { HEADER_WORDS } from '../../heap/object-model.js';
import { vertexAddress, vertexEdges, vertexFirst } from '../../heap/ref-graph.js';
import { sableRunEnd } from '../../heap/ref-slots.js';
import type { CpuNodes } from './job.js';
import type { RefGraphs } from '../mirror/mirror.js';

export function sableNodes(
  words: Int32Array,
  young: boolean,
  youngStart: number,
  youngEnd: number,
): CpuNodes {
  const limit = words.length;
  return {
    decode(raw: number): number {
      const r = raw >>> 0;
      if (r === 0 || r >= limit) return 0;
      if (young && (r < youngStart || r >= youngEnd)) return 0;
      return r;
    },
    refs(n: number, visit: (raw: number) => void): void {
      const end = Math.min(limit, sableRunEnd(words, n));
      for (let i = n + HEADER_WORDS; i < end; i++) visit(words[i]!);
    },
    address: (n) => n,
  };
}

export function graphNodes(graphs: RefGraphs, young: boolean): CpuNodes {
  const yn = graphs.young.vertexCount;
  const nodeCount = yn + graphs.tenured.vertexCount + 1;
  const locate = (n: number): [Uint32Array, Uint32Array, number] =>
    n - 1 < yn
      ? [graphs.young.vertices, graphs.young.edges, n - 1]
      : [graphs.tenured.vertices, graphs.tenured.edges, n - 1 - yn];
  return {
    decode(raw: number): number {
      const r = raw >>> 0;
      if (r === 0) return 0;
      if ((r & 0x80000000) === 0) return r <= yn ? r : 0;
      if (young) return 0;
      const n = yn + (r & 0x7fffffff);
      return n < nodeCount ? n : 0;
    },
    refs(n: number, visit: (raw: number) => void): void {
      const [vertices, edges, v] = locate(n);
      const first = vertexFirst(vertices, v);
      const end = first + vertexEdges(vertices, v);
      for (let i = first; i < end; i++) visit(edges[i]!);
    },
    address(n: number): number {
      const [vertices, , v] = locate(n);
      return vertexAddress(vertices, v);
    },
  };
}

/** refgraph: sets the address bit of every marked node id in [1, last]. */
export function translateOnCpu(nodes: CpuNodes, marks: Uint32Array, last: number, bitmap: Uint32Array): void {
  const words = Math.min(marks.length, (last >>> 5) + 1);
  for (let w = 0; w < words; w++) {
    let m = marks[w]!;
    while (m !== 0) {
      const b = 31 - Math.clz32(m & -m);
      m &= m - 1;
      const n = w * 32 + b;
      if (n < 1 || n > last) continue;
      const a = nodes.address(n);
      bitmap[a >>> 5] = bitmap[a >>> 5]! | (1 << (a & 31));
    }
  }
}

/** A growable list of int32, cheaper than number[] for millions of entries. */
export class IntBuf {
  data: Int32Array;
  length = 0;
  constructor(capacity = 1024) {
    this.data = new Int32Array(Math.max(16, capacity));
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * The CPU fallbacks: expands on the CPU the nodes the GPU left (gpu-dfs, our
 * addition: `pending`, marked but not yet expanded) or the reference words of
 * gpu-bfs's last frontier (`frontier`, Maas et al. section 5.4: marked here if
 * not yet), and everything they reach that is not marked in `marks` (bits by
 * node id), appending newly marked young addresses to `live`.
 */
export function expandOnCpu(
  nodes: CpuNodes,
  marks: Uint32Array,
  pending: ArrayLike<number>,
  live: IntBuf | null,
  frontier: ArrayLike<number> = [],
): void {
  const stack = new IntBuf(Math.max(1024, pending.length));
  for (let i = 0; i < pending.length; i++) stack.push(pending[i]!);
  const visit = (raw: number): void => {
    const n = nodes.decode(raw);
    if (n === 0) return;
    const w = n >>> 5;
    const bit = 1 << (n & 31);
    if ((marks[w]! & bit) !== 0) return;
    marks[w] = marks[w]! | bit;
    if (live) live.push(nodes.address(n));
    stack.push(n);
  };
  for (let i = 0; i < frontier.length; i++) visit(frontier[i]!);
  while (stack.length > 0) nodes.refs(stack.data[--stack.length]!, visit);
}

/** `expandOnCpu` for the sable layout, without closures: node ids are header
 *  addresses, and each object's references are one run (heap/ref-slots.ts). */
export function expandSableOnCpu(
  words: Int32Array,
  marks: Uint32Array,
  pending: ArrayLike<number>,
  young: boolean,
  youngStart: number,
  youngEnd: number,
  live: IntBuf | null,
): void {
  const limit = words.length;
  const lo = Math.max(1, young ? youngStart : 1);
  const hi = young ? youngEnd : limit;
  let stack = new Int32Array(Math.max(1024, pending.length * 2));
  let sp = 0;
  for (let i = 0; i < pending.length; i++) stack[sp++] = pending[i]!;
  while (sp > 0) {
    const n = stack[--sp]!;
    const end = Math.min(limit, sableRunEnd(words, n));
    for (let i = n + HEADER_WORDS; i < end; i++) {
      const r = words[i]!;
      if (r < lo || r >= hi) continue;
      const w = r >>> 5;
      const bit = 1 << (r & 31);
      const m = marks[w]!;
      if ((m & bit) !== 0) continue;
      marks[w] = m | bit;
      if (live) live.push(r);
      if (sp === stack.length) {
        const next = new Int32Array(stack.length * 2);
        next.set(stack);
        stack = next;
      }
      stack[sp++] = r;
    }
  }
}
