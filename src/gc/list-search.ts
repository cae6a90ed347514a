/**
 * Searches of an ascending address list, shared by the main thread (roots.ts)
 * and the GPU worker, which finds the roots' referents in a young mark's live
 * list when it holds the list itself (GpuMarker.finishYoung; a list left on the
 * device is searched there, evacuate.wgsl evac_gather_picks).
 */

/** The position of `v` in `list` (ascending), or -1. */
export function positionIn(list: Int32Array, v: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const m = list[mid]!;
    if (m < v) lo = mid + 1;
    else if (m > v) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** The positions in `list` of `values` (both ascending, so the positions are too),
 *  or null when `list` lacks one of them (a list not in address order). */
export function positionsIn(list: Int32Array, values: Int32Array): Int32Array | null {
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const at = positionIn(list, values[i]!);
    if (at < 0) return null;
    out[i] = at;
  }
  return out;
}
