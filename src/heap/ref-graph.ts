/**
 * The reference graphs of the refgraph layout (FastCollect section 3.1): placeholder
 * until the graphs are implemented.
 */

import type { HeapImpl } from './heap.js';

export class RefGraph {
  edgeWrites = 0;
  vertexAppends = 0;
  constructor(_heap: HeapImpl) {
    throw new Error('refgraph layout: not implemented yet');
  }
  addVertex(_a: number, _edges: number): number {
    return 0;
  }
  writeEdge(_obj: number, _edge: number, _value: number): void {}
  verify(_headers: Uint32Array): void {}
  bytesInUse(): number {
    return 0;
  }
}
