/**
 * Where a device evacuation's read-back goes (evacuate/device.ts): parts of it,
 * each a run of read-back words bound for a destination, taken chunk by chunk
 * as `ChunkedReadback.read` hands them over (a part may span chunks).
 */
export class ReadbackParts {
  private readonly dsts: Uint32Array[] = [];
  /** Per part: destination word, first read-back word, word count. */
  private readonly spans: number[] = [];
  private next = 0;

  /** Adds read-back words [from, from + count) for `dst` at word `at`; parts come in read-back order. */
  add(dst: Uint32Array, at: number, from: number, count: number): void {
    const k = this.spans.length;
    if (k > 0 && from < this.spans[k - 2]! + this.spans[k - 1]!) throw new Error(`read-back part at word ${from} overlaps the one before it`);
    this.dsts.push(dst);
    this.spans.push(at, from, count);
  }

  /** Writes what read-back words [first, first + words.length) hold of the parts through `copy`. */
  take(words: Uint32Array, first: number, copy: (src: Uint32Array, from: number, dst: Uint32Array, at: number, n: number) => void): void {
    const end = first + words.length;
    const spans = this.spans;
    while (this.next < this.dsts.length) {
      const i = 3 * this.next;
      const at = spans[i]!;
      const from = spans[i + 1]!;
      const count = spans[i + 2]!;
      const s = Math.max(from, first);
      const e = Math.min(from + count, end);
      if (e > s) copy(words, s - first, this.dsts[this.next]!, at + (s - from), e - s);
      if (from + count > end) break;
      this.next++;
    }
  }

  /** Every part was taken (parts of no words need no chunk). */
  get done(): boolean {
    for (let k = this.next; k < this.dsts.length; k++) if (this.spans[3 * k + 2]! > 0) return false;
    return true;
  }
}
