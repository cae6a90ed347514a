/**
 * A growable list of 32-bit integers over an Int32Array, reused across collections
 * so that gathering roots, remembered slots and forwarding addresses allocates no
 * JavaScript object per heap object.
 */

/** The first capacity of the collectors' growable arrays: below what the
 *  collector warm-up's scratch heap (gc/warm-up.ts) fills, so that its
 *  collections take the growing branches before V8 optimizes them. */
export const WARM_CAPACITY = 64;

export class IntList {
  data: Int32Array;
  length = 0;

  constructor(capacity = WARM_CAPACITY) {
    this.data = new Int32Array(capacity);
  }

  clear(): void {
    this.length = 0;
  }

  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = v;
  }

  /** Makes room for `n` elements in total, keeping the contents. */
  reserve(n: number): Int32Array {
    if (n > this.data.length) this.grow(n);
    return this.data;
  }

  private grow(min: number): void {
    // No loop: a doubling the warm-up never needed twice would be a branch V8 has not seen.
    const d = new Int32Array(Math.max(this.data.length * 2, min));
    d.set(this.data.subarray(0, this.length));
    this.data = d;
  }

  /** The elements as a view (valid until the next push that grows the list). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Appends to `out`, in address order, the addresses in [lo, hi) whose bits are
 *  set in `bits` (one bit per heap word). Reads only the words over [lo, hi):
 *  callers pass the occupied ranges, since the rest of a fresh bitmap was never
 *  touched and reading it would fault its pages in. */
export function appendSetBits(out: IntList, bits: Uint32Array, lo: number, hi: number): void {
  if (hi <= lo) return;
  const last = Math.min(bits.length - 1, (hi - 1) >>> 5);
  for (let w = lo >>> 5; w <= last; w++) {
    for (let m = bits[w]! | 0; m !== 0; m &= m - 1) {
      const a = (w << 5) | (31 - Math.clz32(m & -m));
      if (a >= lo && a < hi) out.push(a);
    }
  }
}
