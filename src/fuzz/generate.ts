/**
 * Random .mini programs that build and mutate object graphs, with their expected
 * output computed by this file's own model of each statement (an oracle independent
 * of minivm: plain JavaScript objects and 32-bit arithmetic).
 *
 * A program is a fixed prelude (two classes with a virtual method, helpers that
 * build lists and trees and walk them, eight global roots, a global array of nodes,
 * an int array, a string) and a list of statements. Every statement is valid
 * whatever ran before it (guards against null are in the program text and the
 * model alike), so the shrinker may drop any of them.
 */

/** Mulberry32: a small deterministic generator. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const GLOBALS = 8;
const SLOTS = 32;
const INTS = 64;
/** The longest list and deepest tree a statement builds, and the walks' bounds. */
const MAX_LIST = 150;
const MAX_DEPTH = 6;
const WALK = 400;

export const PRELUDE = `class Node {
  var val: int;
  var next: Node;
  var left: Node;
  var right: Node;
  var data: int[];
  init(v: int) { this.val = v; }
  fun weight(): int { return this.val; }
}
class Big extends Node {
  var extra: int;
  init(v: int) { super.init(v); this.extra = v * 3; }
  fun weight(): int { return this.val * 2 + this.extra; }
}
fun list(n: int, v: int): Node {
  var head: Node = null;
  for (var i = 0; i < n; i = i + 1) {
    var c: Node = null;
    if (i % 3 == 0) c = new Big(v + i); else c = new Node(v + i);
    c.next = head;
    head = c;
  }
  return head;
}
fun tree(d: int, v: int): Node {
  var n = new Node(v);
  if (d > 0) { n.left = tree(d - 1, v * 2 + 1); n.right = tree(d - 1, v * 2 + 2); }
  return n;
}
fun lsum(n: Node): int {
  var s = 0;
  var c = 0;
  while (n != null && c < ${WALK}) { s = s * 31 + n.weight(); n = n.next; c = c + 1; }
  return s;
}
fun tsum(n: Node, d: int): int {
  if (n == null || d == 0) return 0;
  return n.weight() + tsum(n.left, d - 1) * 3 + tsum(n.right, d - 1) * 7;
}
fun dsum(n: Node): int {
  if (n == null || n.data == null) return -1;
  var s = 0;
  for (var i = 0; i < n.data.length; i = i + 1) s = s * 7 + n.data[i];
  return s;
}
fun churn(n: int): int {
  var keep: Node = null;
  for (var i = 0; i < n; i = i + 1) { var t = new Node(i); if (i % 16 == 0) keep = t; }
  return keep.val;
}
${Array.from({ length: GLOBALS }, (_, i) => `var g${i}: Node = null;`).join('\n')}
var slots = new Node[${SLOTS}];
var ints = new int[${INTS}];
var text = "";
var big: int[] = null;
`;

/** The model's node. */
interface MNode {
  big: boolean;
  val: number;
  extra: number;
  next: MNode | null;
  left: MNode | null;
  right: MNode | null;
  data: number[] | null;
}

export interface Model {
  g: (MNode | null)[];
  slots: (MNode | null)[];
  ints: number[];
  text: string;
  out: string[];
}

export interface Stmt {
  text: string;
  apply(m: Model): void;
}

const add = (a: number, b: number): number => (a + b) | 0;
const mul = (a: number, b: number): number => Math.imul(a, b);

function node(v: number, big: boolean): MNode {
  return { big, val: v, extra: big ? mul(v, 3) : 0, next: null, left: null, right: null, data: null };
}
const weight = (n: MNode): number => (n.big ? add(mul(n.val, 2), n.extra) : n.val);

function mlist(n: number, v: number): MNode | null {
  let head: MNode | null = null;
  for (let i = 0; i < n; i++) {
    const c = node(add(v, i), i % 3 === 0);
    c.next = head;
    head = c;
  }
  return head;
}
function mtree(d: number, v: number): MNode {
  const n = node(v, false);
  if (d > 0) {
    n.left = mtree(d - 1, add(mul(v, 2), 1));
    n.right = mtree(d - 1, add(mul(v, 2), 2));
  }
  return n;
}
function lsum(n: MNode | null): number {
  let s = 0;
  for (let c = 0; n !== null && c < WALK; c++, n = n.next) s = add(mul(s, 31), weight(n));
  return s;
}
function tsum(n: MNode | null, d: number): number {
  if (n === null || d === 0) return 0;
  return add(add(weight(n), mul(tsum(n.left, d - 1), 3)), mul(tsum(n.right, d - 1), 7));
}
function dsum(n: MNode | null): number {
  if (n === null || n.data === null) return -1;
  let s = 0;
  for (const x of n.data) s = add(mul(s, 7), x);
  return s;
}

/** One random statement; `bigWords`: the largest int array it may allocate. */
function statement(r: () => number, bigWords: number): Stmt {
  const int = (n: number): number => Math.floor(r() * n);
  const i = int(GLOBALS);
  const j = int(GLOBALS);
  const v = int(2000) - 1000;
  const field = ['next', 'left', 'right'][int(3)] as 'next' | 'left' | 'right';
  switch (int(17)) {
    case 0: {
      const isBig = r() < 0.4;
      return { text: `g${i} = new ${isBig ? 'Big' : 'Node'}(${v});`, apply: (m) => void (m.g[i] = node(v, isBig)) };
    }
    case 1: {
      const n = 1 + int(MAX_LIST);
      return { text: `g${i} = list(${n}, ${v});`, apply: (m) => void (m.g[i] = mlist(n, v)) };
    }
    case 2: {
      const d = int(MAX_DEPTH + 1);
      return { text: `g${i} = tree(${d}, ${v});`, apply: (m) => void (m.g[i] = mtree(d, v)) };
    }
    case 3: // links, cycles when i == j or through earlier links; old-to-young when g${i} is old
      return { text: `if (g${i} != null) g${i}.${field} = g${j};`, apply: (m) => void (m.g[i] && (m.g[i]![field] = m.g[j]!)) };
    case 4:
      return { text: `if (g${i} != null) g${j} = g${i}.${field};`, apply: (m) => void (m.g[i] && (m.g[j] = m.g[i]![field])) };
    case 5:
      return { text: `g${i} = null;`, apply: (m) => void (m.g[i] = null) };
    case 6: {
      const k = int(SLOTS);
      return { text: `slots[${k}] = g${i};`, apply: (m) => void (m.slots[k] = m.g[i]!) };
    }
    case 7: {
      const k = int(SLOTS);
      return { text: `g${i} = slots[${k}];`, apply: (m) => void (m.g[i] = m.slots[k]!) };
    }
    case 8: {
      const k = int(SLOTS);
      return { text: `slots[${k}] = new Node(${v});`, apply: (m) => void (m.slots[k] = node(v, false)) };
    }
    case 9: {
      const n = int(48);
      return {
        text: `if (g${i} != null) { g${i}.data = new int[${n}]; for (var q = 0; q < ${n}; q = q + 1) g${i}.data[q] = q * ${v}; }`,
        apply: (m) => void (m.g[i] && (m.g[i]!.data = Array.from({ length: n }, (_, q) => mul(q, v)))),
      };
    }
    case 10: {
      const n = 50 + int(3000);
      return { text: `print(churn(${n}));`, apply: (m) => void m.out.push(String(((n - 1) >> 4) << 4)) };
    }
    case 11: {
      const n = 1 + int(bigWords);
      return { text: `big = new int[${n}]; big[${n - 1}] = ${v}; print(big[${n - 1}] + big.length);`, apply: (m) => void m.out.push(String(add(v, n))) };
    }
    case 12:
      return { text: 'big = null;', apply: () => undefined };
    case 13: {
      const piece = `s${int(100)}`;
      return {
        text: `if (text.length > 120) text = ""; text = text + "${piece}"; print(text);`,
        apply: (m) => {
          if (m.text.length > 120) m.text = '';
          m.text += piece;
          m.out.push(m.text);
        },
      };
    }
    case 14: {
      const a = int(INTS);
      const b = int(INTS);
      return { text: `ints[${a}] = ints[${b}] * 3 + ${v}; print(ints[${a}]);`, apply: (m) => void m.out.push(String((m.ints[a] = add(mul(m.ints[b]!, 3), v)))) };
    }
    case 15:
      return { text: `print(lsum(g${i}));`, apply: (m) => void m.out.push(String(lsum(m.g[i]!))) };
    default:
      return r() < 0.5
        ? { text: `print(tsum(g${i}, ${MAX_DEPTH + 2}));`, apply: (m) => void m.out.push(String(tsum(m.g[i]!, MAX_DEPTH + 2))) }
        : { text: `print(dsum(g${i}));`, apply: (m) => void m.out.push(String(dsum(m.g[i]!))) };
  }
}

export interface FuzzProgram {
  seed: number;
  stmts: Stmt[];
}

/** The program of `seed`: 20 to 120 statements, big arrays up to `bigWords` ints. */
export function generate(seed: number, bigWords: number): FuzzProgram {
  const r = rng(seed);
  const n = 20 + Math.floor(r() * 100);
  const stmts: Stmt[] = [];
  for (let k = 0; k < n; k++) stmts.push(statement(r, bigWords));
  // A final checksum of every root, so that a lost object shows in the output.
  for (let g = 0; g < GLOBALS; g++) {
    stmts.push({ text: `print(lsum(g${g}) + tsum(g${g}, 4));`, apply: (m) => void m.out.push(String(add(lsum(m.g[g]!), tsum(m.g[g]!, 4)))) });
  }
  return { seed, stmts };
}

export function render(p: { stmts: readonly Stmt[] }): string {
  return PRELUDE + p.stmts.map((s) => s.text).join('\n') + '\n';
}

/** The oracle: what the program prints. */
export function expectedOutput(p: { stmts: readonly Stmt[] }): string {
  const m: Model = { g: Array(GLOBALS).fill(null), slots: Array(SLOTS).fill(null), ints: Array(INTS).fill(0), text: '', out: [] };
  for (const s of p.stmts) s.apply(m);
  return m.out.map((l) => l + '\n').join('');
}
