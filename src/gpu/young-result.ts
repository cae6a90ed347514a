/**
 * A young mark's result as both threads hand it on: the live list, and the
 * mark bitmap of the same objects built from it only when a reader asks
 * (--verify-gc), since the plan evacuates from the list.
 */
export function youngResult(live: Int32Array, heapWords: number): { readonly bitmap: Uint32Array; readonly live: Int32Array } {
  let bits: Uint32Array | null = null;
  return {
    live,
    get bitmap(): Uint32Array {
      if (bits === null) {
        bits = new Uint32Array(Math.ceil(heapWords / 32));
        for (let i = 0; i < live.length; i++) {
          const a = live[i]!;
          bits[a >>> 5] = bits[a >>> 5]! | (1 << (a & 31));
        }
      }
      return bits;
    },
  };
}
