/**
 * The heap's one mirror change log (heap/mirror-log.ts) shared by several GPU
 * mirrors (`auto`'s gpu-dfs and gpu-bfs markers): the log hands what changed to
 * whichever takes it first, so each reader here gets, at its take, what the log
 * gives now plus everything the other readers took since its own last take.
 * Every reader is registered before the heap's first allocation, as the log
 * itself is, so its first take covers the heap from its start.
 */

/** Pending lists longer than this many ranges are merged (sorted, overlaps joined). */
const MERGE_AT = 4096;

/** `ranges` ((start, end) pairs) sorted with overlapping or touching ones joined. */
export function mergeRanges(ranges: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) if (ranges[i + 1]! > ranges[i]!) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [s, e] of pairs) {
    const n = out.length;
    if (n > 0 && s <= out[n - 1]!) out[n - 1] = Math.max(out[n - 1]!, e);
    else out.push(s, e);
  }
  return out;
}

export class SharedDirtyRanges {
  /** Each reader's pending list, by its `takeDirtyRanges`. */
  private readonly pending = new Map<() => number[], number[]>();

  constructor(private readonly take: () => number[]) {}

  /** A new reader: its `takeDirtyRanges`. */
  reader(): () => number[] {
    const mine: number[] = [];
    const take = (): number[] => {
      const fresh = this.take();
      for (const list of this.pending.values()) if (list !== mine) append(list, fresh);
      const out = mine.length === 0 ? fresh : mine.concat(fresh);
      mine.length = 0;
      return out;
    };
    this.pending.set(take, mine);
    return take;
  }

  /** Words the copy behind reader `by` changed itself (a device evacuation wrote
   *  them there and into the heap), which every other reader must take. */
  wroteBy(by: () => number[], ranges: readonly number[]): void {
    for (const [take, list] of this.pending) if (take !== by) append(list, ranges);
  }
}

/** Appends `ranges` to a pending list, merging it when it grows long. */
function append(list: number[], ranges: readonly number[]): void {
  for (let i = 0; i < ranges.length; i++) list.push(ranges[i]!);
  if (list.length > 2 * MERGE_AT) {
    const merged = mergeRanges(list);
    list.length = 0;
    for (let i = 0; i < merged.length; i++) list.push(merged[i]!);
  }
}
