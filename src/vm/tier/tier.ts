/**
 * The compiled tier's runtime: compiles functions (codegen.ts, then a `vm.Script`
 * once, or the code and V8's code cache kept from an earlier run), keeps the table
 * through which compiled code calls (a stub compiles its function on first use),
 * and gives compiled code the helpers that are too large to inline: allocations
 * with their checks, faults with their stack traces, the inline caches' miss
 * handler, and the way back to the interpreter.
 *
 * Leaving compiled code (docs/decisions/i24-compiled-tier.md): `st` is UNWIND once a
 * frame has spilled itself and recorded the innermost state in the machine; every
 * compiled caller then spills its own frame (`up`) and returns, and the interpreter
 * resumes from the machine's state, after a collection when `exit` says so. DEEP
 * is a callee that refused to start because the JavaScript stack holds enough
 * compiled frames: its caller becomes the innermost frame, at the call, and the
 * interpreter makes the call itself.
 */

import { OutOfMemoryError } from '../../heap/api.js';
import { formatFloat, MiniRuntimeError } from '../format.js';
import { COLLECT, indexError, MAX_FRAMES, OPERAND_MARGIN, RESUME, STACK_SLOTS, toIntError, YIELD, type Machine } from '../machine.js';
import { Script } from 'node:vm';
import { generate, layoutOf, type Dispatch, type Form, type Generated } from './codegen.js';
import { makeMutable } from '../mutable-fields.js';
import { now } from '../../heap/clock.js';

export const TIER_MODES = ['interp', 'compiled', 'auto'] as const;
export type TierMode = (typeof TIER_MODES)[number];

export interface TierOptions {
  readonly mode: TierMode;
  /** Calls or loop back-edges of a function before `auto` compiles it. */
  readonly threshold: number;
  readonly dispatch: Dispatch;
  /** Time each tier (two clock reads per entry into compiled code). */
  readonly timing: boolean;
}

/** `auto` compiles a function at its first call, main before it starts: a threshold
 *  above 0 leaves more of the run to the interpreter, whose dispatch loop V8 then
 *  optimizes again at each opcode it had not seen (docs/decisions/s37-02-tier-threshold.md). */
export const DEFAULT_TIER: TierOptions = { mode: 'auto', threshold: 0, dispatch: 'devirt', timing: false };

/** Compiled frames one chain may stack on the JavaScript stack before the interpreter takes the next call. */
const CHAIN = 400;
/** Back-edges of compiled loops between looks at the clock (yieldDue). */
const TIER_TICKS = 1 << 10;
/** Compiled frames leave for the event loop when this long has passed since its last
 *  turn: longer than the interpreter's YIELD_MS, since leaving unwinds every compiled
 *  frame on the stack to be finished by the interpreter (s35-03). */
export const TIER_YIELD_MS = 50;

export const UNWIND = 1;
export const DEEP = 2;

/** The body: (fp, vb, rb, value params..., reference params...) -> the result. */
type Body = (...args: number[]) => number;
/** A function's loop-head form: (fp, vb, rb, block). */
type Osr = (fp: number, vb: number, rb: number, b: number) => number;
/** The interpreter's way in: (fp, vb, rb, block or -1 for a call). */
export type Entry = (fp: number, vb: number, rb: number, b: number) => number;

export interface TierStats {
  compiledFunctions: number;
  compileMs: number;
  compiledMs: number;
  entries: number;
  unwinds: number;
  /** Inline-cache sites by the number of receiver classes they met. */
  icSites: { monomorphic: number; polymorphic: number; megamorphic: number };
}

/** A generated form kept between runs of a program (the CLI's compile cache, s40-02): its
 *  factory's source, what compiling it needs besides, and V8's code cache for it. */
export interface TierCode {
  readonly source: string;
  readonly icSites: number;
  /** (pc, block) of each loop head where an interpreted frame may enter. */
  readonly heads: readonly number[];
  readonly data?: Uint8Array;
}

/** Kept forms by `Tier.codeKey`. */
export type TierCodeStore = ReadonlyMap<string, TierCode>;

export class Tier {
  /** Non-zero while compiled frames unwind: UNWIND or DEEP. */
  st = 0;
  /** Set with `st`: what the driver does before the interpreter resumes. COLLECT when the
   *  innermost frame waits for a collection (an allocation returned 0, or gc()), YIELD when
   *  a compiled loop used up its back-edges (the event loop runs), else RESUME. */
  exit = RESUME;
  /** Back-edges compiled loops may take before they next look at the clock (yieldDue). */
  ticks = TIER_TICKS;
  /** Frame depth at which a compiled callee refuses to start (DEEP): CHAIN above the entry. */
  lim = 0;
  readonly table: Body[];
  /** The interpreter's entry of each compiled function, null until compiled. */
  readonly entries: (Entry | null)[];
  /** Per function: block of each pc where an interpreted frame may enter, -1 elsewhere. */
  readonly osr: (Int32Array | null)[];
  readonly counts: Int32Array;
  private readonly siteClasses: Set<number>[] = [];
  /** Per compiled function: its first inline-cache site and its caches, which its loop-head form shares. */
  private readonly sites: ({ siteBase: number; ic: Int32Array } | undefined)[] = [];
  /** Per function: its forms for the loop heads where interpreted frames have entered it. */
  private readonly loopEntries: (Map<number, Osr> | undefined)[] = [];
  readonly stats: TierStats = {
    compiledFunctions: 0, compileMs: 0, compiledMs: 0, entries: 0, unwinds: 0,
    icSites: { monomorphic: 0, polymorphic: 0, megamorphic: 0 },
  };
  readonly formatFloat = formatFloat;

  /** The forms this run made, with the scripts whose code cache to keep (null: kept whole). */
  private readonly made: { key: string; code: TierCode; script: Script | null }[] = [];

  constructor(
    private readonly m: Machine,
    readonly options: TierOptions,
    /** Code kept from earlier runs of the program, if any. */
    private readonly store?: TierCodeStore,
  ) {
    // Compiled code reads these at every call and loop; the first unwinding changes them.
    makeMutable(this, ['st', 'exit', 'lim', 'ticks']);
    const n = m.linked.program.functions.length;
    this.entries = new Array<Entry | null>(n).fill(null);
    this.osr = new Array<Int32Array | null>(n).fill(null);
    this.counts = new Int32Array(n);
    this.table = Array.from({ length: n }, (_, fn) => (...args: number[]) => {
      this.compile(fn);
      return this.table[fn]!(...args);
    });
  }

  private generate(fn: number, form: Form = 'body', entry = 0): Generated {
    return generate(this.m.linked, layoutOf(this.m.heap), fn, this.options.dispatch, form, entry);
  }

  /** Names a form among kept code. Generated code depends on the program (the store is
   *  the program's), the function's linked code (the layout's field offsets are in it),
   *  the layout's header offsets, whether the heap has a mirror, and the dispatch. */
  private codeKey(fn: number, form: Form, entry: number): string {
    const l = layoutOf(this.m.heap);
    const code = this.m.linked.code[fn]!;
    let h = 0x811c9dc5;
    for (let k = 0; k < code.length; k++) h = Math.imul(h ^ code[k]!, 0x01000193);
    return `${l.typeOff},${l.lenOff},${l.dataOff},${l.mirrored ? 1 : 0},${this.options.dispatch}:${(h >>> 0).toString(16)}:${fn}:${form}:${entry}`;
  }

  /** A form's code: kept from an earlier run, or generated now. */
  private codeOf(fn: number, form: Form, entry: number): { key: string; code: TierCode } {
    const key = this.codeKey(fn, form, entry);
    const kept = this.store?.get(key);
    if (kept !== undefined) return { key, code: kept };
    const g = this.generate(fn, form, entry);
    const heads: number[] = [];
    for (const b of g.analysis.osrBlocks) heads.push(g.analysis.blockOf.indexOf(b), b);
    return { key, code: { source: g.source, icSites: g.icSites, heads } };
  }

  /** Makes a form's function, bound to this tier and the function's inline caches, from
   *  V8's code cache where it was kept and V8 takes it. */
  private instantiate<F>(key: string, code: TierCode, ic: Int32Array, siteBase: number): F {
    const script = new Script(`(function (R, M, T, heap, IC, SB) {${FACTORY_PRELUDE}${code.source}\n})`, {
      filename: `minivm-tier:${key}`,
      cachedData: code.data,
    });
    const fresh = code.data === undefined || script.cachedDataRejected === true;
    this.made.push({ key, code, script: fresh ? script : null });
    const factory = script.runInThisContext() as (...a: unknown[]) => F;
    return factory(this, this.m, this.table, this.m.heap, ic, siteBase);
  }

  /**
   * The code to keep for the next run, or null when every form this run used came
   * whole from the store: each form made now, with V8's code cache taken now (it then
   * holds the functions V8 compiled while the program ran), beside the store's others.
   */
  codeToKeep(): Map<string, TierCode> | null {
    if (!this.made.some((x) => x.script !== null)) return null;
    const out = new Map(this.store ?? []);
    for (const { key, code, script } of this.made) {
      if (script !== null) out.set(key, { ...code, data: script.createCachedData() });
    }
    return out;
  }

  /** Runs compiled code from the interpreter or the driver: frame `fp` at a call (b < 0) or
   *  at loop head b. When `st` is non-zero afterwards, the frames unwound: see `settle`. */
  enter(entry: Entry, fp: number, vb: number, rb: number, b: number): number {
    this.lim = Math.min(fp + CHAIN, MAX_FRAMES);
    const timing = this.options.timing;
    const t0 = timing ? now() : 0;
    const result = entry(fp, vb, rb, b);
    if (timing) this.stats.compiledMs += now() - t0;
    this.stats.entries++;
    return result;
  }

  /** Ends an unwinding: returns what the driver must do before the interpreter resumes. */
  settle(): number {
    const exit = this.exit;
    this.st = 0;
    this.exit = RESUME;
    return exit;
  }

  /** Compiles function `fn` (once) and returns its interpreter entry. */
  compile(fn: number): Entry {
    const done = this.entries[fn];
    if (done) return done;
    const t0 = now();
    const siteBase = this.siteClasses.length;
    const { key, code } = this.codeOf(fn, 'body', 0);
    for (let k = 0; k < code.icSites; k++) this.siteClasses.push(new Set());
    const ic = new Int32Array(2 * code.icSites).fill(-1);
    const [body, enter] = this.instantiate<[Body, Entry]>(key, code, ic, siteBase);
    this.sites[fn] = { siteBase, ic };
    this.table[fn] = body;
    this.entries[fn] = enter;
    const osr = new Int32Array(this.m.linked.code[fn]!.length).fill(-1);
    for (let k = 0; k < code.heads.length; k += 2) osr[code.heads[k]!] = code.heads[k + 1]!;
    this.osr[fn] = osr;
    this.stats.compiledFunctions++;
    this.stats.compileMs += now() - t0;
    return enter;
  }

  /** An interpreted frame of `fn` entering compiled code at loop head `b`: through the
   *  function's form for that head, generated at its first such entry (most never have one). */
  enterLoop(fn: number, fp: number, vb: number, rb: number, b: number): number {
    let forms = this.loopEntries[fn];
    if (forms === undefined) this.loopEntries[fn] = forms = new Map();
    let osr = forms.get(b);
    if (osr === undefined) {
      const t0 = now();
      const { siteBase, ic } = this.sites[fn]!;
      const { key, code } = this.codeOf(fn, 'osr', b);
      osr = this.instantiate<Osr>(key, code, ic, siteBase);
      forms.set(b, osr);
      this.stats.compileMs += now() - t0;
    }
    return osr(fp, vb, rb, b);
  }

  // ------------------------------------------------------------ leaving compiled code

  /** A compiled frame leaving: its values (the first `nv` of `xs`) and references (the
   *  rest) to the machine's stacks at its bases, in the interpreter's layout. */
  spill(vb: number, rb: number, nv: number, ...xs: number[]): void {
    const { vals, refs } = this.m;
    for (let k = 0; k < nv; k++) vals[vb + k] = xs[k]!;
    for (let k = nv; k < xs.length; k++) refs[rb + k - nv] = xs[k]!;
  }

  /** The innermost frame has spilled itself: record its state and start unwinding. */
  unwindAt(fn: number, pc: number, fp: number, vb: number, rb: number, vsp: number, rsp: number, gc: boolean): number {
    this.m.saveState(fn, pc, fp, vb, rb, vsp, rsp);
    this.st = UNWIND;
    this.exit = gc ? COLLECT : RESUME;
    this.stats.unwinds++;
    return 0;
  }

  /** A compiled loop's back-edge used up `ticks`: whether its frames must leave for the
   *  driver, because the event loop's turn has come (TIER_YIELD_MS since the driver's
   *  last yield) or `force` (a leaving path's rehearsal). Leaving costs the frames' spills
   *  and their interpreted resumption, and the first run of a path V8 never saw run throws
   *  its optimized code away; so compiled frames leave only when the driver will yield, and
   *  look at the clock every TIER_TICKS back-edges, soon enough that the look and the
   *  rehearsed leaving path run before V8 optimizes. */
  yieldDue(force: boolean): boolean {
    this.ticks = TIER_TICKS;
    return force || now() - this.m.lastYield >= TIER_YIELD_MS;
  }

  /** The event loop's turn has come in a compiled loop: leave for the driver as an allocation
   *  does, or, in a rehearsal (the path's first run), return 1 and let the loop go on. */
  yieldAt(fn: number, pc: number, fp: number, vb: number, rb: number, vsp: number, rsp: number, rehearse = false): number {
    if (rehearse) return 1;
    this.unwindAt(fn, pc, fp, vb, rb, vsp, rsp, false);
    this.exit = YIELD;
    return 0;
  }

  /** A caller whose callee unwound has spilled itself; fills in its frame record. */
  up(fn: number, callPc: number, fp: number, vb: number, rb: number): number {
    const m = this.m;
    if (this.st === DEEP) {
      // The callee never started: this frame is innermost, at the call, with the
      // arguments (which the callee spilled) on the stacks.
      this.st = UNWIND;
      this.exit = RESUME;
      this.stats.unwinds++;
      m.fn = fn; m.pc = callPc; m.fp = fp; m.vb = vb; m.rb = rb;
    } else {
      m.frameVb[fp] = vb;
      m.frameRb[fp] = rb;
    }
    return 0;
  }

  /** A callee's prologue found a limit: a stack overflow, or the end of this chain. */
  overflow(fp: number, vb: number, rb: number, fn: number): void {
    const m = this.m, info = 4 * fn;
    const vsp = vb + m.fnInfo[info]!, rsp = rb + m.fnInfo[info + 1]!;
    if (fp >= MAX_FRAMES || rsp + m.fnInfo[info + 3]! + OPERAND_MARGIN >= STACK_SLOTS
      || vsp + m.fnInfo[info + 2]! + OPERAND_MARGIN >= STACK_SLOTS) {
      // As the interpreter reports it: at the caller's call instruction.
      throw this.fault('stack overflow', m.frameFn[fp - 1]!, m.framePc[fp - 1]! - 1, fp - 1);
    }
    this.st = DEEP;
    m.vsp = vsp;
    m.rsp = rsp;
  }

  // ------------------------------------------------------------ faults

  fault(message: string, fn: number, pc: number, fp: number): MiniRuntimeError {
    return this.m.withTrace(new MiniRuntimeError(message), fn, pc, fp);
  }

  indexFault(a: number, i: number, fn: number, pc: number, fp: number): MiniRuntimeError {
    const h = this.m.heap;
    return this.m.withTrace(indexError(h.words, a, h.lengthWordOffset, i), fn, pc, fp);
  }

  toIntFault(x: number, fn: number, pc: number, fp: number): MiniRuntimeError {
    return this.m.withTrace(toIntError(x), fn, pc, fp);
  }

  castFault(a: number, test: number, fn: number, pc: number, fp: number): MiniRuntimeError {
    return this.m.withTrace(this.m.castError(a, test), fn, pc, fp);
  }

  // ------------------------------------------------------------ allocations (0: collect first)

  newInstance(cls: number, fn: number, pc: number, fp: number): number {
    try {
      return this.m.heap.allocInstance(this.m.linked.shapes[cls]!);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  newArray(typeId: number, n: number, fn: number, pc: number, fp: number): number {
    if (n < 0) throw this.fault(`negative array size ${n}`, fn, pc, fp);
    try {
      return this.m.heap.allocArray(typeId, n);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  str(text: string, fn: number, pc: number, fp: number): number {
    try {
      return this.m.newString(text);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  chr(c: number, fn: number, pc: number, fp: number): number {
    try {
      return this.m.chr(c);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  substring(s: number, from: number, to: number, fn: number, pc: number, fp: number): number {
    try {
      return this.m.substring(s, from, to);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  concat(a: number, b: number, fn: number, pc: number, fp: number): number {
    try {
      return this.m.concat(a, b);
    } catch (e) {
      throw this.traced(e, fn, pc, fp);
    }
  }

  /** A machine helper's fault, or running out of memory, as a fault of the program at this frame. */
  private traced(e: unknown, fn: number, pc: number, fp: number): unknown {
    if (e instanceof OutOfMemoryError) return this.fault(e.message, fn, pc, fp);
    if (e instanceof MiniRuntimeError && e.frames.length === 0) return this.m.withTrace(e, fn, pc, fp);
    return e;
  }

  // ------------------------------------------------------------ inline caches

  /** A call site met a class other than the cached one: look it up and cache it. */
  icMiss(ic: Int32Array, s: number, type: number, slot: number, site: number): number {
    const m = this.m;
    const target = m.vtables[m.vtableBase[type]! + slot]!;
    ic[s] = type;
    ic[s + 1] = target;
    this.siteClasses[site]!.add(type);
    return target;
  }

  /** Sites by how many classes their receivers had: 1, 2-4 and more than 4 (V8's limits). */
  siteCensus(): TierStats['icSites'] {
    const c = { monomorphic: 0, polymorphic: 0, megamorphic: 0 };
    for (const s of this.siteClasses) {
      if (s.size === 0) continue; // never ran
      if (s.size <= 1) c.monomorphic++;
      else if (s.size <= 4) c.polymorphic++;
      else c.megamorphic++;
    }
    return c;
  }
}

/** Names the generated code reads, bound once per compiled function. */
const FACTORY_PRELUDE = `'use strict';
const vals = M.vals, refs = M.refs, words = heap.words, floats = heap.floats, mirror = heap.mirror, frameFn = M.frameFn, framePc = M.framePc;
const gv = M.globalVals, gr = M.globalRefs, consts = M.constRefs, vtables = M.vtables, vtableBase = M.vtableBase;
`;
