/**
 * `compare --heap LIST` and `--min-heap`: the heap sizes a comparison runs at, and
 * the search for the smallest heap a configuration completes in (DaCapo's minimum
 * heap; runs at multiples of it, `--heap 2x,3x`, are how collectors are compared).
 * The method and its granularity are recorded in docs/decisions/s28-sweep-0001-min-heap-search.md.
 */

import { EXIT } from './run.js';
import { formatBytes } from '../heap/telemetry.js';
import { HEAP_QUANTUM } from './options.js';
import type { OneRun } from './compare-runs.js';
import type { CollectorName, LayoutName } from './options.js';
export { parseHeapList, HEAP_QUANTUM, type HeapList } from './options.js';

/** The search's first lower bound: a heap this small holds no program (planSpaces needs more), so it is tried once and is expected to fail. */
export const SEARCH_FLOOR = HEAP_QUANTUM;

/** `factor` times `minimum`, rounded up to the search's quantum. */
export function multipleOf(minimum: number, factor: number): number {
  return Math.ceil((minimum * factor) / HEAP_QUANTUM) * HEAP_QUANTUM;
}

/** The search stops once the gap between a failing and a completing heap is at most this: 1% of the failing one, at least one quantum. */
export function resolutionAt(failingBytes: number): number {
  return Math.max(HEAP_QUANTUM, Math.ceil(failingBytes / 100 / HEAP_QUANTUM) * HEAP_QUANTUM);
}

/**
 * How one probe ended: it completed; the heap was too small (out of memory, exit 70
 * with the out-of-memory diagnostic, or a heap too small to set up at all); another
 * failure; or the collector cannot run here (no GPU, refused: exit 69 or another 64).
 */
export type ProbeOutcome = 'ok' | 'too small' | 'failed' | 'unavailable';

export function probeOutcome(run: OneRun): ProbeOutcome {
  if (run.exitCode === EXIT.ok) return 'ok';
  if (run.exitCode === EXIT.runtime && /out of memory/.test(run.stderr)) return 'too small';
  if (run.exitCode === EXIT.usage && /heap too small|--young must be smaller than --heap/.test(run.stderr)) return 'too small';
  if (run.exitCode === EXIT.usage || run.exitCode === EXIT.noGpu) return 'unavailable';
  return 'failed';
}

/** One configuration's minimum heap, as `--json` writes it (docs/cli.md). */
export interface MinHeap {
  collector: CollectorName;
  layout: LayoutName;
  /** `found`; `above upper bound` (it ran out of memory even there); `failed` (another error, not a heap too small). */
  status: 'found' | 'above upper bound' | 'failed';
  /** The smallest heap it completed in, to within `resolutionBytes`; null unless found. */
  minHeapBytes: number | null;
  /** The largest heap it was seen to run out of memory in; null when none was tried. */
  failedBelowBytes: number | null;
  /** The search's upper bound: the single `--heap SIZE`, else the default heap. */
  upperBytes: number;
  resolutionBytes: number;
  /** Every heap tried, in order, with how it ended. */
  probes: Array<{ heapBytes: number; outcome: ProbeOutcome }>;
  /** When `failed`: the exit status and the first line of stderr. */
  exitCode: number;
  reason: string | null;
}

export type MinHeapSearch =
  | { kind: 'done'; result: MinHeap; /** the completing run at the minimum, for the output check */ run: OneRun | undefined }
  | { kind: 'unavailable'; run: OneRun };

/**
 * Finds the smallest heap in (SEARCH_FLOOR, upper] that `probe` completes in: the
 * upper bound first (it must complete), then the floor, then bisection at the
 * geometric mean, which needs as many probes for 256m as for 1m, until the gap is
 * at most resolutionAt(the failing side). It assumes that a heap larger than one
 * that completed completes too; the probes are kept in the result so a violation shows.
 */
export async function searchMinHeap(
  gc: CollectorName, layout: LayoutName, upper: number, probe: (heapBytes: number) => Promise<OneRun>,
): Promise<MinHeapSearch> {
  const result: MinHeap = {
    collector: gc, layout, status: 'found', minHeapBytes: null, failedBelowBytes: null, upperBytes: upper,
    resolutionBytes: HEAP_QUANTUM, probes: [], exitCode: EXIT.ok, reason: null,
  };
  const attempt = async (bytes: number): Promise<{ outcome: ProbeOutcome; run: OneRun }> => {
    const run = await probe(bytes);
    const outcome = probeOutcome(run);
    result.probes.push({ heapBytes: bytes, outcome });
    return { outcome, run };
  };
  const fail = (run: OneRun): MinHeapSearch => {
    result.status = 'failed';
    result.exitCode = run.exitCode;
    result.reason = run.stderr.split('\n').find((l) => l.trim() !== '') ?? null;
    return { kind: 'done', result, run: undefined };
  };
  const top = await attempt(upper);
  if (top.outcome === 'unavailable') return { kind: 'unavailable', run: top.run };
  if (top.outcome === 'failed') return fail(top.run);
  if (top.outcome === 'too small') {
    result.status = 'above upper bound';
    result.failedBelowBytes = upper;
    return { kind: 'done', result, run: undefined };
  }
  let hi = upper;
  let best = top.run;
  let lo = SEARCH_FLOOR;
  if (upper > SEARCH_FLOOR) {
    const bottom = await attempt(SEARCH_FLOOR);
    if (bottom.outcome === 'failed' || bottom.outcome === 'unavailable') return fail(bottom.run);
    if (bottom.outcome === 'ok') [hi, best] = [SEARCH_FLOOR, bottom.run];
    else result.failedBelowBytes = SEARCH_FLOOR;
  }
  while (hi > SEARCH_FLOOR && hi - lo > resolutionAt(lo)) {
    const mid = Math.min(hi - HEAP_QUANTUM, Math.max(lo + HEAP_QUANTUM, Math.round(Math.sqrt(lo * hi) / HEAP_QUANTUM) * HEAP_QUANTUM));
    const r = await attempt(mid);
    if (r.outcome === 'failed' || r.outcome === 'unavailable') return fail(r.run);
    if (r.outcome === 'ok') [hi, best] = [mid, r.run];
    else lo = result.failedBelowBytes = mid;
  }
  result.minHeapBytes = hi;
  result.resolutionBytes = resolutionAt(lo);
  return { kind: 'done', result, run: best };
}

/** The minimum heaps as table cells: the minimum, the largest heap that was too small, the heaps tried. */
export function minHeapTable(list: MinHeap[]): { header: string[]; rows: string[][] } {
  const header = ['collector', 'layout', 'min heap', 'too small at', 'tried'];
  const rows = list.map((m) => {
    const below = m.failedBelowBytes === null ? '-' : formatBytes(m.failedBelowBytes);
    const min =
      m.status === 'found' ? formatBytes(m.minHeapBytes!)
      : m.status === 'above upper bound' ? `over ${formatBytes(m.upperBytes)} (out of memory there; raise --heap)`
      : `failed: exit ${m.exitCode}, ${m.reason ?? 'no message'}`;
    return [m.collector, m.layout, min, below, String(m.probes.length)];
  });
  return { header, rows };
}
