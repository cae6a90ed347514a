/**
 * A growable list of 32-bit integers over an Int32Array, reused across collections
 * so that gathering roots, remembered slots and forwarding addresses allocates no
 * JavaScript object per heap object.
 */

export class IntList {
  data: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
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
    let cap = this.data.length * 2;
    while (cap < min) cap *= 2;
    const d = new Int32Array(cap);
    d.set(this.data.subarray(0, this.length));
    this.data = d;
  }

  /** The elements as a view (valid until the next push that grows the list). */
  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}
