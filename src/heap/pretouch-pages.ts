/** One thread's part of a pre-touch (pretouch.ts): words [start, end) of `words`. */
export interface PretouchSlice {
  words: Int32Array;
  start: number;
  end: number;
}

/** Words in a 4 KiB page, the smallest the operating system maps. */
export const PAGE_WORDS = 1024;

/** Writes one word of every page of the slices, leaving its value as it was
 *  (an atomic or with 0: a read alone would map a shared zero page). */
export function touchPages(slices: readonly PretouchSlice[]): void {
  for (const { words, start, end } of slices) {
    for (let i = start; i < end; i += PAGE_WORDS) Atomics.or(words, i, 0);
    if (end > start) Atomics.or(words, end - 1, 0);
  }
}
