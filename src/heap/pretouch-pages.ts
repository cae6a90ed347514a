/** One thread's part of a pre-touch (pretouch.ts): words [start, end) of `words`. */
export interface PretouchSlice {
  words: Int32Array;
  start: number;
  end: number;
}

/** Words in a 4 KiB page, the smallest the operating system maps. */
export const PAGE_WORDS = 1024;

/** Writes one word of every page of the slices, leaving its value as it was:
 *  a compare-and-exchange of 0 for 0 is one locked write access, which maps the
 *  page at once. A read first (a plain one, or V8's Atomics.or, which loads
 *  before its locked write) maps the shared zero page, and the write then takes
 *  a second fault and a flush of every other core's TLB. */
export function touchPages(slices: readonly PretouchSlice[]): void {
  for (const { words, start, end } of slices) {
    for (let i = start; i < end; i += PAGE_WORDS) Atomics.compareExchange(words, i, 0, 0);
    if (end > start) Atomics.compareExchange(words, end - 1, 0, 0);
  }
}
