/**
 * A mark request as an engine's trace job, for each layout: sable traces the
 * heap's words by address (node id = header address), refgraph the reference
 * graphs by vertex (roots become edge values).
 */
import type { MarkRequest } from '../../gc/marker.js';
import { LAYOUT_WORD } from '../../heap/object-model.js';
import { vertexAddress } from '../../heap/ref-graph.js';
import { u32View } from '../device/buffers.js';
import type { RefGraphs } from '../mirror/mirror.js';
import { graphNodes, sableNodes } from './cpu-trace.js';
import type { TraceJob } from './job.js';

/** Heap word ranges to the mark-bitmap word ranges covering them. */
function bitmapWordRanges(ranges: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    if (ranges[i + 1]! <= ranges[i]!) continue;
    const s = Math.floor(ranges[i]! / 32);
    const e = Math.ceil(ranges[i + 1]! / 32);
    const n = out.length;
    if (n > 0 && s <= out[n - 1]!) out[n - 1] = Math.max(out[n - 1]!, e);
    else out.push(s, e);
  }
  return out;
}

/** Stack elements (sable: (address - nodeBase) / 4) of the objects in `ranges`
 *  within [ys, ye), as at most two [start, end) ranges (a third and later
 *  ranges join the second's hull). */
function stackScanRanges(ranges: readonly number[], ys: number, ye: number, nodeBase: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) {
    const lo = Math.max(ys, ranges[i]!);
    const hi = Math.min(ye, ranges[i + 1]!);
    if (hi <= lo) continue;
    const s = (lo - nodeBase) >> 2;
    const e = Math.ceil((hi - nodeBase) / 4);
    if (out.length < 4) out.push(s, e);
    else out[3] = Math.max(out[3]!, e);
  }
  if (out.length === 0) out.push(0, 0);
  return out;
}

export function sableJob(words: Int32Array, req: MarkRequest, objectRanges: number[] | undefined, occupiedAreas: boolean): TraceJob {
  const heapWords = words.length;
  const young = req.kind === 'young';
  const ys = young ? Math.max(0, req.youngStart) : 0;
  const ye = young ? Math.min(heapWords, req.youngEnd) : heapWords;
  // The linked stack covers the traced range only; its base is a multiple of 32
  // so that an element's 4 words share one bitmap word (stackIndex inverse).
  const nodeBase = ys & ~31;
  // Addresses are positive: the same words seen unsigned, not copied (a young
  // collection's remembered set can hold tens of millions of entries).
  const roots = u32View(req.roots);
  return {
    kind: req.kind,
    roots,
    resultWords: objectRanges && bitmapWordRanges(objectRanges),
    // `areas=occupied`: a young mark's idle threads scan only where young objects lie.
    scanRanges: young && occupiedAreas && objectRanges ? stackScanRanges(objectRanges, ys, ye, nodeBase) : undefined,
    heapWords,
    youngStart: ys,
    youngEnd: ye,
    nodeCount: heapWords,
    youngVertices: 0,
    liveCap: young ? Math.max(1, Math.ceil((ye - ys) / 4)) : 0,
    refBound: ye - ys,
    stackSize: Math.max(1, Math.ceil((ye - nodeBase) / 4)),
    nodeBase,
    resultStart: ys,
    resultEnd: ye,
    cpu: sableNodes(words, young, ys, ye),
    sableWords: words,
  };
}

export function graphJob(words: Int32Array, graphs: RefGraphs, req: MarkRequest): TraceJob {
  const young = req.kind === 'young';
  const yn = graphs.young.vertexCount;
  const tn = graphs.tenured.vertexCount;
  const roots = new Uint32Array(req.roots.length);
  for (let i = 0; i < req.roots.length; i++) roots[i] = rootEdge(words, graphs, req.roots[i]!);
  const hasRange = young && req.youngEnd > req.youngStart;
  return {
    kind: req.kind,
    roots,
    heapWords: words.length,
    youngStart: 0,
    youngEnd: 0,
    nodeCount: yn + tn + 1,
    youngVertices: yn,
    liveCap: young ? Math.max(1, yn) : 0,
    refBound: young ? graphs.young.edgeCount : graphs.young.edgeCount + graphs.tenured.edgeCount,
    stackSize: young ? Math.max(1, yn) : Math.max(1, yn + tn),
    nodeBase: 0,
    resultStart: hasRange ? Math.max(0, req.youngStart) : 0,
    resultEnd: hasRange ? Math.min(words.length, req.youngEnd) : words.length,
    cpu: graphNodes(graphs, young),
  };
}

/** A root address to its vertex as an edge value: the vertex id is in the
 *  header's LAYOUT_WORD, and the vertex's address field says which
 *  generation's graph holds it. */
function rootEdge(words: Int32Array, graphs: RefGraphs, a: number): number {
  const v = words[a + LAYOUT_WORD]! >>> 0;
  if (v < graphs.young.vertexCount && vertexAddress(graphs.young.vertices, v) === a) return v + 1;
  if (v < graphs.tenured.vertexCount && vertexAddress(graphs.tenured.vertices, v) === a) return (0x80000000 | (v + 1)) >>> 0;
  throw new Error(`refgraph: root ${a} has no vertex (its layout word holds ${v})`);
}
