/**
 * The interpreter: one dispatch loop over linked bytecode and the machine's typed
 * arrays (machine.ts), keeping pc, stack pointers and the current code in locals, as
 * clox's run() does. driver.ts runs it, and the collections between its entries.
 *
 * Case labels are numeric literals with the opcode's name in a comment: V8 compiles
 * a switch over literals to a jump table but one over `Op.X` property loads to a
 * chain of compares. A unit test checks every label against opcodes.ts.
 *
 * Collections: an allocation that returns 0 means "collect first". The loop leaves
 * with pc on the allocating instruction; the driver awaits the collection (which may
 * wait on the GPU) and re-enters, re-executing the instruction. Compiled code (tier/)
 * leaves the same way: it spills its frames into the machine, and the loop resumes them.
 *
 * Tiering: a call to a compiled function, and a back-edge to a loop head of one, enter
 * compiled code; under `auto` a function is compiled once its calls and back-edges
 * pass the threshold.
 */

import type { Heap } from '../heap/api.js';
import type { LinkedProgram } from './link.js';
import { formatFloat, MiniRuntimeError } from './format.js';
import {
  COLLECT, DONE, indexError, Machine, MAX_FRAMES, OPERAND_MARGIN, RESUME, STACK_SLOTS, toIntError, YIELD, YIELD_TICKS, type VmOutput,
} from './machine.js';
import { DEFAULT_TIER, Tier, type TierCodeStore, type TierOptions } from './tier/tier.js';

/** Throws the program's error for a null array (or string) or an index outside it. */
function checkIndex(words: Int32Array, a: number, lenOff: number, i: number): void {
  if (a === 0 || i < 0 || i >= words[a + lenOff]!) throw indexError(words, a, lenOff, i);
}

export interface VmOptions {
  /** The program's arguments, returned by the `args()` built-in. */
  args?: readonly string[];
  /** The compiled tier's code kept from earlier runs of the program. */
  tierCode?: TierCodeStore;
}

export class Interpreter extends Machine {
  readonly tier: Tier;
  /** 0 void, 1 value, 2 reference: what a function leaves on its caller's stacks. */
  protected readonly retKind: Int8Array;

  constructor(linked: LinkedProgram, heap: Heap, out: VmOutput, tier: TierOptions = DEFAULT_TIER, options: VmOptions = {}) {
    super(linked, heap, out, options.args ?? []);
    this.tier = new Tier(this, tier, options.tierCode);
    this.retKind = Int8Array.from(linked.program.functions, (f) => (f.returns === 'void' ? 0 : f.returns === 'val' ? 1 : 2));
  }

  // ------------------------------------------------------------ the loop

  /** Runs until the program ends (DONE), the heap asks for a collection (COLLECT)
   *  or the event loop's turn comes (YIELD). */
  protected execute(): number {
    const L = this.linked, heap = this.heap, P = L.program;
    const functions = P.functions, codes = L.code, shapes = L.shapes;
    const fnInfo = this.fnInfo, vtableBase = this.vtableBase, vtables = this.vtables;
    const vals = this.vals, refs = this.refs, words = heap.words, mirror = heap.mirror;
    const frameFn = this.frameFn, framePc = this.framePc, frameVb = this.frameVb, frameRb = this.frameRb;
    const gv = this.globalVals, gr = this.globalRefs, consts = this.constRefs, fconsts = P.floatConstants;
    const dataOff = heap.arrayDataOffset, lenOff = heap.lengthWordOffset, typeOff = heap.typeWordOffset;

    const tier = this.tier, entries = tier.entries, retKind = this.retKind;
    const tiering = tier.options.mode !== 'interp', threshold = tier.options.threshold;
    let fn = this.fn, code = codes[fn]!, pc = this.pc, fp = this.fp;
    let vb = this.vb, rb = this.rb, vsp = this.vsp, rsp = this.rsp;
    let start = pc;
    let status = DONE;
    let result = 0; // what a compiled function returned
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
            if (!(x < 2147483648 && x > -2147483649)) throw toIntError(x);
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
          case 48: { // JMP
            const off = code[pc]!;
            pc += off + 1;
            if (off >= 0) break;
            if (--ticks === 0) { status = YIELD; break dispatch; }
            if (!tiering) break;
            // A back-edge: count it, and enter compiled code at this loop head.
            let osr = tier.osr[fn]!;
            if (osr === null && ++tier.counts[fn]! > threshold) {
              tier.compile(fn);
              osr = tier.osr[fn]!;
            }
            if (osr === null || osr[pc]! < 0) break;
            result = tier.enter(entries[fn]!, fp, vb, rb, osr[pc]!);
            if (tier.st !== 0) {
              fn = this.fn; code = codes[fn]!; pc = this.pc; fp = this.fp; vb = this.vb; rb = this.rb; vsp = this.vsp; rsp = this.rsp;
              const exit = tier.settle();
              if (exit !== RESUME) { status = exit; break dispatch; }
              break;
            }
            // The compiled frame ran to its return: return from this frame with its result.
            const kind = retKind[fn]!;
            vsp = vb;
            rsp = rb;
            if (fp === 0) break dispatch;
            fp--;
            fn = frameFn[fp]!; code = codes[fn]!; pc = framePc[fp]!; vb = frameVb[fp]!; rb = frameRb[fp]!;
            if (kind === 1) vals[vsp++] = result;
            else if (kind === 2) refs[rsp++] = result;
            break;
          }
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
            const slot = o + code[pc++]!;
            words[slot] = vals[--vsp]!;
            if (mirror !== null) mirror.noteScalar(slot);
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
            if (mirror !== null) mirror.noteScalar(a + dataOff + i);
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
            const r = this.substring(refs[rsp - 1]!, vals[vsp - 2]!, vals[vsp - 1]!);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            vsp -= 2;
            refs[rsp - 1] = r;
            break;
          }
          case 68: { // CHR
            const r = this.chr(vals[vsp - 1]!);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            vsp--;
            refs[rsp++] = r;
            break;
          }
          case 69: { // CONCAT
            const r = this.concat(refs[rsp - 2]!, refs[rsp - 1]!);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
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
              const recv = refs[rsp - fnInfo[4 * code[pc + 1]! + 1]!]!;
              if (recv === 0) throw new MiniRuntimeError('null dereference');
              callee = vtables[vtableBase[words[recv + typeOff]!]! + code[pc]!]!;
              pc += 2;
            }
            const info = 4 * callee;
            const nValLocals = fnInfo[info + 2]!, nRefLocals = fnInfo[info + 3]!;
            if (fp + 1 >= MAX_FRAMES || rsp + nRefLocals + OPERAND_MARGIN >= STACK_SLOTS
              || vsp + nValLocals + OPERAND_MARGIN >= STACK_SLOTS) throw new MiniRuntimeError('stack overflow');
            frameFn[fp] = fn; framePc[fp] = pc; frameVb[fp] = vb; frameRb[fp] = rb;
            if (tiering) {
              let enter = entries[callee]!;
              if (enter === null && ++tier.counts[callee]! > threshold) enter = tier.compile(callee);
              if (enter !== null) {
                const cvb = vsp - fnInfo[info]!, crb = rsp - fnInfo[info + 1]!;
                result = tier.enter(enter, fp + 1, cvb, crb, -1);
                if (tier.st !== 0) {
                  fn = this.fn; code = codes[fn]!; pc = this.pc; fp = this.fp; vb = this.vb; rb = this.rb; vsp = this.vsp; rsp = this.rsp;
                  const exit = tier.settle();
                  if (exit !== RESUME) { status = exit; break dispatch; }
                  break;
                }
                vsp = cvb;
                rsp = crb;
                const kind = retKind[callee]!;
                if (kind === 1) vals[vsp++] = result;
                else if (kind === 2) refs[rsp++] = result;
                break;
              }
            }
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
            if (a !== 0 && !this.isInstance(a, t)) throw this.castError(a, t);
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
            vals[vsp++] = this.clock();
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
            const r = this.argsArray(code[pc]!);
            if (r === 0) { status = COLLECT; pc = start; break dispatch; }
            pc += 1;
            refs[rsp++] = r;
            break;
          }
          case 90: { // PARSEINT
            const s = refs[--rsp]!;
            const v = this.parseIntOf(s);
            if (v !== v) throw new MiniRuntimeError(this.parseIntFault(s));
            vals[vsp++] = v;
            break;
          }
          case 91: { // RLOAD_GETFIELD_R
            const o = refs[rb + code[pc]!]!;
            start = pc + 1;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            refs[rsp++] = words[o + code[pc + 2]!]!;
            pc += 3;
            break;
          }
          case 92: { // RLOAD_GETFIELD_V
            const o = refs[rb + code[pc]!]!;
            start = pc + 1;
            if (o === 0) throw new MiniRuntimeError('null dereference');
            vals[vsp++] = words[o + code[pc + 2]!]!;
            pc += 3;
            break;
          }
          case 93: // RLOAD_RLOAD
            refs[rsp++] = refs[rb + code[pc]!]!;
            refs[rsp++] = refs[rb + code[pc + 2]!]!;
            pc += 3;
            break;
          case 94: // VLOAD_VLOAD
            vals[vsp++] = vals[vb + code[pc]!]!;
            vals[vsp++] = vals[vb + code[pc + 2]!]!;
            pc += 3;
            break;
          case 95: // VLOAD_ICONST
            vals[vsp++] = vals[vb + code[pc]!]!;
            vals[vsp++] = code[pc + 2]!;
            pc += 3;
            break;
          case 96: // ICONST_IADD
            vals[vsp - 1] = (vals[vsp - 1]! + code[pc]!) | 0;
            pc += 2;
            break;
          case 97: // LT_JMPF
            vsp -= 2;
            pc += vals[vsp]! < vals[vsp + 1]! ? 2 : code[pc + 1]! + 2;
            break;
          case 98: // LE_JMPF
            vsp -= 2;
            pc += vals[vsp]! <= vals[vsp + 1]! ? 2 : code[pc + 1]! + 2;
            break;
          case 99: // GE_JMPF
            vsp -= 2;
            pc += vals[vsp]! >= vals[vsp + 1]! ? 2 : code[pc + 1]! + 2;
            break;
          case 100: // GT_JMPF
            vsp -= 2;
            pc += vals[vsp]! > vals[vsp + 1]! ? 2 : code[pc + 1]! + 2;
            break;
          default:
            throw new Error(`interpreter: bad opcode ${code[start]} at ${functions[fn]!.name}:${start}`);
        }
      }
    } catch (e) {
      // run() turns an OutOfMemoryError into a MiniRuntimeError with this state's trace.
      this.saveState(fn, start, fp, vb, rb, vsp, rsp);
      // Faults raised in compiled code carry their trace already.
      if (e instanceof MiniRuntimeError) throw e.frames.length > 0 ? e : this.withTrace(e);
      throw e;
    }
    this.saveState(fn, pc, fp, vb, rb, vsp, rsp);
    return status;
  }
}
