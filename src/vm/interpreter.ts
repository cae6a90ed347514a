/**
 * The interpreter: one dispatch loop over linked bytecode.
 *
 * All state lives in typed arrays: the value stack (Float64Array), the reference
 * stack (Int32Array, the exact roots), and the frames. Mini objects exist only as
 * words of the heap. The loop keeps pc, stack pointers and the current code in
 * locals, as clox's run() does.
 *
 * Case labels are numeric literals with the opcode's name in a comment: V8 compiles
 * a switch over literals to a jump table but a switch over `Op.X` property loads to
 * a chain of compares (3-4x slower dispatch, measured on Node 20). A unit test checks
 * every label against opcodes.ts.
 *
 * Collections: an allocation that returns 0 means "collect first". The loop then
 * leaves with pc on the allocating instruction; `run()` awaits the collection (which
 * may wait on the GPU) and re-enters, re-executing the instruction.
 */

import { OutOfMemoryError, type Heap, type RootProvider } from '../heap/api.js';
import { typeTestName } from '../bytecode/program.js';
import type { LinkedProgram } from './link.js';
import { formatFloat, MiniRuntimeError } from './format.js';

/** Throws the program's error for a null array (or string) or an index outside it. */
function checkIndex(words: Int32Array, a: number, lenOff: number, i: number): void {
  if (a === 0) throw new MiniRuntimeError('null dereference');
  const n = words[a + lenOff]!;
  if (i < 0 || i >= n) throw new MiniRuntimeError(`index ${i} out of bounds for length ${n}`);
}

/** Frames are bounded so that runaway recursion is a runtime error, not a crash. */
const MAX_FRAMES = 20_000;
/** Slots per stack; checked on every call with room for the callee's operands. */
const STACK_SLOTS = 1 << 20;
const OPERAND_MARGIN = 512;

const DONE = 0;
const COLLECT = 1;
/** Left to let the event loop run: timers (output flushing) and signal handlers. */
const YIELD = 2;
/** Back-edges and calls between such exits; `run` re-enters at once unless
 *  YIELD_MS have passed, so a busy loop reaches the event loop that often. */
const YIELD_TICKS = 1 << 14;
const YIELD_MS = 10;

export interface VmOutput {
  write(text: string): void;
}

export interface VmOptions {
  /** The program's arguments, returned by the `args()` built-in. */
  args?: readonly string[];
}

export class Interpreter implements RootProvider {
  private readonly vals = new Float64Array(STACK_SLOTS);
  private readonly refs = new Int32Array(STACK_SLOTS);
  private readonly frameFn = new Int32Array(MAX_FRAMES);
  private readonly framePc = new Int32Array(MAX_FRAMES);
  private readonly frameVb = new Int32Array(MAX_FRAMES);
  private readonly frameRb = new Int32Array(MAX_FRAMES);
  private readonly globalVals: Float64Array;
  private readonly globalRefs: Int32Array;
  private readonly constRefs: Int32Array;
  private readonly programArgs: readonly string[];
  private readonly startTime = performance.now();
  // Function metadata and vtables flattened into typed arrays, so a call reads no
  // JavaScript objects: per function [valParams, refParams, valLocals, refLocals],
  // and per heap type id the start of its class's vtable in `vtables`.
  private readonly fnInfo: Int32Array;
  private readonly vtableBase: Int32Array;
  private readonly vtables: Int32Array;

  // Saved loop state between entries.
  private fn: number;
  private pc = 0;
  private fp = 0; // number of frames below the current one
  private vb = 0;
  private rb = 0;
  private vsp = 0;
  private rsp = 0;

  constructor(
    private readonly linked: LinkedProgram,
    private readonly heap: Heap,
    private readonly out: VmOutput,
    options: VmOptions = {},
  ) {
    const p = linked.program;
    this.globalVals = new Float64Array(p.globalValNames.length);
    this.globalRefs = new Int32Array(p.globalRefNames.length);
    // The program's arguments are interned after the string constants, as roots too;
    // the last slot holds the array args() returns, made at its first call.
    this.programArgs = options.args ?? [];
    this.constRefs = new Int32Array(p.stringConstants.length + this.programArgs.length + 1);
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
    heap.setRoots(this);
  }

  visitRoots(visit: (slots: Int32Array, from: number, to: number) => void): void {
    visit(this.refs, 0, this.rsp);
    visit(this.globalRefs, 0, this.globalRefs.length);
    visit(this.constRefs, 0, this.constRefs.length);
  }

  /** Runs the program to completion. Throws MiniRuntimeError for faults of the program. */
  async run(): Promise<void> {
    try {
      await this.internStrings();
      let lastYield = performance.now();
      for (let status = this.execute(); status !== DONE; status = this.execute()) {
        if (status === COLLECT) await this.heap.collectPending();
        else if (performance.now() - lastYield >= YIELD_MS) {
          await new Promise<void>((resume) => setImmediate(resume));
          lastYield = performance.now();
        }
      }
    } catch (e) {
      // Out of memory (an allocation larger than the heap, or a collection that cannot
      // make room) is a fault of the program: it stops where its state was saved, at
      // the allocating instruction (at main's start while string constants are interned).
      if (e instanceof OutOfMemoryError) throw this.withTrace(new MiniRuntimeError(e.message));
      throw e;
    }
  }

  /** The output's sink buffers and flushes (cli/output.ts): a line printed here is
   *  never held where a signal would lose it. */
  private print(text: string): void {
    this.out.write(text + '\n');
  }

  /** String constants are allocated once and held as roots (strings are immutable). */
  private async internStrings(): Promise<void> {
    const strings = [...this.linked.program.stringConstants, ...this.programArgs];
    for (let i = 0; i < strings.length; ) {
      const a = this.newString(strings[i]!);
      if (a === 0) {
        await this.heap.collectPending();
        continue;
      }
      this.constRefs[i++] = a;
    }
  }

  // ------------------------------------------------------------ strings

  /** Allocates a string of the given text, or returns 0 when the heap must collect. */
  private newString(text: string): number {
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

  private stringOf(a: number): string {
    const w = this.heap.words, h = this.heap;
    const n = w[a + h.lengthWordOffset]!, d = a + h.arrayDataOffset;
    let s = '';
    for (let i = 0; i < n; i += 8192) s += String.fromCodePoint(...w.subarray(d + i, d + Math.min(n, i + 8192)));
    return s;
  }

  /** The print text of a reference: a string's contents, null, <C>, <T[] of N>. */
  private refText(a: number): string {
    if (a === 0) return 'null';
    const h = this.heap, w = h.words;
    const type = w[a + h.typeWordOffset]!;
    if (type === h.stringTypeId) return this.stringOf(a);
    if (this.linked.classOfType[type]! >= 0) return `<${h.typeName(type)}>`;
    return `<${h.typeName(type)} of ${w[a + h.lengthWordOffset]}>`;
  }

  /** SEQ/SNE: the compiler emits them only when both operands are statically string or null. */
  private stringsEqual(a: number, b: number): boolean {
    if (a === b) return true;
    if (a === 0 || b === 0) return false;
    const h = this.heap, w = h.words;
    const n = w[a + h.lengthWordOffset]!;
    if (w[b + h.lengthWordOffset] !== n) return false;
    const da = a + h.arrayDataOffset, db = b + h.arrayDataOffset;
    for (let i = 0; i < n; i++) if (w[da + i] !== w[db + i]) return false;
    return true;
  }

  private isInstance(a: number, test: number): boolean {
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

  // ------------------------------------------------------------ the loop

  /** Runs until the program ends (DONE), the heap asks for a collection (COLLECT)
   *  or the event loop's turn comes (YIELD). */
  private execute(): number {
    const L = this.linked, heap = this.heap, P = L.program;
    const functions = P.functions, codes = L.code, shapes = L.shapes;
    const fnInfo = this.fnInfo, vtableBase = this.vtableBase, vtables = this.vtables;
    const vals = this.vals, refs = this.refs, words = heap.words;
    const frameFn = this.frameFn, framePc = this.framePc, frameVb = this.frameVb, frameRb = this.frameRb;
    const gv = this.globalVals, gr = this.globalRefs, consts = this.constRefs, fconsts = P.floatConstants;
    const dataOff = heap.arrayDataOffset, lenOff = heap.lengthWordOffset, typeOff = heap.typeWordOffset;

    let fn = this.fn, code = codes[fn]!, pc = this.pc, fp = this.fp;
    let vb = this.vb, rb = this.rb, vsp = this.vsp, rsp = this.rsp;
    let start = pc;
    let status = DONE;
    let ticks = YIELD_TICKS;
    try {
      dispatch: for (;;) {
        start = pc;
        switch (code[pc++]) {
          case 0: // NOP
            break;
          case 1: // ICONST
            vals[vsp++] = code[pc++]!;
            break;
          case 2: // FCONST
            vals[vsp++] = fconsts[code[pc++]!]!;
            break;
          case 3: // SCONST
            refs[rsp++] = consts[code[pc++]!]!;
            break;
          case 4: // NULL
            refs[rsp++] = 0;
            break;
          case 5: // VLOAD
            vals[vsp++] = vals[vb + code[pc++]!]!;
            break;
          case 6: // VSTORE
            vals[vb + code[pc++]!] = vals[--vsp]!;
            break;
          case 7: // RLOAD
            refs[rsp++] = refs[rb + code[pc++]!]!;
            break;
          case 8: // RSTORE
            refs[rb + code[pc++]!] = refs[--rsp]!;
            break;
          case 9: // GVLOAD
            vals[vsp++] = gv[code[pc++]!]!;
            break;
          case 10: // GVSTORE
            gv[code[pc++]!] = vals[--vsp]!;
            break;
          case 11: // GRLOAD
            refs[rsp++] = gr[code[pc++]!]!;
            break;
          case 12: // GRSTORE
            gr[code[pc++]!] = refs[--rsp]!;
            break;
          case 13: // VPOP
            vsp--;
            break;
          case 14: // RPOP
            rsp--;
            break;
          case 15: // RDUP
            refs[rsp] = refs[rsp - 1]!;
            rsp++;
            break;
          case 16: // IADD
            vsp--;
            vals[vsp - 1] = (vals[vsp - 1]! + vals[vsp]!) | 0;
            break;
          case 17: // ISUB
            vsp--;
            vals[vsp - 1] = (vals[vsp - 1]! - vals[vsp]!) | 0;
            break;
          case 18: // IMUL
            vsp--;
            vals[vsp - 1] = Math.imul(vals[vsp - 1]!, vals[vsp]!);
            break;
          case 19: // IDIV
            vsp--;
            if (vals[vsp] === 0) throw new MiniRuntimeError('division by zero');
            vals[vsp - 1] = (vals[vsp - 1]! / vals[vsp]!) | 0;
            break;
          case 20: // IMOD
            vsp--;
            if (vals[vsp] === 0) throw new MiniRuntimeError('division by zero');
            vals[vsp - 1] = (vals[vsp - 1]! % vals[vsp]!) | 0;
            break;
          case 21: // INEG
            vals[vsp - 1] = -vals[vsp - 1]! | 0;
            break;
          case 22: // IAND
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! & vals[vsp]!;
            break;
          case 23: // IOR
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! | vals[vsp]!;
            break;
          case 24: // IXOR
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! ^ vals[vsp]!;
            break;
          case 25: // ISHL
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! << vals[vsp]!;
            break;
          case 26: // ISHR
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! >> vals[vsp]!;
            break;
          case 27: // IUSHR
            vsp--;
            vals[vsp - 1] = (vals[vsp - 1]! >>> vals[vsp]!) | 0;
            break;
          case 28: // INOT
            vals[vsp - 1] = ~vals[vsp - 1]!;
            break;
          case 29: // FADD
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! + vals[vsp]!;
            break;
          case 30: // FSUB
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! - vals[vsp]!;
            break;
          case 31: // FMUL
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! * vals[vsp]!;
            break;
          case 32: // FDIV
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! / vals[vsp]!;
            break;
          case 33: // FMOD
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! % vals[vsp]!;
            break;
          case 34: // FNEG
            vals[vsp - 1] = -vals[vsp - 1]!;
            break;
          case 35: // I2F
            break; // ints are already doubles on the value stack
          case 36: { // F2I
            const x = vals[vsp - 1]!;
            if (x !== x) throw new MiniRuntimeError('toInt of NaN');
            if (x >= 2147483648 || x <= -2147483649) throw new MiniRuntimeError(`toInt of ${formatFloat(x)} is out of the int range`);
            vals[vsp - 1] = x | 0;
            break;
          }
          case 37: // LT
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! < vals[vsp]! ? 1 : 0;
            break;
          case 38: // LE
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! <= vals[vsp]! ? 1 : 0;
            break;
          case 39: // GT
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! > vals[vsp]! ? 1 : 0;
            break;
          case 40: // GE
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! >= vals[vsp]! ? 1 : 0;
            break;
          case 41: // EQ
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! === vals[vsp]! ? 1 : 0;
            break;
          case 42: // NE
            vsp--;
            vals[vsp - 1] = vals[vsp - 1]! !== vals[vsp]! ? 1 : 0;
            break;
          case 43: // NOT
            vals[vsp - 1] = vals[vsp - 1] === 0 ? 1 : 0;
            break;
          case 44: // REQ
            rsp -= 2;
            vals[vsp++] = refs[rsp] === refs[rsp + 1] ? 1 : 0;
            break;
          case 45: // RNE
            rsp -= 2;
            vals[vsp++] = refs[rsp] !== refs[rsp + 1] ? 1 : 0;
            break;
          case 46: // SEQ
            rsp -= 2;
            vals[vsp++] = this.stringsEqual(refs[rsp]!, refs[rsp + 1]!) ? 1 : 0;
            break;
          case 47: // SNE
            rsp -= 2;
            vals[vsp++] = this.stringsEqual(refs[rsp]!, refs[rsp + 1]!) ? 0 : 1;
            break;
          case 48: // JMP
            if (code[pc]! < 0 && --ticks === 0) {
              pc += code[pc]! + 1;
              status = YIELD;
              break dispatch;
            }
            pc += code[pc]! + 1;
            break;
          case 49: // JMPF
            if (vals[--vsp] === 0) pc += code[pc]! + 1;
            else pc++;
            break;
          case 50: // JMPT
            if (vals[--vsp] !== 0) pc += code[pc]! + 1;
            else pc++;
            break;
          case 51: { // NEW
            const a = heap.allocInstance(shapes[code[pc++]!]!);
            if (a === 0) { status = COLLECT; pc = start; break dispatch; }
            refs[rsp++] = a;
            break;
          }
          case 52: { // NEWARRAY
            const n = vals[vsp - 1]!;
            if (n < 0) throw new MiniRuntimeError(`negative array size ${n}`);
            const a = heap.allocArray(code[pc++]!, n);
            if (a === 0) { status = COLLECT; pc = start; break dispatch; }
            vsp--;
            refs[rsp++] = a;
            break;
          }
          case 53: { // GETFIELD_V
            const o = refs[--rsp]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            vals[vsp++] = words[o + code[pc++]!]!;
            break;
          }
          case 54: { // GETFIELD_F
            const o = refs[--rsp]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            vals[vsp++] = heap.readFloat(o + code[pc++]!);
            break;
          }
          case 55: { // GETFIELD_R
            const o = refs[rsp - 1]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            refs[rsp - 1] = words[o + code[pc++]!]!;
            break;
          }
          case 56: { // PUTFIELD_V
            const o = refs[--rsp]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            words[o + code[pc++]!] = vals[--vsp]!;
            break;
          }
          case 57: { // PUTFIELD_F
            const o = refs[--rsp]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            heap.writeFloat(o + code[pc++]!, vals[--vsp]!);
            break;
          }
          case 58: { // PUTFIELD_R
            rsp -= 2;
            const o = refs[rsp]!;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            heap.writeRef(o, code[pc]!, code[pc + 1]!, refs[rsp + 1]!);
            pc += 2;
            break;
          }
          case 59: { // ALOAD_V
            const a = refs[--rsp]!, i = vals[vsp - 1]!;
            checkIndex(words, a, lenOff, i);
            vals[vsp - 1] = words[a + dataOff + i]!;
            break;
          }
          case 60: { // ALOAD_F
            const a = refs[--rsp]!, i = vals[vsp - 1]!;
            checkIndex(words, a, lenOff, i);
            vals[vsp - 1] = heap.readFloat(a + dataOff + 2 * i);
            break;
          }
          case 61: { // ALOAD_R
            const a = refs[rsp - 1]!, i = vals[--vsp]!;
            checkIndex(words, a, lenOff, i);
            refs[rsp - 1] = words[a + dataOff + i]!;
            break;
          }
          case 62: { // ASTORE_V
            const a = refs[--rsp]!;
            vsp -= 2;
            const i = vals[vsp]!;
            checkIndex(words, a, lenOff, i);
            words[a + dataOff + i] = vals[vsp + 1]!;
            break;
          }
          case 63: { // ASTORE_F
            const a = refs[--rsp]!;
            vsp -= 2;
            const i = vals[vsp]!;
            checkIndex(words, a, lenOff, i);
            heap.writeFloat(a + dataOff + 2 * i, vals[vsp + 1]!);
            break;
          }
          case 64: { // ASTORE_R
            rsp -= 2;
            const a = refs[rsp]!, i = vals[--vsp]!;
            checkIndex(words, a, lenOff, i);
            heap.writeRef(a, dataOff + i, i, refs[rsp + 1]!);
            break;
          }
          case 65: { // ALEN
            const a = refs[--rsp]!;
            if (a === 0) throw new MiniRuntimeError('null dereference');
            vals[vsp++] = words[a + lenOff]!;
            break;
          }
          case 66: { // CHARAT
            const s = refs[--rsp]!, i = vals[vsp - 1]!;
            checkIndex(words, s, lenOff, i);
            vals[vsp - 1] = words[s + dataOff + i]!;
            break;
          }
          case 67: { // SUBSTR
            const from = vals[vsp - 2]!, to = vals[vsp - 1]!;
            let s = refs[rsp - 1]!;
            if (s === 0) throw new MiniRuntimeError('null dereference');
            const n = words[s + lenOff]!;
            if (from < 0 || to > n || from > to) throw new MiniRuntimeError(`substring(${from}, ${to}) out of bounds for length ${n}`);
            const r = heap.allocArray(heap.stringTypeId, to - from);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            s = refs[rsp - 1]!;
            words.copyWithin(r + dataOff, s + dataOff + from, s + dataOff + to);
            vsp -= 2;
            refs[rsp - 1] = r;
            break;
          }
          case 68: { // CHR
            const c = vals[vsp - 1]!;
            if (c < 0 || c > 0x10ffff) throw new MiniRuntimeError(`chr of invalid code ${c}`);
            const r = heap.allocArray(heap.stringTypeId, 1);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            words[r + dataOff] = c;
            vsp--;
            refs[rsp++] = r;
            break;
          }
          case 69: { // CONCAT
            const a = refs[rsp - 2]!, b = refs[rsp - 1]!;
            const na = a === 0 ? 4 : words[a + lenOff]!, nb = b === 0 ? 4 : words[b + lenOff]!;
            const r = heap.allocArray(heap.stringTypeId, na + nb);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            this.copyChars(refs[rsp - 2]!, r + dataOff);
            this.copyChars(refs[rsp - 1]!, r + dataOff + na);
            rsp--;
            refs[rsp - 1] = r;
            break;
          }
          case 70: case 71: case 72: case 73: { // TOSTR_I TOSTR_F TOSTR_B TOSTR_R
            const op = code[start]!;
            const text = op === 70 ? String(vals[vsp - 1]) : op === 71 ? formatFloat(vals[vsp - 1]!)
              : op === 72 ? (vals[vsp - 1] !== 0 ? 'true' : 'false') : this.refText(refs[rsp - 1]!);
            const r = this.newString(text);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            if (op === 73) refs[rsp - 1] = r;
            else { vsp--; refs[rsp++] = r; }
            break;
          }
          case 74: case 75: { // CALL INVOKE
            let callee: number;
            if (code[start] === 74) {
              callee = code[pc]!;
              pc += 1;
            } else {
              const recv = refs[rsp - code[pc + 1]!]!;
              if (recv === 0) throw new MiniRuntimeError('null dereference');
              callee = vtables[vtableBase[words[recv + typeOff]!]! + code[pc]!]!;
              pc += 2;
            }
            const info = 4 * callee;
            const nValLocals = fnInfo[info + 2]!, nRefLocals = fnInfo[info + 3]!;
            if (fp + 1 >= MAX_FRAMES || rsp + nRefLocals + OPERAND_MARGIN >= STACK_SLOTS
              || vsp + nValLocals + OPERAND_MARGIN >= STACK_SLOTS) throw new MiniRuntimeError('stack overflow');
            frameFn[fp] = fn; framePc[fp] = pc; frameVb[fp] = vb; frameRb[fp] = rb;
            fp++;
            fn = callee;
            code = codes[fn]!;
            pc = 0;
            vb = vsp - fnInfo[info]!;
            rb = rsp - fnInfo[info + 1]!;
            vsp = vb + nValLocals;
            const top = rb + nRefLocals;
            // Reference locals start null so that the roots never hold stale addresses.
            for (let i = rsp; i < top; i++) refs[i] = 0;
            rsp = top;
            if (--ticks === 0) { status = YIELD; break dispatch; }
            break;
          }
          case 76: case 77: case 78: { // RET RET_V RET_R
            const op = code[start]!;
            const v = op === 77 ? vals[vsp - 1]! : 0;
            const r = op === 78 ? refs[rsp - 1]! : 0;
            vsp = vb;
            rsp = rb;
            if (fp === 0) break dispatch;
            fp--;
            fn = frameFn[fp]!; code = codes[fn]!; pc = framePc[fp]!; vb = frameVb[fp]!; rb = frameRb[fp]!;
            if (op === 77) vals[vsp++] = v;
            else if (op === 78) refs[rsp++] = r;
            break;
          }
          case 79: { // INSTANCEOF
            const a = refs[--rsp]!;
            vals[vsp++] = this.isInstance(a, code[pc++]!) ? 1 : 0;
            break;
          }
          case 80: { // CHECKCAST
            const a = refs[rsp - 1]!, t = code[pc++]!;
            if (a !== 0 && !this.isInstance(a, t)) {
              throw new MiniRuntimeError(`cannot cast ${heap.typeName(words[a + typeOff]!)} to ${typeTestName(P, P.typeTests[t]!)}`);
            }
            break;
          }
          case 81: // PRINT_I
            this.print(String(vals[--vsp]));
            break;
          case 82: // PRINT_F
            this.print(formatFloat(vals[--vsp]!));
            break;
          case 83: // PRINT_B
            this.print(vals[--vsp] !== 0 ? 'true' : 'false');
            break;
          case 84: // PRINT_R
            this.print(this.refText(refs[--rsp]!));
            break;
          case 85: // SQRT
            vals[vsp - 1] = Math.sqrt(vals[vsp - 1]!);
            break;
          case 86: // CLOCK
            vals[vsp++] = (performance.now() - this.startTime) / 1000;
            break;
          case 87: // GC
            heap.requestCollection('full', 'gc() call');
            status = COLLECT;
            break dispatch;
          case 88: // MINORGC
            heap.requestCollection('young', 'minorGc() call');
            status = COLLECT;
            break dispatch;
          case 89: { // ARGS
            const slot = this.constRefs.length - 1;
            if (this.constRefs[slot] === 0) {
              const n = this.programArgs.length;
              const r = heap.allocArray(code[pc]!, n);
              if (r === 0) { status = COLLECT; pc = start; break dispatch; }
              const first = slot - n;
              for (let i = 0; i < n; i++) heap.writeRef(r, dataOff + i, i, this.constRefs[first + i]!);
              this.constRefs[slot] = r;
            }
            pc += 1;
            refs[rsp++] = this.constRefs[slot]!;
            break;
          }
          case 90: { // PARSEINT
            const s = refs[--rsp]!;
            if (s === 0) throw new MiniRuntimeError('parseInt of null');
            const text = this.stringOf(s);
            const v = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : NaN;
            if (!(v >= -2147483648 && v <= 2147483647)) {
              throw new MiniRuntimeError(`parseInt: '${text.length > 40 ? `${text.slice(0, 40)}...` : text}' is not an int`);
            }
            vals[vsp++] = v;
            break;
          }
          default:
            throw new Error(`interpreter: bad opcode ${code[start]} at ${functions[fn]!.name}:${start}`);
        }
      }
    } catch (e) {
      // run() turns an OutOfMemoryError into a MiniRuntimeError with this state's trace.
      this.saveState(fn, start, fp, vb, rb, vsp, rsp);
      if (e instanceof MiniRuntimeError) throw this.withTrace(e);
      throw e;
    }
    this.saveState(fn, pc, fp, vb, rb, vsp, rsp);
    return status;
  }

  private saveState(fn: number, pc: number, fp: number, vb: number, rb: number, vsp: number, rsp: number): void {
    this.fn = fn; this.pc = pc; this.fp = fp; this.vb = vb; this.rb = rb; this.vsp = vsp; this.rsp = rsp;
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

  /** Attaches the stack, innermost frame first, one line per frame. */
  private withTrace(e: MiniRuntimeError): MiniRuntimeError {
    const fns = this.linked.program.functions;
    const frames = [{ name: fns[this.fn]!.name, line: fns[this.fn]!.lines[this.pc] ?? 0 }];
    for (let i = this.fp - 1; i >= 0; i--) {
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
