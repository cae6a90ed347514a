/**
 * The code generator of the compiled tier: one function's linked bytecode to the
 * source of a JavaScript function, which tier.ts turns into a function once with
 * a `vm.Script`.
 *
 * Every local and every operand-stack depth is a JavaScript variable (`l3` a value
 * local, `a1` a reference local, `v2`/`r0` operand depths), so V8 keeps them in
 * registers; ints are `|0` arithmetic, fields and elements are loads and stores of
 * the heap's words at the offsets the linker wrote into the code. A function's body,
 * called by compiled code and the interpreter, nests its basic blocks in JavaScript
 * loops and labeled blocks (structure.ts). A function with loops has a form for each
 * loop head where an interpreted frame enters (on-stack replacement): the blocks from
 * that head on, structured where the head is a loop at the top level, else the cases
 * of a `for (;;) switch (b)` (as is a body whose flow graph does not nest).
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
  /** A factory's body: given R, M, T, heap, IC (the inline caches) and SB (their first
   *  site's number), it returns the function (tier.ts). */
  readonly source: string;
  readonly analysis: Analysis;
  /** Inline-cache sites (INVOKEs that check a cached class); both forms number them alike. */
  readonly icSites: number;
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

/** Instructions without effects, which the generated code folds into their users' expressions. */
const PURE = new Set<number>([
  Op.NOP, Op.I2F, Op.VPOP, Op.RPOP, Op.ICONST, Op.FCONST, Op.VLOAD, Op.GVLOAD, Op.SCONST, Op.NULL, Op.RLOAD, Op.GRLOAD,
  Op.RDUP, Op.IADD, Op.ISUB, Op.IMUL, Op.IAND, Op.IOR, Op.IXOR, Op.ISHL, Op.ISHR, Op.IUSHR, Op.INEG, Op.INOT, Op.FADD,
  Op.FSUB, Op.FMUL, Op.FDIV, Op.FMOD, Op.FNEG, Op.SQRT, Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE, Op.NOT, Op.REQ, Op.RNE,
]);
/** Instructions that may leave for a collection with their operands still on the stacks,
 *  to run again (the allocating ones, and gc() calls). */
const SPILLS_OPERANDS = new Set<number>([
  Op.NEW, Op.NEWARRAY, Op.ARGS, Op.SUBSTR, Op.CHR, Op.CONCAT, Op.TOSTR_I, Op.TOSTR_F, Op.TOSTR_B, Op.TOSTR_R, Op.GC, Op.MINORGC,
]);

/** Binary value operators as expressions of their operands (a below b). */
const BINARY = new Map<number, (a: string, b: string) => string>([
  [Op.IADD, (a, b) => `((${a} + ${b}) | 0)`],
  [Op.ISUB, (a, b) => `((${a} - ${b}) | 0)`],
  [Op.IMUL, (a, b) => `Math.imul(${a}, ${b})`],
  [Op.IAND, (a, b) => `(${a} & ${b})`],
  [Op.IOR, (a, b) => `(${a} | ${b})`],
  [Op.IXOR, (a, b) => `(${a} ^ ${b})`],
  [Op.ISHL, (a, b) => `(${a} << ${b})`],
  [Op.ISHR, (a, b) => `(${a} >> ${b})`],
  [Op.IUSHR, (a, b) => `((${a} >>> ${b}) | 0)`],
  [Op.FADD, (a, b) => `(${a} + ${b})`],
  [Op.FSUB, (a, b) => `(${a} - ${b})`],
  [Op.FMUL, (a, b) => `(${a} * ${b})`],
  [Op.FDIV, (a, b) => `(${a} / ${b})`],
  [Op.FMOD, (a, b) => `(${a} % ${b})`],
]);
/** Unary value operators. */
const UNARY = new Map<number, (a: string) => string>([
  [Op.INEG, (a) => `(-${a} | 0)`],
  [Op.INOT, (a) => `(~${a})`],
  [Op.FNEG, (a) => `(-${a})`],
  [Op.SQRT, (a) => `Math.sqrt(${a})`],
]);
/** Comparisons: a condition whose value is 1 or 0. */
const COMPARE = new Map<number, string>([[Op.LT, '<'], [Op.LE, '<='], [Op.GT, '>'], [Op.GE, '>='], [Op.EQ, '==='], [Op.NE, '!==']]);

/** Characters of a pending operand expression past which it is written to its variable. */
const LONGEST_EXPRESSION = 400;

/** A literal operand: a negative one parenthesized, so that `-` before it stays an operator. */
const num = (x: string): string => (x.startsWith('-') ? `(${x})` : x);
/** A condition's value: 1 or 0. */
const asValue = (c: string): string => `(${c} ? 1 : 0)`;

/** Instructions a method may hold to be inlined where its one target is known: loads of its
 *  parameters, constants, globals, fields and elements, and arithmetic; no store, no call,
 *  no allocation, no jump. */
const INLINABLE = new Set<number>([
  Op.NOP, Op.I2F, Op.ICONST, Op.FCONST, Op.VLOAD, Op.RLOAD, Op.GVLOAD, Op.GRLOAD, Op.NULL, Op.SCONST,
  ...BINARY.keys(), ...UNARY.keys(), ...COMPARE.keys(), Op.NOT, Op.REQ, Op.RNE,
  Op.GETFIELD_V, Op.GETFIELD_F, Op.GETFIELD_R, Op.ALEN, Op.ALOAD_V, Op.ALOAD_F, Op.ALOAD_R, Op.CHARAT,
]);
/** The most instructions an inlined method has, its return included. */
const INLINE_MAX = 16;

/** The instructions of function `fn` if it is small enough and simple enough to inline
 *  (INLINABLE, one block ending in its return), else null; worked out once per program. */
const inlineCodes = new WeakMap<LinkedProgram, Map<number, Instr[] | null>>();
function inlineCode(L: LinkedProgram, fn: number): Instr[] | null {
  let known = inlineCodes.get(L);
  if (known === undefined) inlineCodes.set(L, (known = new Map()));
  let code = known.get(fn);
  if (code === undefined) {
    const instrs = analyze(L.program, L.code[fn]!).instrs.filter((i) => i.dv >= 0);
    const last = instrs[instrs.length - 1];
    const ok = last !== undefined && instrs.length <= INLINE_MAX
      && (last.op === Op.RET_V || last.op === Op.RET_R)
      && instrs.slice(0, -1).every((i) => INLINABLE.has(i.op));
    code = ok ? instrs : null;
    known.set(fn, code);
  }
  return code;
}

function lit(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

export function jsName(p: BytecodeProgram, fn: number): string {
  return `f${fn}_${p.functions[fn]!.name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** `body`: the function called (its body and the interpreter's entry); `osr`: the
 *  form an interpreted frame enters at loop head `entry` (a block). */
export type Form = 'body' | 'osr';

export function generate(L: LinkedProgram, lay: Layout, fn: number, dispatch: Dispatch, form: Form = 'body', entry = 0): Generated {
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
  // Inline-cache sites numbered in code order, so that both forms of a function share them.
  const icSiteOf = new Map<number, number>();
  for (const i of an.instrs) {
    if (i.dv >= 0 && i.op === Op.INVOKE && dispatch !== 'vtable' && (dispatch !== 'devirt' || singleTarget(p, i.a, i.b) < 0)) {
      icSiteOf.set(i.pc, icSiteOf.size);
    }
  }
  const icSites = icSiteOf.size;

  const fault = (i: Instr, msg: string): string => `throw R.fault(${msg}, ${fn}, ${i.pc}, fp);`;
  // A float's two words, read and written as one (Heap.floats).
  const getFloat = (addr: string): string => `floats.getFloat64((${addr}) * 4, ${LITTLE_ENDIAN})`;
  const setFloat = (addr: string, v: string): string => `floats.setFloat64((${addr}) * 4, ${v}, ${LITTLE_ENDIAN});`;
  /** A scalar store's note to the GPU mirror's log, where there is one: `n` words at `addr`. */
  const noteScalar = (addr: string, n: 1 | 2): string =>
    !lay.mirrored ? '' : n === 1 ? ` mirror.noteScalar(${addr});` : ` mirror.noteScalar(${addr}); mirror.noteScalar(${addr} + 1);`;
  /** A constant, global or string constant an instruction pushes (the same in a caller and an inlined method). */
  const constant = (i: Instr): string => {
    switch (i.op) {
      case Op.ICONST: return num(String(i.a));
      case Op.FCONST: return num(lit(p.floatConstants[i.a]!));
      case Op.GVLOAD: return `gv[${i.a}]`;
      case Op.GRLOAD: return `gr[${i.a}]`;
      case Op.SCONST: return `consts[${i.a}]`;
      default: return '0'; // NULL
    }
  };
  /** Element `x` of array `a`: a word, or a float's two words. */
  const wordAt = (a: string, x: string): string => `words[${a} + ${dataOff} + ${x}]`;
  const floatAt = (a: string, x: string): string => getFloat(`${a} + ${dataOff} + 2 * ${x}`);
  /** Whether index `x` is outside array `a` (or `a` is null, when `checkNull`). */
  const outside = (a: string, x: string, checkNull: boolean): string =>
    `${checkNull ? `${a} === 0 || ` : ''}(${x} >>> 0) >= (words[${a} + ${lenOff}] >>> 0)`;
  // `this` is never assigned in a method (the compiler keeps slot 0 for it); checked all the same.
  const thisSlot = f.hasThis && !an.instrs.some((i) => i.op === Op.RSTORE && i.a === 0) ? 'a0' : null;
  const nn = new NonNull(thisSlot);
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
   *  With `rehearse`, while its test holds the path runs without leaving (R.yieldAt returns 1)
   *  and then its `done` statement: V8 throws optimized code away at a call it never saw run,
   *  so each leaving path runs once before V8 optimizes the function (s35-02, s40-01). */
  const yieldTo = (pc: number | 't', dv: number, dr: number, rehearse?: { test: string; done: string }): string => {
    const leave = `R.yieldAt(${fn}, ${pc}, fp, vb, rb, vb + ${nVL + dv}, rb + ${nRL + dr}${rehearse === undefined ? '' : `, ${rehearse.test}`})`;
    return rehearse === undefined
      ? `{ ${spill(dv, dr)} return ${leave}; }`
      : `{ ${spill(dv, dr)} if (${leave} === 0) return 0; ${rehearse.done} }`;
  };
  // The dispatch loop's one block where back-edges with empty operand stacks (all that
  // structured code makes) look at the clock (docs/decisions/s35-02-compiled-yields.md).
  const tickBlock = an.nBlocks;
  // The structured body's back-edges each look at the clock. The first look of any of them
  // (after TIER_TICKS back-edges: V8 keeps type feedback by then) rehearses its leaving
  // path and arms the others, which rehearse theirs where they next run: bit k of `arm`
  // and `done` stands for back-edge k (modulo 30).
  let backEdges = 0;
  const allBackEdges = an.instrs.filter((i) => i.dv === 0 && i.dr === 0 && i.op === Op.JMP && i.a < 0).length;
  const allBits = allBackEdges >= 30 ? 0x3fffffff : (1 << allBackEdges) - 1;

  // The operand stacks as expressions: a pure instruction (a constant, a local or global
  // load, arithmetic, a comparison) pushes an expression instead of writing a variable,
  // and the instruction that uses it reads it in place. Anything else first writes the
  // pending values below its operands to their variables (`flush`), since it may change
  // what they read or spill them; a block's end writes all. V8's interpreter and
  // baseline compiler, which run the code until V8 optimizes it, then execute fewer
  // bytecodes per instruction.
  interface Pending { readonly e: string; readonly c: string | null }
  const pv: (Pending | null)[] = [];
  const pr: (string | null)[] = [];
  // Read twice at no cost: a variable, a number, an element at a constant index.
  const SIMPLE = /^(?:[A-Za-z_]\w*|\(?-?[\d.]+(?:e[-+]?\d+)?\)?|-?Infinity|NaN|\w+\[\d+\])$/;
  const valueOf = (x: Pending): string => (x.c !== null ? asValue(x.c) : x.e);
  const val = (d: number): string => {
    const x = pv[d];
    return x ? valueOf(x) : `v${d}`;
  };
  const ref = (d: number): string => pr[d] ?? `r${d}`;
  const writeV = (d: number): void => {
    const x = pv[d];
    if (x) emit(`v${d} = ${valueOf(x)};`);
    pv[d] = null;
  };
  const writeR = (d: number): void => {
    const x = pr[d];
    if (x != null) emit(`r${d} = ${x};`);
    pr[d] = null;
  };
  /** Writes the pending operands below depths dv and dr: values first, since a value (a
   *  reference comparison) may read a reference variable. */
  const flush = (dv: number, dr: number): void => {
    for (let d = 0; d < dv; d++) writeV(d);
    for (let d = 0; d < dr; d++) writeR(d);
  };
  const flushAll = (): void => flush(an.maxV + 1, an.maxR + 1);
  /** Value depth d for a use that reads it more than once. */
  const simpleV = (d: number): string => {
    if (pv[d] && !SIMPLE.test(val(d))) writeV(d);
    return val(d);
  };
  /** Reference depth d for a use that needs it non-null: checked unless known (non-null.ts
   *  keeps facts about locals and registers, so a pending constant or global is asked
   *  about by its register, and written there to be checked). */
  const factName = (d: number): string => {
    const x = pr[d];
    return x != null && /^a\d+$/.test(x) ? x : `r${d}`;
  };
  const nonNull = (i: Instr, d: number): string => {
    const x = pr[d];
    const name = factName(d);
    if (nn.needsCheck(name)) {
      if (name !== x) writeR(d);
      emit(`if (${name} === 0) ${fault(i, "'null dereference'")}`);
    }
    return name === x ? x : ref(d);
  };
  /** An element access's array (reference depth ad) and index (value depth xd), with the checks. */
  const indexed = (i: Instr, ad: number, xd: number): [string, string] => {
    const x = simpleV(xd);
    const name = factName(ad);
    const checkNull = nn.needsCheck(name);
    if (name !== pr[ad]) writeR(ad);
    const a = ref(ad);
    emit(`if (${outside(a, x, checkNull)}) throw R.indexFault(${a}, ${x}, ${fn}, ${i.pc}, fp);`);
    return [a, x];
  };
  /** A conditional jump to `pc`; nothing where control gets there anyway. */
  const branch = (cond: string, pc: number): void => {
    const g = goto(pc);
    if (g !== '') emit(`if (${cond}) ${g}`);
  };

  const call = (i: Instr, callee: string, target: number): void => {
    const g = p.functions[target]!;
    const dv = i.dv - g.nValParams, dr = i.dr - g.nRefParams;
    const args = ['fp + 1', `vb + ${nVL + dv}`, `rb + ${nRL + dr}`];
    for (let k = 0; k < g.nValParams; k++) args.push(val(dv + k));
    for (let k = 0; k < g.nRefParams; k++) args.push(ref(dr + k));
    emit(`frameFn[fp] = ${fn}; framePc[fp] = ${i.next};`);
    emit(`t = ${callee}(${args.join(', ')});`);
    emit(`if (R.st !== 0) { ${spill(dv, dr)} return R.up(${fn}, ${i.pc}, fp, vb, rb); }`);
    if (g.returns === 'val') emit(`v${dv} = t;`);
    else if (g.returns === 'ref') emit(`r${dr} = t;`);
  };

  const body = (i: Instr): void => {
    const [vp, vu, rp, ru] = effect(p, i.op, i.a, i.b);
    const v = i.dv, r = i.dr;
    if (PURE.has(i.op)) {
      pure(i);
    } else {
      // An allocation that must collect first spills its operands too, to run again;
      // a return leaves nothing behind.
      if (SPILLS_OPERANDS.has(i.op)) flush(v, r);
      else if (i.op !== Op.RET_V && i.op !== Op.RET_R && i.op !== Op.RET) flush(v - vp, r - rp);
      emitOp(i);
      for (let d = v - vp; d < Math.max(v, v - vp + vu); d++) pv[d] = null;
      for (let d = r - rp; d < Math.max(r, r - rp + ru); d++) pr[d] = null;
    }
    nn.after(i, rp, ru);
  };

  /** A pure instruction: its result as an expression, written nowhere yet. */
  const pure = (i: Instr): void => {
    const v = i.dv, r = i.dr;
    const V1 = val(v - 1), V2 = val(v - 2);
    const pushV = (d: number, e: string, c: string | null = null): void => {
      for (let k = d; k < v; k++) pv[k] = null;
      pv[d] = { e, c };
      // A long chain of operators (a 50,000-term sum) would nest deeper than V8's parser goes.
      if (e.length + (c?.length ?? 0) > LONGEST_EXPRESSION) writeV(d);
    };
    const binary = BINARY.get(i.op), unary = UNARY.get(i.op), compare = COMPARE.get(i.op);
    if (binary) return pushV(v - 2, binary(V2, V1));
    if (unary) return pushV(v - 1, unary(V1));
    if (compare) return pushV(v - 2, '', `${V2} ${compare} ${V1}`);
    switch (i.op) {
      case Op.NOP: case Op.I2F: return;
      case Op.VPOP: pv[v - 1] = null; return;
      case Op.RPOP: pr[r - 1] = null; return;
      case Op.ICONST: case Op.FCONST: case Op.GVLOAD: return pushV(v, constant(i));
      case Op.VLOAD: return pushV(v, `l${i.a}`);
      case Op.SCONST: case Op.NULL: case Op.GRLOAD: pr[r] = constant(i); return;
      case Op.RLOAD: pr[r] = `a${i.a}`; return;
      case Op.RDUP: pr[r] = ref(r - 1); return;
      case Op.NOT: {
        const x = pv[v - 1];
        return pushV(v - 1, '', x && x.c !== null ? `!(${x.c})` : `${V1} === 0`);
      }
      case Op.REQ: case Op.RNE: {
        const c = `${ref(r - 2)} ${i.op === Op.REQ ? '===' : '!=='} ${ref(r - 1)}`;
        pr[r - 1] = pr[r - 2] = null;
        return pushV(v, '', c);
      }
      default:
        throw new Error(`tier: opcode ${i.op} is not pure`);
    }
  };

  // ---- Inlining (s40-03): a small method without calls or stores, at a call site whose
  // one target it is, becomes its loads and checks in place, its result written to the
  // caller's operand variable. A fault inside it reports the method's frame, as a call would.
  let inlineTemps = 0;
  const inlined = (i: Instr, target: number): boolean => {
    const code = inlineCode(L, target);
    if (code === null) return false;
    const g = p.functions[target]!;
    const dv = i.dv - g.nValParams, dr = i.dr - g.nRefParams;
    let temps = 0;
    /** `x`, or a temporary holding it where it is read more than once. */
    const once = (x: string): string => {
      if (SIMPLE.test(x)) return x;
      const tmp = `x${temps++}`;
      emit(`${tmp} = ${x};`);
      return tmp;
    };
    const vals: string[] = [], refs: string[] = [];
    const params = Array.from({ length: g.nValParams }, (_, k) => once(val(dv + k)));
    const refParams = Array.from({ length: g.nRefParams }, (_, k) => once(ref(dr + k)));
    // The receiver was checked at the call.
    const known = new Set<string>(g.hasThis ? [refParams[0]!] : []);
    const leave = (ci: Instr, thrown: string): string => `{ frameFn[fp] = ${fn}; framePc[fp] = ${i.next}; throw ${thrown}; }`;
    const object = (ci: Instr): string => {
      const o = once(refs.pop()!);
      if (!known.has(o)) {
        emit(`if (${o} === 0) ${leave(ci, `R.fault('null dereference', ${target}, ${ci.pc}, fp + 1)`)}`);
        known.add(o);
      }
      return o;
    };
    const element = (ci: Instr): [string, string] => {
      const x = once(vals.pop()!);
      const a = once(refs.pop()!);
      emit(`if (${outside(a, x, !known.has(a))}) ${leave(ci, `R.indexFault(${a}, ${x}, ${target}, ${ci.pc}, fp + 1)`)}`);
      known.add(a);
      return [a, x];
    };
    for (const ci of code) {
      const binary = BINARY.get(ci.op), unary = UNARY.get(ci.op), compare = COMPARE.get(ci.op);
      if (binary) {
        const b = vals.pop()!;
        vals.push(binary(vals.pop()!, b));
        continue;
      }
      if (unary) {
        vals.push(unary(vals.pop()!));
        continue;
      }
      if (compare) {
        const b = vals.pop()!;
        vals.push(asValue(`${vals.pop()!} ${compare} ${b}`));
        continue;
      }
      switch (ci.op) {
        case Op.NOP: case Op.I2F: break;
        case Op.ICONST: case Op.FCONST: case Op.GVLOAD: vals.push(constant(ci)); break;
        case Op.GRLOAD: case Op.NULL: case Op.SCONST: refs.push(constant(ci)); break;
        case Op.VLOAD: vals.push(params[ci.a]!); break;
        case Op.RLOAD: refs.push(refParams[ci.a]!); break;
        case Op.NOT: vals.push(asValue(`${vals.pop()!} === 0`)); break;
        case Op.REQ: case Op.RNE: {
          const b = refs.pop()!;
          vals.push(asValue(`${refs.pop()!} ${ci.op === Op.REQ ? '===' : '!=='} ${b}`));
          break;
        }
        case Op.GETFIELD_V: vals.push(`words[${object(ci)} + ${ci.a}]`); break;
        case Op.GETFIELD_F: vals.push(getFloat(`${object(ci)} + ${ci.a}`)); break;
        case Op.GETFIELD_R: refs.push(`words[${object(ci)} + ${ci.a}]`); break;
        case Op.ALEN: vals.push(`words[${object(ci)} + ${lenOff}]`); break;
        case Op.ALOAD_V: case Op.CHARAT: vals.push(wordAt(...element(ci))); break;
        case Op.ALOAD_F: vals.push(floatAt(...element(ci))); break;
        case Op.ALOAD_R: refs.push(wordAt(...element(ci))); break;
        case Op.RET_V: emit(`v${dv} = ${vals.pop()!};`); break;
        case Op.RET_R: emit(`r${dr} = ${refs.pop()!};`); break;
        default: throw new Error(`tier: cannot inline opcode ${ci.op}`);
      }
    }
    inlineTemps = Math.max(inlineTemps, temps);
    return true;
  };

  /** Any other instruction, its pending operands below written: its operands read in place. */
  const emitOp = (i: Instr): void => {
    const v = i.dv, r = i.dr;
    const V1 = (): string => val(v - 1), V2 = (): string => val(v - 2), R1 = (): string => ref(r - 1);
    switch (i.op) {
      case Op.VSTORE: return emit(`l${i.a} = ${V1()};`);
      case Op.RSTORE: return emit(`a${i.a} = ${R1()};`);
      case Op.GVSTORE: return emit(`gv[${i.a}] = ${V1()};`);
      case Op.GRSTORE: return emit(`gr[${i.a}] = ${R1()};`);
      case Op.IDIV: case Op.IMOD: {
        const d = simpleV(v - 1);
        if (!/^\(?-?[1-9]\d*\)?$/.test(d)) emit(`if (${d} === 0) ${fault(i, "'division by zero'")}`);
        return emit(`v${v - 2} = (${V2()} ${i.op === Op.IDIV ? '/' : '%'} ${d}) | 0;`);
      }
      case Op.F2I: {
        const x = simpleV(v - 1);
        emit(`if (!(${x} < 2147483648 && ${x} > -2147483649)) throw R.toIntFault(${x}, ${fn}, ${i.pc}, fp);`);
        return emit(`v${v - 1} = ${x} | 0;`);
      }
      case Op.SEQ: return emit(`v${v} = M.stringsEqual(${ref(r - 2)}, ${R1()}) ? 1 : 0;`);
      case Op.SNE: return emit(`v${v} = M.stringsEqual(${ref(r - 2)}, ${R1()}) ? 0 : 1;`);
      case Op.JMP: {
        // A back-edge counts toward the exit to the event loop (signals, output flushing).
        const to = i.next + i.a;
        if (i.a < 0 && v === 0 && r === 0 && scopes !== null) {
          const bit = 1 << backEdges++ % 30;
          const rehearsal = { test: `(done & ${bit}) === 0`, done: `done |= ${bit}; arm = ${allBits} & ~done;` };
          emit(`if ((--R.ticks === 0 || (arm & ${bit}) !== 0) && R.yieldDue(${rehearsal.test})) ${yieldTo(to, 0, 0, rehearsal)}`);
        } else if (i.a < 0 && v === 0 && r === 0) {
          emit(`if (--R.ticks === 0) { t = ${to}; y = ${an.blockOf[to]}; b = ${tickBlock}; continue; }`);
        } else if (i.a < 0) emit(`if (--R.ticks === 0 && R.yieldDue(false)) ${yieldTo(to, v, r)}`);
        return emit(goto(to));
      }
      case Op.JMPF: case Op.JMPT: {
        const x = pv[v - 1];
        const holds = x && x.c !== null ? x.c : `${val(v - 1)} !== 0`;
        return branch(i.op === Op.JMPT ? holds : x && x.c !== null ? `!(${x.c})` : `${val(v - 1)} === 0`, i.next + i.a);
      }
      case Op.ARGS: return emit(allocated(i, `M.argsArray(${i.a})`) + ` r${r} = t;`);
      case Op.PARSEINT:
        emit(`t = M.parseIntOf(${R1()});`);
        return emit(`if (t !== t) ${fault(i, `M.parseIntFault(${R1()})`)} v${v} = t;`);
      case Op.NEW:
        emit(allocated(i, `R.newInstance(${i.a}, ${fn}, ${i.pc}, fp)`));
        return emit(`r${r} = t;`);
      case Op.NEWARRAY:
        emit(allocated(i, `R.newArray(${i.a}, ${V1()}, ${fn}, ${i.pc}, fp)`));
        return emit(`r${r} = t;`);
      case Op.GETFIELD_V: return emit(`v${v} = words[${nonNull(i, r - 1)} + ${i.a}];`);
      case Op.GETFIELD_F: return emit(`v${v} = ${getFloat(`${nonNull(i, r - 1)} + ${i.a}`)};`);
      case Op.GETFIELD_R: return emit(`r${r - 1} = words[${nonNull(i, r - 1)} + ${i.a}];`);
      case Op.PUTFIELD_V: {
        const o = nonNull(i, r - 1);
        return emit(`words[${o} + ${i.a}] = ${V1()};${noteScalar(`${o} + ${i.a}`, 1)}`);
      }
      case Op.PUTFIELD_F: {
        const o = nonNull(i, r - 1);
        return emit(setFloat(`${o} + ${i.a}`, V1()) + noteScalar(`${o} + ${i.a}`, 2));
      }
      case Op.PUTFIELD_R: {
        const o = nonNull(i, r - 2);
        return emit(`heap.writeRef(${o}, ${i.a}, ${i.b}, ${R1()});`);
      }
      case Op.ALOAD_V: case Op.CHARAT: return emit(`v${v - 1} = ${wordAt(...indexed(i, r - 1, v - 1))};`);
      case Op.ALOAD_F: return emit(`v${v - 1} = ${floatAt(...indexed(i, r - 1, v - 1))};`);
      case Op.ALOAD_R: return emit(`r${r - 1} = ${wordAt(...indexed(i, r - 1, v - 1))};`);
      case Op.ASTORE_V: {
        const [a, x] = indexed(i, r - 1, v - 2);
        return emit(`t = ${a} + ${dataOff} + ${x}; words[t] = ${V1()};${noteScalar('t', 1)}`);
      }
      case Op.ASTORE_F: {
        const [a, x] = indexed(i, r - 1, v - 2);
        return emit(`t = ${a} + ${dataOff} + 2 * ${x}; ${setFloat('t', V1())}${noteScalar('t', 2)}`);
      }
      case Op.ASTORE_R: {
        const [a, x] = indexed(i, r - 2, v - 1);
        return emit(`heap.writeRef(${a}, ${dataOff} + ${x}, ${x}, ${R1()});`);
      }
      case Op.ALEN: return emit(`v${v} = words[${nonNull(i, r - 1)} + ${lenOff}];`);
      case Op.SUBSTR: emit(allocated(i, `R.substring(${R1()}, ${V2()}, ${V1()}, ${fn}, ${i.pc}, fp)`)); return emit(`r${r - 1} = t;`);
      case Op.CHR: emit(allocated(i, `R.chr(${V1()}, ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.CONCAT: emit(allocated(i, `R.concat(${ref(r - 2)}, ${R1()}, ${fn}, ${i.pc}, fp)`)); return emit(`r${r - 2} = t;`);
      case Op.TOSTR_I: emit(allocated(i, `R.str(String(${V1()}), ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_F: emit(allocated(i, `R.str(R.formatFloat(${V1()}), ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_B: emit(allocated(i, `R.str(${V1()} !== 0 ? 'true' : 'false', ${fn}, ${i.pc}, fp)`)); return emit(`r${r} = t;`);
      case Op.TOSTR_R: emit(allocated(i, `R.str(M.refText(${R1()}), ${fn}, ${i.pc}, fp)`)); return emit(`r${r - 1} = t;`);
      case Op.CALL: if (dispatch === 'devirt' && inlined(i, i.a)) return; return call(i, `T[${i.a}]`, i.a);
      case Op.INVOKE: {
        const m = p.functions[i.b]!;
        const recv = nonNull(i, r - m.nRefParams);
        const one = dispatch === 'devirt' ? singleTarget(p, i.a, i.b) : -1;
        if (one >= 0 && inlined(i, one)) return;
        if (one >= 0) return call(i, `T[${one}]`, i.b);
        if (dispatch === 'vtable') {
          emit(`t = vtables[vtableBase[words[${recv} + ${typeOff}]] + ${i.a}];`);
        } else {
          // A monomorphic inline cache: the class seen last and its target.
          const site = icSiteOf.get(i.pc)!;
          const s = 2 * site;
          emit(`t = words[${recv} + ${typeOff}];`);
          emit(`t = t === IC[${s}] ? IC[${s + 1}] : R.icMiss(IC, ${s}, t, ${i.a}, SB + ${site});`);
        }
        return call(i, 'T[t]', i.b);
      }
      case Op.RET: return emit('return 0;');
      case Op.RET_V: return emit(`return ${V1()};`);
      case Op.RET_R: return emit(`return ${R1()};`);
      case Op.INSTANCEOF: return emit(`v${v} = M.isInstance(${R1()}, ${i.a}) ? 1 : 0;`);
      case Op.CHECKCAST: {
        const x = ref(r - 1);
        return emit(`if (${x} !== 0 && !M.isInstance(${x}, ${i.a})) throw R.castFault(${x}, ${i.a}, ${fn}, ${i.pc}, fp);`);
      }
      case Op.PRINT_I: return emit(`M.print(String(${V1()}));`);
      case Op.PRINT_F: return emit(`M.print(R.formatFloat(${V1()}));`);
      case Op.PRINT_B: return emit(`M.print(${V1()} !== 0 ? 'true' : 'false');`);
      case Op.PRINT_R: return emit(`M.print(M.refText(${R1()}));`);
      case Op.CLOCK: return emit(`v${v} = M.clock();`);
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
  const structured = structure(an, form === 'body' ? 0 : entry);

  /** Every reachable instruction in code order from block `from`, `open` at each block start. */
  const emitBlocks = (from: number, open: (b: number, pc: number) => void): void => {
    let live = true;
    let last: Instr | null = null;
    let skipping = from > 0;
    for (const i of an.instrs) {
      if (i.dv < 0) continue; // unreachable
      const blk = an.blockOf[i.pc]!;
      if (skipping && (blk < 0 || blk < from)) continue;
      skipping = false;
      if (blk >= 0) {
        if (live && last !== null) {
          flushAll(); // the block's code reads its operands from their variables
          if (scopes !== null) emit(scopes.goto(current, blk));
        }
        pv.length = pr.length = 0;
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
    emitBlocks(0, (blk, pc) => emit(`case ${blk}: // pc ${pc}`));
    if (loops) {
      // A back-edge used up the ticks: `t` is the loop head's pc, `y` its block.
      emit(`case ${tickBlock}:`);
      emit(`if (R.yieldDue(cold)) ${yieldTo('t', 0, 0, { test: 'cold', done: 'cold = false;' })}`);
      emit('b = y; continue;');
    }
    emit('default: return 0;');
    emit('}');
  };
  let tempsAt = -1;
  const temporaries = (): void => {
    emit(decl('v', an.maxV, () => '0'));
    emit(decl('r', an.maxR, () => '0'));
    emit(loops ? 'let t = 0, y = 0;' : 'let t = 0;');
    tempsAt = out.length;
  };
  /** Declares the inlined methods' temporaries where the others are, once the code is written. */
  const declareTemps = (): void => {
    if (inlineTemps > 0) out.splice(tempsAt, 0, decl('x', inlineTemps, () => '0'));
  };

  /** The blocks from `from` on in their scopes, or else behind the dispatch (on `b`). */
  const emitCode = (from: number): void => {
    if (structured !== null) {
      scopes = structured;
      const stack: Scope[] = [];
      emitBlocks(from, (blk) => {
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
      scopes = null;
      declareTemps();
      if (backEdges > 0) out.splice(0, 0, 'let arm = 0, done = 0;');
    } else {
      if (form === 'body') emit('let b = 0;');
      emitDispatch();
      declareTemps();
      if (loops) out.splice(0, 0, 'let cold = true;');
    }
  };

  if (form === 'osr') {
    // The way in at a loop head for an interpreted frame, whose locals are on the
    // machine's stacks: the blocks from that head on where they nest, else the dispatch.
    emit(`return function ${jsName(p, fn)}_osr(fp, vb, rb, b) {`);
    emit(decl('l', nVL, (k) => `vals[vb + ${k}]`));
    emit(decl('a', nRL, (k) => `refs[rb + ${k}]`));
    temporaries();
    emitCode(entry);
    emit('};');
    return { source: out.join('\n'), analysis: an, icSites };
  }
  // The call's body, entered only at its start.
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
  emitCode(0);
  emit('};');
  // The interpreter's way in: a call (b < 0, arguments on the machine's stacks) or a
  // loop head, through the dispatch form, made at the first such entry (tier.ts).
  const fromStacks = [...Array.from({ length: nVP }, (_, k) => `vals[vb + ${k}]`), ...Array.from({ length: nRP }, (_, k) => `refs[rb + ${k}]`)];
  const called = `body(${['fp', 'vb', 'rb', ...fromStacks].join(', ')})`;
  emit('const enter = function (fp, vb, rb, b) {');
  emit(`  return ${loops ? `b < 0 ? ${called} : R.enterLoop(${fn}, fp, vb, rb, b)` : called};`);
  emit('};');
  emit('return [body, enter];');
  return { source: out.join('\n'), analysis: an, icSites };
}
