/**
 * The machine state both execution tiers share: the value stack (Float64Array), the
 * reference stack (Int32Array, the exact roots), the frame records, the globals and
 * interned string constants, and the helpers for strings, type tests, output and
 * stack traces. The interpreter (interpreter.ts) and compiled code (tier/) read and
 * write the same arrays, so a frame can leave one tier and continue in the other.
 *
 * A frame record at index i holds the state of the frame at depth i while it waits
 * for its callee (depth i + 1): function, pc after the call, value and reference
 * bases. The innermost frame's state lives in the running tier's locals, and in
 * `fn`/`pc`/`fp`/`vb`/`rb`/`vsp`/`rsp` below whenever control is with the driver.
 */

import type { Heap, RootProvider } from '../heap/api.js';
import type { LinkedProgram } from './link.js';
import { typeTestName } from '../bytecode/program.js';
import { formatFloat, MiniRuntimeError } from './format.js';
import { makeMutable } from './mutable-fields.js';
import { now } from '../heap/clock.js';

/** Frames are bounded so that runaway recursion is a runtime error, not a crash. */
export const MAX_FRAMES = 20_000;
/** Slots per stack; checked on every call with room for the callee's operands. */
export const STACK_SLOTS = 1 << 20;
export const OPERAND_MARGIN = 512;
/** Back-edges and calls between the interpreter's exits to the driver (YIELD); compiled
 *  loops keep their own count (tier.ts TIER_TICKS). */
export const YIELD_TICKS = 1 << 14;
/** The driver re-enters at once after a YIELD unless YIELD_MS have passed, so a busy
 *  loop reaches the event loop (timers for output flushing, signal handlers) that often. */
export const YIELD_MS = 10;

/** Why execution left for the driver: the program's end, a collection to run first,
 *  the event loop's turn, or nothing (go on from the machine's state). */
export const DONE = 0;
export const COLLECT = 1;
export const YIELD = 2;
export const RESUME = 3;

// The program's faults that both tiers raise, untraced (each tier adds the stack).

/** A null array (or string), or an index outside it. */
export function indexError(words: Int32Array, a: number, lenOff: number, i: number): MiniRuntimeError {
  return new MiniRuntimeError(a === 0 ? 'null dereference' : `index ${i} out of bounds for length ${words[a + lenOff]}`);
}

/** `toInt(x)` of NaN or of a float outside the int range. */
export function toIntError(x: number): MiniRuntimeError {
  return new MiniRuntimeError(x !== x ? 'toInt of NaN' : `toInt of ${formatFloat(x)} is out of the int range`);
}

export interface VmOutput {
  write(text: string): void;
}

export class Machine implements RootProvider {
  readonly vals = new Float64Array(STACK_SLOTS);
  readonly refs = new Int32Array(STACK_SLOTS);
  readonly frameFn = new Int32Array(MAX_FRAMES);
  readonly framePc = new Int32Array(MAX_FRAMES);
  readonly frameVb = new Int32Array(MAX_FRAMES);
  readonly frameRb = new Int32Array(MAX_FRAMES);
  readonly globalVals: Float64Array;
  readonly globalRefs: Int32Array;
  readonly constRefs: Int32Array;
  readonly startTime = now();
  /** When the driver last let the event loop run (now()). */
  lastYield = this.startTime;
  // Function metadata and vtables flattened into typed arrays, so a call reads no
  // JavaScript objects: per function [valParams, refParams, valLocals, refLocals],
  // and per heap type id the start of its class's vtable in `vtables`.
  readonly fnInfo: Int32Array;
  readonly vtableBase: Int32Array;
  readonly vtables: Int32Array;

  // The innermost frame's state while control is with the driver.
  fn: number;
  pc = 0;
  fp = 0; // number of frames below the current one
  vb = 0;
  rb = 0;
  vsp = 0;
  rsp = 0;

  constructor(
    readonly linked: LinkedProgram,
    readonly heap: Heap,
    private readonly out: VmOutput,
    /** The program's arguments: interned after the string constants, as roots. */
    readonly programArgs: readonly string[] = [],
  ) {
    const p = linked.program;
    this.globalVals = new Float64Array(p.globalValNames.length);
    this.globalRefs = new Int32Array(p.globalRefNames.length);
    // The last slot holds the array args() returns, made at its first call.
    this.constRefs = new Int32Array(p.stringConstants.length + programArgs.length + 1);
    this.fnInfo = new Int32Array(4 * p.functions.length);
    p.functions.forEach((f, i) => this.fnInfo.set([f.nValParams, f.nRefParams, f.nValLocals, f.nRefLocals], 4 * i));
    this.vtableBase = new Int32Array(linked.classOfType.length).fill(-1);
    const tables: number[] = [];
    linked.classOfType.forEach((cid, typeId) => {
      if (cid < 0) return;
      this.vtableBase[typeId] = tables.length;
      tables.push(...p.classes[cid]!.vtable);
    });
    this.vtables = Int32Array.from(tables);
    this.fn = p.mainFunction;
    const main = p.functions[this.fn]!;
    this.vsp = main.nValLocals;
    this.rsp = main.nRefLocals;
    // The driver's first stop stores these; the interpreter and compiled code read them before.
    makeMutable(this, ['pc', 'fp', 'vb', 'rb', 'lastYield']);
    heap.setRoots(this);
  }

  visitRoots(visit: (slots: Int32Array, from: number, to: number) => void): void {
    visit(this.refs, 0, this.rsp);
    visit(this.globalRefs, 0, this.globalRefs.length);
    visit(this.constRefs, 0, this.constRefs.length);
  }

  saveState(fn: number, pc: number, fp: number, vb: number, rb: number, vsp: number, rsp: number): void {
    this.fn = fn; this.pc = pc; this.fp = fp; this.vb = vb; this.rb = rb; this.vsp = vsp; this.rsp = rsp;
  }

  // ------------------------------------------------------------ output

  /** Output is buffered and flushed by its sink (cli/output.ts): a line printed here
   *  is never held where a signal would lose it. */
  /** The `clock()` builtin: seconds since the program started. */
  clock(): number {
    return (now() - this.startTime) / 1000;
  }

  print(text: string): void {
    this.out.write(text + '\n');
  }

  // ------------------------------------------------------------ program arguments

  /** The array `args()` returns (of array type `type`), made once; 0 when the heap must collect first. */
  argsArray(type: number): number {
    const slot = this.constRefs.length - 1;
    if (this.constRefs[slot] === 0) {
      const n = this.programArgs.length, h = this.heap;
      const r = h.allocArray(type, n);
      if (r === 0) return 0;
      const first = slot - n;
      for (let i = 0; i < n; i++) h.writeRef(r, h.arrayDataOffset + i, i, this.constRefs[first + i]!);
      this.constRefs[slot] = r;
    }
    return this.constRefs[slot]!;
  }

  /** `parseInt(s)`: the int the string spells, or NaN when it spells none (parseIntFault says why). */
  parseIntOf(s: number): number {
    if (s === 0) return NaN;
    const text = this.stringOf(s);
    const v = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : NaN;
    return v >= -2147483648 && v <= 2147483647 ? v : NaN;
  }

  parseIntFault(s: number): string {
    if (s === 0) return 'parseInt of null';
    const text = this.stringOf(s);
    return `parseInt: '${text.length > 40 ? `${text.slice(0, 40)}...` : text}' is not an int`;
  }

  // ------------------------------------------------------------ strings

  /** Allocates a string of the given text, or returns 0 when the heap must collect. */
  newString(text: string): number {
    let n = 0;
    for (let i = 0; i < text.length; i++, n++) if (text.codePointAt(i)! > 0xffff) i++;
    const a = this.heap.allocArray(this.heap.stringTypeId, n);
    if (a === 0) return 0;
    const w = this.heap.words;
    let d = a + this.heap.arrayDataOffset;
    for (let i = 0; i < text.length; i++) {
      const c = text.codePointAt(i)!;
      w[d++] = c;
      if (c > 0xffff) i++;
    }
    return a;
  }

  stringOf(a: number): string {
    const w = this.heap.words, h = this.heap;
    const n = w[a + h.lengthWordOffset]!, d = a + h.arrayDataOffset;
    let s = '';
    for (let i = 0; i < n; i += 8192) s += String.fromCodePoint(...w.subarray(d + i, d + Math.min(n, i + 8192)));
    return s;
  }

  /** The print text of a reference: a string's contents, null, <C>, <T[] of N>. */
  refText(a: number): string {
    if (a === 0) return 'null';
    const h = this.heap, w = h.words;
    const type = w[a + h.typeWordOffset]!;
    if (type === h.stringTypeId) return this.stringOf(a);
    if (this.linked.classOfType[type]! >= 0) return `<${h.typeName(type)}>`;
    return `<${h.typeName(type)} of ${w[a + h.lengthWordOffset]}>`;
  }

  /** SEQ/SNE: the compiler emits them only when both operands are statically string or null. */
  stringsEqual(a: number, b: number): boolean {
    if (a === b) return true;
    if (a === 0 || b === 0) return false;
    const h = this.heap, w = h.words;
    const n = w[a + h.lengthWordOffset]!;
    if (w[b + h.lengthWordOffset] !== n) return false;
    const da = a + h.arrayDataOffset, db = b + h.arrayDataOffset;
    for (let i = 0; i < n; i++) if (w[da + i] !== w[db + i]) return false;
    return true;
  }

  isInstance(a: number, test: number): boolean {
    if (a === 0) return false;
    const L = this.linked, h = this.heap;
    const type = h.words[a + h.typeWordOffset]!;
    switch (L.testKind[test]) {
      case 0: return true;
      case 1: return type === h.stringTypeId;
      case 3: return type === L.testArg[test];
      default: {
        const target = L.testArg[test]!;
        for (let c = L.classOfType[type]!; c >= 0; c = L.superOf[c]!) if (c === target) return true;
        return false;
      }
    }
  }

  // Both tiers' string operations: each returns 0 when the heap must collect first, and
  // throws its fault untraced (the interpreter traces it in its loop, tier.ts at its call).

  /** `s.substring(from, to)` */
  substring(s: number, from: number, to: number): number {
    if (s === 0) throw new MiniRuntimeError('null dereference');
    const h = this.heap, w = h.words, d = h.arrayDataOffset;
    const n = w[s + h.lengthWordOffset]!;
    if (from < 0 || to > n || from > to) throw new MiniRuntimeError(`substring(${from}, ${to}) out of bounds for length ${n}`);
    const r = h.allocArray(h.stringTypeId, to - from);
    if (r !== 0) w.copyWithin(r + d, s + d + from, s + d + to);
    return r;
  }

  /** `a + b` of two strings, either of which may be null. */
  concat(a: number, b: number): number {
    const h = this.heap, w = h.words, len = h.lengthWordOffset, d = h.arrayDataOffset;
    const na = a === 0 ? 4 : w[a + len]!, nb = b === 0 ? 4 : w[b + len]!;
    const r = h.allocArray(h.stringTypeId, na + nb);
    if (r === 0) return 0;
    this.copyChars(a, r + d);
    this.copyChars(b, r + d + na);
    return r;
  }

  /** `chr(c)`: the one-character string of code point c. */
  chr(c: number): number {
    if (c < 0 || c > 0x10ffff) throw new MiniRuntimeError(`chr of invalid code ${c}`);
    const h = this.heap;
    const r = h.allocArray(h.stringTypeId, 1);
    if (r !== 0) h.words[r + h.arrayDataOffset] = c;
    return r;
  }

  private copyChars(s: number, dest: number): void {
    const h = this.heap, w = h.words;
    if (s === 0) {
      for (let i = 0; i < 4; i++) w[dest + i] = 'null'.charCodeAt(i);
      return;
    }
    const d = s + h.arrayDataOffset;
    w.copyWithin(dest, d, d + w[s + h.lengthWordOffset]!);
  }

  // ------------------------------------------------------------ errors

  /** CHECKCAST's fault: non-null `a` is no instance of type test `test`. */
  castError(a: number, test: number): MiniRuntimeError {
    const h = this.heap, P = this.linked.program;
    return new MiniRuntimeError(`cannot cast ${h.typeName(h.words[a + h.typeWordOffset]!)} to ${typeTestName(P, P.typeTests[test]!)}`);
  }

  /**
   * Attaches the stack, innermost frame first, one line per frame: the innermost
   * frame is function `fn` at `pc`, the others come from the frame records [0, fp).
   */
  withTrace(e: MiniRuntimeError, fn = this.fn, pc = this.pc, fp = this.fp): MiniRuntimeError {
    const fns = this.linked.program.functions;
    const frames = [{ name: fns[fn]!.name, line: fns[fn]!.lines[pc] ?? 0 }];
    for (let i = fp - 1; i >= 0; i--) {
      const f = fns[this.frameFn[i]!]!;
      // The saved pc is past the call instruction; its line is that of the call.
      frames.push({ name: f.name, line: f.lines[Math.max(0, this.framePc[i]! - 1)] ?? 0 });
    }
    // Deep recursion: keep the trace readable.
    if (frames.length > 40) {
      const omitted = frames.length - 30;
      frames.splice(20, omitted, { name: `... ${omitted} more frames`, line: 0 });
    }
    e.frames = frames;
    return e;
  }
}
