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
  const edges: [number, number][] = [];
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
    const kept = edges.filter(([from]) => from >= entry);
    if (kept.some(([, to]) => to < entry)) return null;
    edges.splice(0, edges.length, ...kept);
  }
  // Loops: a head and the last block that jumps back to it.
  const loopEnd = new Int32Array(n).fill(-1);
  for (const [from, to] of edges) if (to <= from) loopEnd[to] = Math.max(loopEnd[to]!, from + 1);
  const scopes: Scope[] = [];
  for (let h = 0; h < n; h++) if (loopEnd[h]! > 0) scopes.push({ kind: 'loop', start: h, end: loopEnd[h]! });
  for (const a of scopes) {
    for (const b of scopes) if (a.start < b.start && b.start < a.end && a.end < b.end) return null;
  }
  const loopEndsAt = new Uint8Array(n + 1);
  for (const s of scopes) loopEndsAt[s.end] = 1;
  const falls = (from: number, to: number): boolean => to === from + 1 && loopEndsAt[to] === 0;
  // Labeled blocks: one per forward target that control cannot fall into, from its
  // earliest source, widened until it nests with every other scope.
  const firstSource = new Int32Array(n + 1).fill(-1);
  for (const [from, to] of edges) {
    if (to <= from || to >= n || falls(from, to)) continue;
    if (firstSource[to]! < 0 || from < firstSource[to]!) firstSource[to] = from;
  }
  for (let target = 0; target < n; target++) {
    let start = firstSource[target]!;
    if (start < 0) continue;
    for (let moved = true; moved; ) {
      moved = false;
      for (const s of scopes) {
        // A scope that starts before and ends inside this one: start with it. A
        // loop ending where this block ends must end inside it, or a break out of
        // the block would land at the loop's end and go round again.
        if (s.start < start && start < s.end && (s.end < target || (s.kind === 'loop' && s.end === target))) {
          start = s.start;
          moved = true;
        }
        // A jump into a loop from outside, past its head: not structured code.
        if (start < s.start && s.start < target && target < s.end) return null;
      }
    }
    scopes.push({ kind: 'block', start, end: target });
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
