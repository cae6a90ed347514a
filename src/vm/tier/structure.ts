/**
 * Structured control flow for the compiled tier: the nesting of JavaScript loops
 * and labeled blocks that expresses a function's basic blocks without a dispatch
 * (the "stackifier" of LLVM's WebAssembly back end, for the reducible flow graphs
 * the mini compiler emits). A block of code order k runs where the scopes opened
 * before it say; a jump back to a loop head is `continue L<head>`, a jump forward
 * is `break B<target>` out of a labeled block that ends just before the target,
 * and falling into the next block needs nothing unless a loop ends in between.
 * V8 then sees each mini loop as its own JavaScript loop, instead of one loop
 * around a switch whose every branch goes back through the dispatch.
 */

import { Op } from '../../bytecode/opcodes.js';
import type { Analysis } from './analyze.js';

export interface Scope {
  readonly kind: 'loop' | 'block';
  /** The first block inside, and the block after the last one inside. */
  readonly start: number;
  readonly end: number;
}

export interface Structure {
  /** Scopes opened before each block, outermost first. */
  readonly opening: Scope[][];
  /** How to go from block `from` to block `to` (a jump, or falling through when
   *  `to` is the next block): a statement, or '' where control gets there by itself. */
  goto(from: number, to: number): string;
}

/** Deeper nesting than this keeps the dispatch loop: V8's parser recurses per level, and
 *  mini's 1,000 levels of loops with breaks nest twice as deep in JavaScript. */
const MAX_NESTING = 500;

/** How many scopes enclose the most deeply nested block. */
function deepestNesting(scopes: readonly Scope[]): number {
  const events: [number, number][] = [];
  for (const s of scopes) events.push([s.start, 1], [s.end, -1]);
  // At the same block, scopes that end there close before others open.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let depth = 0, deepest = 0;
  for (const [, d] of events) deepest = Math.max(deepest, (depth += d));
  return deepest;
}

const JUMPS = new Set<number>([Op.JMP, Op.JMPF, Op.JMPT]);
const ENDS = new Set<number>([Op.JMP, Op.RET, Op.RET_V, Op.RET_R]);

/** The scopes of a function's blocks from block `entry` on (a loop head where an
 *  interpreted frame enters; the blocks before it are left out), or null where that
 *  part of the flow graph is not nested as structured code makes it, or jumps back
 *  before `entry` (a loop around it): the caller then keeps the dispatch loop. */
export function structure(an: Analysis, entry = 0): Structure | null {
  const n = an.nBlocks;
  // Edges (from, to) between blocks: jumps, and falls into the next block.
  let edges: [number, number][] = [];
  let block = -1;
  let last: (typeof an.instrs)[number] | null = null;
  for (const i of an.instrs) {
    if (i.dv < 0) continue;
    const b = an.blockOf[i.pc]!;
    if (b >= 0) {
      if (last !== null && !ENDS.has(last.op)) edges.push([block, b]);
      block = b;
    }
    if (JUMPS.has(i.op)) edges.push([block, an.blockOf[i.next + i.a]!]);
    last = i;
  }
  if (entry > 0) {
    edges = edges.filter(([from]) => from >= entry);
    if (edges.some(([, to]) => to < entry)) return null;
  }
  // Loops, in order of their heads: a head and the last block that jumps back to it.
  const loopEnd = new Int32Array(n).fill(-1);
  for (const [from, to] of edges) if (to <= from) loopEnd[to] = Math.max(loopEnd[to]!, from + 1);
  const loops: Scope[] = [];
  for (let h = 0; h < n; h++) if (loopEnd[h]! > 0) loops.push({ kind: 'loop', start: h, end: loopEnd[h]! });
  // They must nest: a loop that starts inside another ends inside it.
  const open: Scope[] = [];
  for (const l of loops) {
    while (open.length > 0 && open[open.length - 1]!.end <= l.start) open.pop();
    if (open.length > 0 && open[open.length - 1]!.end < l.end) return null;
    open.push(l);
  }
  // The innermost loop around each block, its head left out (inner loops come later).
  const around: (Scope | undefined)[] = new Array(n + 1);
  for (const l of loops) for (let b = l.start + 1; b < l.end; b++) around[b] = l;
  const loopEndsAt = new Uint8Array(n + 1);
  for (const l of loops) loopEndsAt[l.end] = 1;
  const falls = (from: number, to: number): boolean => to === from + 1 && loopEndsAt[to] === 0;
  // Labeled blocks: one per forward target that control cannot fall into, from its
  // earliest source, widened until it nests with every other scope.
  const firstSource = new Int32Array(n + 1).fill(-1);
  for (const [from, to] of edges) {
    if (to <= from || to >= n || falls(from, to)) continue;
    if (firstSource[to]! < 0 || from < firstSource[to]!) firstSource[to] = from;
  }
  const scopes: Scope[] = [...loops];
  // The earliest start of the blocks placed so far (all end before the next target)
  // that hold each block strictly inside.
  const heldFrom = new Int32Array(n + 1).fill(n + 1);
  for (let target = 0; target < n; target++) {
    let start = firstSource[target]!;
    if (start < 0) continue;
    for (;;) {
      // A loop around the start that ends inside this block, or where it ends (a break
      // out of the block would land at the loop's end and go round again): start with it.
      const l = around[start];
      if (l !== undefined && l.end <= target) start = l.start;
      else if (heldFrom[start]! < start) start = heldFrom[start]!;
      else break;
    }
    // A jump into a loop from outside, past its head: not structured code.
    const into = around[target];
    if (into !== undefined && start < into.start) return null;
    scopes.push({ kind: 'block', start, end: target });
    for (let b = start + 1; b < target; b++) if (start < heldFrom[b]!) heldFrom[b] = start;
  }
  if (deepestNesting(scopes) > MAX_NESTING) return null;
  const opening: Scope[][] = Array.from({ length: n }, () => []);
  for (const s of scopes) opening[s.start]!.push(s);
  // Outermost first: the later end, and a block before a loop with the same span.
  for (const o of opening) o.sort((x, y) => y.end - x.end || (x.kind === 'block' ? -1 : 1));
  return {
    opening,
    goto(from: number, to: number): string {
      if (to <= from) return `continue L${to};`;
      if (to >= n) return 'return 0;';
      return falls(from, to) ? '' : `break B${to};`;
    },
  };
}
