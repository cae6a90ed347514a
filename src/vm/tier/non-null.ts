/**
 * Which references the code generator knows are not null, so that it leaves out
 * their null checks: `this` in a method (never null, never assigned), what an
 * allocation or a string constant gives, and a register or local already checked.
 * Facts are kept within a basic block and forgotten at the next (a block can be
 * entered from elsewhere, or by an interpreted frame at a loop head); a local
 * keeps its value across calls, since compiled code never resumes after a
 * collection (the frame leaves for the interpreter first).
 */

import { Op } from '../../bytecode/opcodes.js';
import type { Instr } from './analyze.js';

/** Instructions whose reference result is a fresh object or a string constant. */
const NON_NULL_RESULTS = new Set<number>([
  Op.NEW, Op.NEWARRAY, Op.SCONST, Op.ARGS, Op.SUBSTR, Op.CHR, Op.CONCAT, Op.TOSTR_I, Op.TOSTR_F, Op.TOSTR_B, Op.TOSTR_R,
]);

export class NonNull {
  private readonly known = new Set<string>();
  /** The local each operand register was loaded from (RLOAD), while both hold the same value. */
  private readonly loadedFrom = new Map<string, string>();

  /** `thisSlot`: `a0` in a function whose `this` is never assigned, else null. */
  constructor(private readonly thisSlot: string | null) {
    this.blockStart();
  }

  blockStart(): void {
    this.known.clear();
    this.loadedFrom.clear();
    if (this.thisSlot !== null) this.known.add(this.thisSlot);
  }

  /** Whether register `x` needs its null check; after it, `x` (and its local) is known. */
  needsCheck(x: string): boolean {
    if (this.known.has(x)) return false;
    this.known.add(x);
    const local = this.loadedFrom.get(x);
    if (local !== undefined) this.known.add(local);
    return true;
  }

  /** After instruction `i`, which popped `rp` reference operands and pushed `ru`. */
  after(i: Instr, rp: number, ru: number): void {
    const first = i.dr - rp;
    const top = `r${i.dr - 1}`;
    if (i.op === Op.RSTORE) {
      const local = `a${i.a}`;
      for (const [reg, from] of this.loadedFrom) if (from === local) this.loadedFrom.delete(reg);
      if (this.known.has(top)) this.known.add(local);
      else this.known.delete(local);
    }
    for (let d = first; d < first + ru; d++) {
      const reg = `r${d}`;
      this.known.delete(reg);
      this.loadedFrom.delete(reg);
    }
    if (ru !== 1) return;
    const out = `r${first}`;
    if (i.op === Op.RLOAD) {
      const local = `a${i.a}`;
      this.loadedFrom.set(out, local);
      if (this.known.has(local)) this.known.add(out);
    } else if (i.op === Op.RDUP) {
      if (this.known.has(top)) this.known.add(out);
      const from = this.loadedFrom.get(top);
      if (from !== undefined) this.loadedFrom.set(out, from);
    } else if (NON_NULL_RESULTS.has(i.op)) {
      this.known.add(out);
    }
  }
}
