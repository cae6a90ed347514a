/**
 * The code generator of the compiled tier: one function's linked bytecode to the
 * source of a JavaScript function, which tier.ts turns into a function once with
 * `new Function`.
 *
 * Every local and every operand-stack depth is a JavaScript variable (`l3` a value
 * local, `a1` a reference local, `v2`/`r0` operand depths), so V8 keeps them in
 * registers; ints are `|0` arithmetic, fields and elements are loads and stores of
 * the heap's words at the offsets the linker wrote into the code. A function has two
 * forms: its body, called by compiled code and the interpreter, whose basic blocks
 * nest in JavaScript loops and labeled blocks (structure.ts); and, for a function
 * with loops, the form an interpreted frame enters at a loop head (on-stack
 * replacement), its blocks the cases of a `for (;;) switch (b)`. A body whose flow
 * graph does not nest falls back to the dispatch loop too.
 *
 * Exact roots: no collection ever runs while compiled code is on the JavaScript
 * stack. An allocation that returns 0 spills the frame to the machine's stacks in
 * the interpreter's layout, records the state and returns; each compiled caller
 * then spills its own frame and returns, down to the interpreter, whose driver
 * collects and resumes the frames interpreted (docs/decisions/i24-compiled-tier.md).
 * References held in JavaScript variables are thus never live across a collection.
 */

import { Op } from '../../bytecode/opcodes.js';
import { LITTLE_ENDIAN, type Heap } from '../../heap/api.js';
import type { BytecodeProgram } from '../../bytecode/program.js';
import type { LinkedProgram } from '../link.js';
import { analyze, effect, type Analysis, type Instr } from './analyze.js';
import { NonNull } from './non-null.js';
import { structure, type Scope, type Structure } from './structure.js';
import { OPERAND_MARGIN, STACK_SLOTS } from '../machine.js';

/** How INVOKE finds its target: see docs/decisions/i24-compiled-tier.md. */
export type Dispatch = 'vtable' | 'ic' | 'devirt';

export interface Layout {
  readonly typeOff: number;
  readonly lenOff: number;
  readonly dataOff: number;
  /** Whether scalar stores go to a GPU mirror's log: fixed before the heap's first
   *  allocation (`attachMirrorLog`), so before anything is compiled. */
  readonly mirrored: boolean;
}

export function layoutOf(h: Heap): Layout {
  return { typeOff: h.typeWordOffset, lenOff: h.lengthWordOffset, dataOff: h.arrayDataOffset, mirrored: h.mirror !== null };
}

export interface Generated {
  readonly source: string;
  readonly analysis: Analysis;
  /** Inline-cache sites (INVOKEs that check a cached class); both forms number them alike. */
  readonly icSites: number;
  /** Whether the function has loops, so an `osr` form. */
  readonly loops: boolean;
}

/** The one target of vtable slot `slot` among the classes that can hold method `m`, or -1. */
export function singleTarget(p: BytecodeProgram, slot: number, m: number): number {
  // The declaring class: the topmost class whose slot holds m; its descendants are
  // every class a receiver of the static type can have.
  const classes = p.classes;
  let owner = -1;
  for (const c of classes) {
    if (c.vtable[slot] !== m) continue;
    const sup = c.superId >= 0 ? classes[c.superId]! : undefined;
    if (!sup || sup.vtable[slot] !== m) { owner = c.id; break; }
  }
  if (owner < 0) return -1;
  for (const c of classes) {
    let d = c.id;
    while (d >= 0 && d !== owner) d = classes[d]!.superId;
    if (d === owner && c.vtable[slot] !== m) return -1;
  }
  return m;
}

function lit(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

export function jsName(p: BytecodeProgram, fn: number): string {
  return `f${fn}_${p.functions[fn]!.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** `body`: the function called (its body and the interpreter's entry); `osr`: the
 *  form an interpreted frame enters at a loop head. */
export type Form = 'body' | 'osr';

export function generate(L: LinkedProgram, lay: Layout, fn: number, dispatch: Dispatch, siteBase = 0, form: Form = 'body'): Generated {
  const p = L.program;
  const f = p.functions[fn]!;
  const code = L.code[fn]!;
  const an = analyze(p, code);
  const nVL = f.nValLocals, nRL = f.nRefLocals, nVP = f.nValParams, nRP = f.nRefParams;
  const { typeOff, lenOff, dataOff } = lay;
  const out: string[] = [];
  const emit = (s: string): void => {
    if (s !== '') out.push(s);
  };
  let icSites = 0;

  const fault = (i: Instr, msg: string): string => `throw R.fault(${msg}, ${fn}, ${i.pc}, fp);`;
  // A float's two words, read and written as one (Heap.floats).
  const getFloat = (addr: string): string => `floats.getFloat64((${addr}) * 4, ${LITTLE_ENDIAN})`;
  const setFloat = (addr: string, v: string): string => `floats.setFloat64((${addr}) * 4, ${v}, ${LITTLE_ENDIAN});`;
  /** A scalar store's note to the GPU mirror's log, where there is one: `n` words at `addr`. */
  const noteScalar = (addr: string, n: 1 | 2): string =>
    !lay.mirrored ? '' : n === 1 ? ` mirror.noteScalar(${addr});` : ` mirror.noteScalar(${addr}); mirror.noteScalar(${addr} + 1);`;
  // `this` is never assigned in a method (the compiler keeps slot 0 for it); checked all the same.
  const thisSlot = f.hasThis && !an.instrs.some((i) => i.op === Op.RSTORE && i.a === 0) ? 'a0' : null;
  const nn = new NonNull(thisSlot);
  const nullCheck = (i: Instr, x: string): string => (nn.needsCheck(x) ? `if (${x} === 0) ${fault(i, "'null dereference'")}` : '');
  const indexCheck = (i: Instr, a: string, x: string): string =>
    `if (${nn.needsCheck(a) ? `${a} === 0 || ` : ''}(${x} >>> 0) >= (words[${a} + ${lenOff}] >>> 0)) throw R.indexFault(${a}, ${x}, ${fn}, ${i.pc}, fp);`;
  /** Writes the frame to the machine's stacks in the interpreter's layout: one call on
   *  the leaving paths, so that they add little to the function V8 weighs for inlining. */
  const spill = (dv: number, dr: number): string => {
    const xs: string[] = [];
    for (let k = 0; k < nVL; k++) xs.push(`l${k}`);
    for (let d = 0; d < dv; d++) xs.push(`v${d}`);
    for (let k = 0; k < nRL; k++) xs.push(`a${k}`);
    for (let d = 0; d < dr; d++) xs.push(`r${d}`);
    return xs.length === 0 ? '' : `R.spill(vb, rb, ${nVL + dv}, ${xs.join(', ')});`;
  };
  /** Leaves for the driver with this frame innermost at `pc`. */
  const unwind = (i: Instr, pc: number, dv: number, dr: number, gc: boolean): string =>
    `{ ${spill(dv, dr)} return R.unwindAt(${fn}, ${pc}, fp, vb, rb, vb + ${nVL + dv}, rb + ${nRL + dr}, ${gc}); }`;
  /** An allocating helper's result: 0 means collect first, with the operands still in place. */
  const allocated = (i: Instr, expr: string): string => `t = ${expr}; if (t === 0) ${unwind(i, i.pc, i.dv, i.dr, true)}`;
  // The form being written: structured (the call's body) or the dispatch loop (a loop-head entry, or a
  // body whose flow graph did not nest), and the block being written.
  let scopes: Structure | null = null;
  let current = 0;
  const goto = (pc: number): string =>
    scopes !== null ? scopes.goto(current, an.blockOf[pc]!) : `{ b = ${an.blockOf[pc]}; continue; }`;
  /** Leaves for the driver's event-loop turn, to resume at loop head `pc` (`t` when the pc is in t).
   *  With `rehearse`, a flag that starts true: while it is, the path runs without leaving
   *  (R.yieldAt returns 1), so that V8 has seen it run before it optimizes the function. */
  const yieldTo = (pc: number | 't', dv: number, dr: number, rehearse?: string): string => {
    const leave = `R.yieldAt(${fn}, ${pc}, fp, vb, rb, vb + ${nVL + dv}, rb + ${nRL + dr}${rehearse === undefined ? '' : `, ${rehearse}`})`;
    return rehearse === undefined
      ? `{ ${spill(dv, dr)} return ${leave}; }`
      : `{ ${spill(dv, dr)} if (${leave} === 0) return 0; ${rehearse} = false; }`;
  };
  // The dispatch loop's one block where back-edges with empty operand stacks (all that
  // structured code makes) look at the clock (docs/decisions/s35-02-compiled-yields.md).
  const tickBlock = an.nBlocks;
  /** The structured body's rehearsal flags, one per back-edge. */
  const rehearsals: string[] = [];

  const call = (i: Instr, callee: string, target: number): void => {
    const g = p.functions[target]!;
    const dv = i.dv - g.nValParams, dr = i.dr - g.nRefParams;
    const args = ['fp + 1', `vb + ${nVL + dv}`, `rb + ${nRL + dr}`];
    for (let k = 0; k < g.nValParams; k++) args.push(`v${dv + k}`);
    for (let k = 0; k < g.nRefParams; k++) args.push(`r${dr + k}`);
    emit(`frameFn[fp] = ${fn}; framePc[fp] = ${i.next};`);
    emit(`t = ${callee}(${args.join(', ')});`);
    emit(`if (R.st !== 0) { ${spill(dv, dr)} return R.up(${fn}, ${i.pc}, fp, vb, rb); }`);
    if (g.returns === 'val') emit(`v${dv} = t;`);
    else if (g.returns === 'ref') emit(`r${dr} = t;`);
  };

  const body = (i: Instr): void => {
    emitOp(i);
    const [, , rp, ru] = effect(p, i.op, i.a, i.b);
    nn.after(i, rp, ru);
  };

  const emitOp = (i: Instr): void => {
    const v = i.dv, r = i.dr;
    const V1 = `v${v - 1}`, V2 = `v${v - 2}`, R1 = `r${r - 1}`, R2 = `r${r - 2}`;
    const bin = (expr: string): void => emit(`${V2} = ${expr};`);
    switch (i.op) {
      case Op.NOP: case Op.I2F: case Op.VPOP: case Op.RPOP: return;
      case Op.ICONST: return emit(`v${v} = ${i.a};`);
      case Op.FCONST: return emit(`v${v} = ${lit(p.floatConstants[i.a]!)};`);
      case Op.SCONST: return emit(`r${r} = consts[${i.a}];`);
      case Op.NULL: return emit(`r${r} = 0;`);
      case Op.VLOAD: return emit(`v${v} = l${i.a};`);
      case Op.VSTORE: return emit(`l${i.a} = ${V1};`);
      case Op.RLOAD: return emit(`r${r} = a${i.a};`);
      case Op.RSTORE: return emit(`a${i.a} = ${R1};`);
      case Op.GVLOAD: return emit(`v${v} = gv[${i.a}];`);
      case Op.GVSTORE: return emit(`gv[${i.a}] = ${V1};`);
      case Op.GRLOAD: return emit(`r${r} = gr[${i.a}];`);
      case Op.GRSTORE: return emit(`gr[${i.a}] = ${R1};`);
      case Op.RDUP: return emit(`r${r} = ${R1};`);
      case Op.IADD: return bin(`(${V2} + ${V1}) | 0`);
      case Op.ISUB: return bin(`(${V2} - ${V1}) | 0`);
      case Op.IMUL: return bin(`Math.imul(${V2}, ${V1})`);
      case Op.IDIV: emit(`if (${V1} === 0) ${fault(i, "'division by zero'")}`); return bin(`(${V2} / ${V1}) | 0`);
      case Op.IMOD: emit(`if (${V1} === 0) ${fault(i, "'division by zero'")}`); return bin(`(${V2} % ${V1}) | 0`);
      case Op.INEG: return emit(`${V1} = -${V1} | 0;`);
      case Op.IAND: return bin(`${V2} & ${V1}`);
      case Op.IOR: return bin(`${V2} | ${V1}`);
      case Op.IXOR: return bin(`${V2} ^ ${V1}`);
      case Op.ISHL: return bin(`${V2} << ${V1}`);
      case Op.ISHR: return bin(`${V2} >> ${V1}`);
      case Op.IUSHR: return bin(`(${V2} >>> ${V1}) | 0`);
      case Op.INOT: return emit(`${V1} = ~${V1};`);
      case Op.FADD: return bin(`${V2} + ${V1}`);
      case Op.FSUB: return bin(`${V2} - ${V1}`);
      case Op.FMUL: return bin(`${V2} * ${V1}`);
      case Op.FDIV: return bin(`${V2} / ${V1}`);
      case Op.FMOD: return bin(`${V2} % ${V1}`);
      case Op.FNEG: return emit(`${V1} = -${V1};`);
      case Op.F2I:
        emit(`if (!(${V1} < 2147483648 && ${V1} > -2147483649)) throw R.toIntFault(${V1}, ${fn}, ${i.pc}, fp);`);
        return emit(`${V1} = ${V1} | 0;`);
      case Op.LT: return bin(`${V2} < ${V1} ? 1 : 0`);
      case Op.LE: return bin(`${V2} <= ${V1} ? 1 : 0`);
      case Op.GT: return bin(`${V2} > ${V1} ? 1 : 0`);
      case Op.GE: return bin(`${V2} >= ${V1} ? 1 : 0`);
      case Op.EQ: return bin(`${V2} === ${V1} ? 1 : 0`);
      case Op.NE: return bin(`${V2} !== ${V1} ? 1 : 0`);
      case Op.NOT: return emit(`${V1} = ${V1} === 0 ? 1 : 0;`);
      case Op.REQ: return emit(`v${v} = ${R2} === ${R1} ? 1 : 0;`);
      case Op.RNE: return emit(`v${v} = ${R2} !== ${R1} ? 1 : 0;`);
      case Op.SEQ: return emit(`v${v} = M.stringsEqual(${R2}, ${R1}) ? 1 : 0;`);
      case Op.SNE: return emit(`v${v} = M.stringsEqual(${R2}, ${R1}) ? 0 : 1;`);
      case Op.JMP: {
        // A back-edge counts toward the exit to the event loop (signals, output flushing).
        const to = i.next + i.a;
        if (i.a < 0 && v === 0 && r === 0 && scopes !== null) {
          const flag = `c${rehearsals.length}`;
          rehearsals.push(flag);
          emit(`if (--R.ticks === 0 && R.yieldDue(${flag})) ${yieldTo(to, 0, 0, flag)}`);
        } else if (i.a < 0 && v === 0 && r === 0) {
          emit(`if (--R.ticks === 0) { t = ${to}; y = ${an.blockOf[to]}; b = ${tickBlock}; continue; }`);
        } else if (i.a < 0) emit(`if (--R.ticks === 0 && R.yieldDue(false)) ${yieldTo(to, v, r)}`);
        return emit(goto(to));
      }
      case Op.ARGS: return emit(allocated(i, `M.argsArray(${i.a})`) + ` r${r} = t;`);
      case Op.PARSEINT:
        emit(`t = M.parseIntOf(${R1});`);
        return emit(`if (t !== t) ${fault(i, `M.parseIntFault(${R1})`)} v${v} = t;`);
      case Op.JMPF: return emit(`if (${V1} === 0) ${goto(i.next + i.a)}`);
      case Op.JMPT: return emit(`if (${V1} !== 0) ${goto(i.next + i.a)}`);
      case Op.NEW:
        emit(allocated(i, `R.newInstance(${i.a}, ${fn}, ${i.pc}, fp)`));
        return emit(`r${r} = t;`);
      case Op.NEWARRAY:
        emit(allocated(i, `R.newArray(${i.a}, ${V1}, ${fn}, ${i.pc}, fp)`));
        return emit(`r${r} = t;`);
      case Op.GETFIELD_V: emit(nullCheck(i, R1)); return emit(`v${v} = words[${R1} + ${i.a}];`);
      case Op.GETFIELD_F:
        emit(nullCheck(i, R1));
        return emit(`v${v} = ${getFloat(`${R1} + ${i.a}`)};`);
      case Op.GETFIELD_R: emit(nullCheck(i, R1)); return emit(`${R1} = words[${R1} + ${i.a}];`);
      case Op.PUTFIELD_V:
        emit(nullCheck(i, R1));
        return emit(`words[${R1} + ${i.a}] = ${V1};${noteScalar(`${R1} + ${i.a}`, 1)}`);
      case Op.PUTFIELD_F:
        emit(nullCheck(i, R1));
        return emit(setFloat(`${R1} + ${i.a}`, V1) + noteScalar(`${R1} + ${i.a}`, 2));
      case Op.PUTFIELD_R: emit(nullCheck(i, R2)); return emit(`heap.writeRef(${R2}, ${i.a}, ${i.b}, ${R1});`);
      case Op.ALOAD_V: case Op.CHARAT: emit(indexCheck(i, R1, V1)); return emit(`${V1} = words[${R1} + ${dataOff} + ${V1}];`);
      case Op.ALOAD_F:
        emit(indexCheck(i, R1, V1));
        return emit(`${V1} = ${getFloat(`${R1} + ${dataOff} + 2 * ${V1}`)};`);
      case Op.ALOAD_R: emit(indexCheck(i, R1, V1)); return emit(`${R1} = words[${R1} + ${dataOff} + ${V1}];`);
      case Op.ASTORE_V:
        emit(indexCheck(i, R1, V2));
        return emit(`t = ${R1} + ${dataOff} + ${V2}; words[t] = ${V1};${noteScalar('t', 1)}`);
      case Op.ASTORE_F:
        emit(indexCheck(i, R1, V2));
        return emit(`t = ${R1} + ${dataOff} + 2 * ${V2}; ${setFloat('t', V1)}${noteScalar('t', 2)}`);
      case Op.ASTORE_R: emit(indexCheck(i, R2, V1)); return emit(`heap.writeRef(${R2}, ${dataOff} + ${V1}, ${V1}, ${R1});`);
      case Op.ALEN: emit(nullCheck(i, R1)); return emit(`v${v} = words[${R1} + ${lenOff}];`);
      case Op.SUBSTR: emit(allocated(i, `R.substring(${R1}, ${V2}, ${V1}, ${fn}, ${i.pc}, fp)`)); return emit(`${R1} = t;`);
      case Op.CHR: emit(allocated(i, `R.chr(${V1}, ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.CONCAT: emit(allocated(i, `R.concat(${R2}, ${R1}, ${fn}, ${i.pc}, fp)`)); return emit(`${R2} = t;`);
      case Op.TOSTR_I: emit(allocated(i, `R.str(String(${V1}), ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_F: emit(allocated(i, `R.str(R.formatFloat(${V1}), ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_B: emit(allocated(i, `R.str(${V1} !== 0 ? 'true' : 'false', ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_R: emit(allocated(i, `R.str(M.refText(${R1}), ${fn}, ${i.pc}, fp)`)); return emit(`${R1} = t;`);
      case Op.CALL: return call(i, `T[${i.a}]`, i.a);
      case Op.INVOKE: {
        const m = p.functions[i.b]!;
        const recv = `r${r - m.nRefParams}`;
        emit(nullCheck(i, recv));
        const one = dispatch === 'devirt' ? singleTarget(p, i.a, i.b) : -1;
        if (one >= 0) return call(i, `T[${one}]`, i.b);
        if (dispatch === 'vtable') {
          emit(`t = vtables[vtableBase[words[${recv} + ${typeOff}]] + ${i.a}];`);
        } else {
          // A monomorphic inline cache: the class seen last and its target.
          const s = 2 * icSites;
          emit(`t = words[${recv} + ${typeOff}];`);
          emit(`t = t === IC[${s}] ? IC[${s + 1}] : R.icMiss(IC, ${s}, t, ${i.a}, ${siteBase + icSites});`);
          icSites++;
        }
        return call(i, 'T[t]', i.b);
      }
      case Op.RET: return emit('return 0;');
      case Op.RET_V: return emit(`return ${V1};`);
      case Op.RET_R: return emit(`return ${R1};`);
      case Op.INSTANCEOF: return emit(`v${v} = M.isInstance(${R1}, ${i.a}) ? 1 : 0;`);
      case Op.CHECKCAST: return emit(`if (${R1} !== 0 && !M.isInstance(${R1}, ${i.a})) throw R.castFault(${R1}, ${i.a}, ${fn}, ${i.pc}, fp);`);
      case Op.PRINT_I: return emit(`M.print(String(${V1}));`);
      case Op.PRINT_F: return emit(`M.print(R.formatFloat(${V1}));`);
      case Op.PRINT_B: return emit(`M.print(${V1} !== 0 ? 'true' : 'false');`);
      case Op.PRINT_R: return emit(`M.print(M.refText(${R1}));`);
      case Op.SQRT: return emit(`${V1} = Math.sqrt(${V1});`);
      case Op.CLOCK: return emit(`v${v} = (performance.now() - M.startTime) / 1000;`);
      case Op.GC: case Op.MINORGC:
        emit(`heap.requestCollection(${i.op === Op.GC ? "'full', 'gc() call'" : "'young', 'minorGc() call'"});`);
        return emit(unwind(i, i.next, v, r, true));
      default:
        throw new Error(`tier: cannot compile opcode ${i.op}`);
    }
  };

  const params: string[] = [];
  for (let k = 0; k < nVP; k++) params.push(`p${k}`);
  for (let k = 0; k < nRP; k++) params.push(`q${k}`);
  const decl = (prefix: string, n: number, init: (k: number) => string): string =>
    n === 0 ? '' : `let ${Array.from({ length: n }, (_, k) => `${prefix}${k} = ${init(k)}`).join(', ')};`;
  // The interpreter's bounds for a call (machine.ts), as limits on this frame's bases.
  const vLimit = STACK_SLOTS - OPERAND_MARGIN - nVL - nVP, rLimit = STACK_SLOTS - OPERAND_MARGIN - nRL - nRP;
  // A function without loops is never entered at a loop head and never yields.
  const loops = an.instrs.some((i) => i.dv >= 0 && i.op === Op.JMP && i.a < 0);
  const structured = form === 'body' ? structure(an) : null;

  /** Every reachable instruction in code order, `open` at each block start. */
  const emitBlocks = (open: (b: number, pc: number) => void): void => {
    let live = true;
    let last: Instr | null = null;
    for (const i of an.instrs) {
      if (i.dv < 0) continue; // unreachable
      const blk = an.blockOf[i.pc]!;
      if (blk >= 0) {
        if (live && last !== null && scopes !== null) emit(scopes.goto(current, blk));
        open(blk, i.pc);
        current = blk;
        live = true;
        nn.blockStart();
      }
      if (!live) continue;
      body(i);
      last = i;
      if (i.op === Op.JMP || i.op === Op.RET || i.op === Op.RET_V || i.op === Op.RET_R) live = false;
    }
    // A function that falls off its end (the checker allows this only for void ones).
    if (live && scopes !== null) emit(scopes.goto(current, an.nBlocks));
    else if (live) emit('return 0;');
  };

  /** The blocks as the cases of a dispatch loop on `b`, which can start at any block. */
  const emitDispatch = (): void => {
    emit('for (;;) switch (b) {');
    emitBlocks((blk, pc) => emit(`case ${blk}: // pc ${pc}`));
    if (loops) {
      // A back-edge used up the ticks: `t` is the loop head's pc, `y` its block.
      emit(`case ${tickBlock}:`);
      emit(`if (R.yieldDue(cold)) ${yieldTo('t', 0, 0, 'cold')}`);
      emit('b = y; continue;');
    }
    emit('default: return 0;');
    emit('}');
  };
  const temporaries = (): void => {
    emit(decl('v', an.maxV, () => '0'));
    emit(decl('r', an.maxR, () => '0'));
    emit(loops ? 'let t = 0, y = 0;' : 'let t = 0;');
  };

  if (form === 'osr') {
    // The way in at a loop head for an interpreted frame, whose locals are on the
    // machine's stacks: the blocks behind a dispatch on the block number.
    emit('let cold = true;');
    emit(`return function ${jsName(p, fn)}_osr(fp, vb, rb, b) {`);
    emit(decl('l', nVL, (k) => `vals[vb + ${k}]`));
    emit(decl('a', nRL, (k) => `refs[rb + ${k}]`));
    temporaries();
    emitDispatch();
    emit('};');
    return { source: out.join('\n'), analysis: an, icSites, loops };
  }
  // The call's body: structured where the flow graph nests, entered only at its start.
  const flagsAt = out.length;
  emit(`const body = function ${jsName(p, fn)}(${['fp', 'vb', 'rb', ...params].join(', ')}) {`);
  // Too deep for the JavaScript stack or the machine's: the driver decides (tier.ts).
  emit(`if (fp >= R.lim || vb >= ${vLimit} || rb >= ${rLimit}) {`);
  emit(`  R.overflow(fp, vb, rb, ${fn});`);
  for (let k = 0; k < nVP; k++) emit(`  vals[vb + ${k}] = p${k};`);
  for (let k = 0; k < nRP; k++) emit(`  refs[rb + ${k}] = q${k};`);
  emit('  return 0;');
  emit('}');
  emit(decl('l', nVL, (k) => (k < nVP ? `p${k}` : '0')));
  emit(decl('a', nRL, (k) => (k < nRP ? `q${k}` : '0')));
  temporaries();
  if (structured !== null) {
    scopes = structured;
    const stack: Scope[] = [];
    emitBlocks((blk) => {
      while (stack.length > 0 && stack[stack.length - 1]!.end === blk) {
        stack.pop();
        emit('}');
      }
      if (stack.some((s) => s.end === blk)) throw new Error(`tier: scopes ending at block ${blk} do not nest`);
      for (const s of structured.opening[blk]!) {
        emit(s.kind === 'loop' ? `L${blk}: for (;;) {` : `B${s.end}: {`);
        stack.push(s);
      }
    });
    for (; stack.length > 0; stack.pop()) emit('}');
    if (rehearsals.length > 0) out.splice(flagsAt, 0, `let ${rehearsals.map((c) => `${c} = true`).join(', ')};`);
  } else {
    emit('let b = 0;');
    emitDispatch();
    if (loops) out.splice(flagsAt, 0, 'let cold = true;');
  }
  emit('};');
  // The interpreter's way in: a call (b < 0, arguments on the machine's stacks) or a
  // loop head, through the dispatch form, made at the first such entry (tier.ts).
  const fromStacks = [...Array.from({ length: nVP }, (_, k) => `vals[vb + ${k}]`), ...Array.from({ length: nRP }, (_, k) => `refs[rb + ${k}]`)];
  const called = `body(${['fp', 'vb', 'rb', ...fromStacks].join(', ')})`;
  emit('const enter = function (fp, vb, rb, b) {');
  emit(`  return ${loops ? `b < 0 ? ${called} : R.enterLoop(${fn}, fp, vb, rb, b)` : called};`);
  emit('};');
  emit('return [body, enter];');
  return { source: out.join('\n'), analysis: an, icSites, loops };
}
