/**
 * What collections report: one record per collection (for `--log-gc`) and running
 * totals (for `--stats`).
 *
 * The log line follows HotSpot's -Xlog:gc in spirit:
 *   [gc 3] young (eden full) serial 12.3M->4.1M(256M) 1.52ms roots=0.10ms mark=0.80ms copy=0.60ms
 * heap occupancy before -> after (capacity), then the pause and its phases; GPU
 * markers add upload/kernel/readback times.
 */

import { statMs, statSize } from './stat-units.js';

/** A marker's own times in milliseconds (gc/marker.ts's MarkTimes); GPU markers fill the transfer fields. */
export interface MarkerTimes {
  mark: number;
  upload?: number;
  uploadBytes?: number;
  /** Uploaded ahead, in the program's time since the previous collection (not in the pause). */
  aheadBytes?: number;
  aheadMs?: number;
  kernel?: number;
  readback?: number;
  cpuFallback?: number;
  /** The parallel collector: each thread's objects (marked or copied) and steals,
   *  as "objects/steals,..." in thread order. */
  threads?: string;
}

export type CollectionKind = 'young' | 'full';

/** Phase times of one collection, in milliseconds. */
export interface PhaseTimes {
  /** Gathering roots: the interpreter's slots and, for young, the dirty cards. */
  roots: number;
  /** The marker's whole `mark` call. */
  mark: number;
  /** Evacuating young objects (copy, forwarding, reference fix-up). */
  copy: number;
  /** Sweeping tenured into the free list (full collections). */
  sweep: number;
  /** Reference-graph maintenance (refgraph layout): rebuilding the young graph and
   *  renumbering tenured edges. Moving tenured vertices during a sweep counts as sweep. */
  graph: number;
  /** Keeping a GPU marker's heap mirror in step with the evacuation (uploading the
   *  new addresses for the GPU to replay the moves, gpu/mirror/replay.ts). */
  sync: number;
  /** `--verify-gc` checks: the heap walk and verifyMarks (not part of the pause). */
  verify: number;
}

export interface GcRecord {
  /** 1-based collection number. */
  number: number;
  kind: CollectionKind;
  /** Why: "eden full", "gc() call", "minorGc() call", "promotion failed", "tenured full", "gc stress". */
  cause: string;
  /** The collector's name, e.g. "serial". */
  collector: string;
  /** Heap occupancy in bytes. */
  usedBefore: number;
  usedAfter: number;
  capacity: number;
  /** Pause time in milliseconds (verification excluded). */
  pauseMs: number;
  phases: PhaseTimes;
  /** The marker's own times (GPU markers: upload, kernel, readback). */
  marker: MarkerTimes;
  /** Live young objects found, and bytes copied to survivor / promoted to tenured. */
  liveYoungObjects: number;
  survivedBytes: number;
  promotedBytes: number;
  /** Set by collectors whose marker can evacuate on its device. */
  evacuation?: EvacuationRecord;
  /** `--gc auto`: the engine it chose and the pause its model predicted. */
  auto?: AutoChoiceRecord;
  /** gpu-dfs, gpu-bfs: the collection ran on the CPU, predicted to trace fewer
   *  bytes than `--gpu-min-live`. */
  underGpuMinLive?: { predictedBytes: number; minLiveBytes: number };
  /** gpu-dfs, gpu-bfs: before the collection, the program waited this long for the
   *  device's start-up beside it (`--gpu-opt start=beside`), ms; not part of the pause. */
  deviceStartWaitMs?: number;
  /** gpu-dfs, gpu-bfs: a full collection ran on the CPU because the device's last
   *  mark spent this share of its time finishing a chain on the CPU. */
  chainOnCpu?: { cpuShare: number };
  /** gpu-dfs, gpu-bfs: the survival probe that routed the collection (part of its pause), ms. */
  probeMs?: number;
  /** gpu-dfs, gpu-bfs: the pause's wait for eden's uploads ahead still under way, ms. */
  landedMs?: number;
  /** gpu-dfs, gpu-bfs: the program's waits since the last collection for an upload
   *  ahead to finish before it started the next (not part of the pause), ms. */
  aheadWaitMs?: number;
}

export interface AutoChoiceRecord {
  engine: string;
  predictedMs: number;
  /** Collections of this kind the model had measured the engine in. */
  samples: number;
}

/** Where a young collection's evacuation ran (collectors whose marker can
 *  evacuate on its device), with the device's parts in milliseconds. */
export interface EvacuationRecord {
  where: 'gpu' | 'cpu';
  /** Why the CPU evacuated (with `where: 'cpu'`). */
  reason?: string;
  assignMs?: number;
  copyMs?: number;
  readbackMs?: number;
  readbackBytes?: number;
  /** Writing the read-back into the heap. */
  writeMs?: number;
  /** Threads besides the device's that wrote it (0 or absent: the device's thread alone). */
  writers?: number;
  /** Of `writeMs`, the time the device's thread waited for the writers (the rest: staging the read-back for them). */
  writeWaitMs?: number;
  /** The share of the read-back's words the device's thread wrote itself; the writers wrote the rest. */
  writeOwnShare?: number;
  /** The CPU's share after it: cards, roots, and the remembered slots unless the device wrote them. */
  fixMs?: number;
  /** Where the remembered slots were redirected in the heap's words (none: no remembered slots). */
  slots?: 'gpu' | 'cpu' | 'none';
  /** Requests the evacuation made of the device besides the mark's: one for the
   *  assignment unless it went with the mark, and one for the finish unless the
   *  promotions fitted the buffer carved ahead and it went with the assignment. */
  requests?: 0 | 1 | 2;
}

/** Totals for `--stats`. */
export interface GcStats {
  youngCollections: number;
  fullCollections: number;
  totalPauseMs: number;
  maxPauseMs: number;
  bytesAllocated: number;
  bytesPromoted: number;
  /** Reference-graph costs (refgraph layout only; zeros otherwise). */
  layout: LayoutStats;
}

export interface LayoutStats {
  name: string;
  /** Bytes of the reference graphs' vertex and edge arrays in use. */
  graphBytes: number;
  /** Edge writes by the write barrier (the second write of each reference store). */
  edgeWrites: number;
  /** Vertices appended by allocation and promotion. */
  vertexAppends: number;
  /** Milliseconds spent keeping the graphs up to date during collections. */
  maintenanceMs: number;
}

export function emptyStats(layout: string): GcStats {
  return {
    youngCollections: 0,
    fullCollections: 0,
    totalPauseMs: 0,
    maxPauseMs: 0,
    bytesAllocated: 0,
    bytesPromoted: 0,
    layout: { name: layout, graphBytes: 0, edgeWrites: 0, vertexAppends: 0, maintenanceMs: 0 },
  };
}

export function emptyPhases(): PhaseTimes {
  return { roots: 0, mark: 0, copy: 0, sweep: 0, graph: 0, sync: 0, verify: 0 };
}

/** Adds one collection to the totals. */
export function accumulate(stats: GcStats, r: GcRecord): void {
  if (r.kind === 'young') stats.youngCollections++;
  else stats.fullCollections++;
  stats.totalPauseMs += r.pauseMs;
  if (r.pauseMs > stats.maxPauseMs) stats.maxPauseMs = r.pauseMs;
  stats.bytesPromoted += r.promotedBytes;
  stats.layout.maintenanceMs += r.phases.graph;
}

/** Bytes as HotSpot's logs show them: K, M or G with one decimal where useful. */
export function formatBytes(n: number): string {
  const units: Array<[number, string]> = [
    [1 << 30, 'G'],
    [1 << 20, 'M'],
    [1 << 10, 'K'],
  ];
  for (const [size, unit] of units) {
    if (n >= size) {
      const v = n / size;
      return (Number.isInteger(v) ? String(v) : v.toFixed(1)) + unit;
    }
  }
  return `${n}B`;
}

function ms(x: number): string {
  return `${x.toFixed(2)}ms`;
}

/** One `--log-gc` line. */
export function formatGcRecord(r: GcRecord): string {
  const parts = [
    `[gc ${r.number}] ${r.kind} (${r.cause}) ${r.collector}` +
      (r.auto ? ` predicted ${r.auto.predictedMs.toFixed(1)}ms actual ${r.pauseMs.toFixed(1)}ms` : ''),
    `${formatBytes(r.usedBefore)}->${formatBytes(r.usedAfter)}(${formatBytes(r.capacity)})`,
    ms(r.pauseMs),
  ];
  const p = r.phases;
  parts.push(`roots=${ms(p.roots)}`, `mark=${ms(p.mark)}`);
  if (r.kind === 'full') parts.push(`sweep=${ms(p.sweep)}`);
  parts.push(`copy=${ms(p.copy)}`);
  if (r.probeMs !== undefined) parts.push(`probe=${ms(r.probeMs)}`);
  if (r.landedMs !== undefined) parts.push(`landed=${ms(r.landedMs)}`);
  if (p.graph > 0) parts.push(`graph=${ms(p.graph)}`);
  if (p.sync > 0) parts.push(`sync=${ms(p.sync)}`);
  const m = r.marker;
  if (m.upload !== undefined) parts.push(`upload=${ms(m.upload)}`);
  if (m.uploadBytes !== undefined) parts.push(`uploaded=${formatBytes(m.uploadBytes)}`);
  // Not part of the pause: the GPU worker's copying since the previous collection, and the program's waits for it.
  if (m.aheadBytes) parts.push(`ahead=${formatBytes(m.aheadBytes)}/${ms(m.aheadMs ?? 0)}`);
  if (r.aheadWaitMs !== undefined) parts.push(`ahead-wait=${ms(r.aheadWaitMs)}`);
  if (m.kernel !== undefined) parts.push(`kernel=${ms(m.kernel)}`);
  if (m.readback !== undefined) parts.push(`readback=${ms(m.readback)}`);
  if (m.cpuFallback !== undefined) parts.push(`cpu-fallback=${ms(m.cpuFallback)}`);
  // The parallel collector's per-thread work: objects/steals of each thread.
  if (m.threads !== undefined) parts.push(`threads=${m.threads}`);
  const e = r.evacuation;
  if (e?.where === 'gpu') {
    parts.push(
      `evacuate=gpu assign=${ms(e.assignMs ?? 0)} copy+fix=${ms(e.copyMs ?? 0)} ` +
        `read-back=${formatBytes(e.readbackBytes ?? 0)}/${ms(e.readbackMs ?? 0)} write=${ms(e.writeMs ?? 0)} cpu-fix=${ms(e.fixMs ?? 0)}` +
        (e.slots && e.slots !== 'none' ? ` slots=${e.slots}` : '') +
        (e.requests !== undefined ? ` requests=${e.requests}` : '') +
        (e.writers ? ` writers=${e.writers}/waited=${ms(e.writeWaitMs ?? 0)}/own=${Math.round(100 * (e.writeOwnShare ?? 0))}%` : ''),
    );
  } else if (e) {
    parts.push(`evacuate=cpu (${e.reason ?? 'cpu'})`);
  }
  const u = r.underGpuMinLive;
  if (u) parts.push(`on-cpu (predicted ${formatBytes(u.predictedBytes)} live, under --gpu-min-live ${formatBytes(u.minLiveBytes)})`);
  if (r.deviceStartWaitMs !== undefined) parts.push(`start-wait=${ms(r.deviceStartWaitMs)}`);
  if (r.chainOnCpu) parts.push(`on-cpu (a chain: the device's last mark spent ${Math.round(100 * r.chainOnCpu.cpuShare)}% finishing on the CPU)`);
  if (p.verify > 0) parts.push(`verify=${ms(p.verify)}`);
  return parts.join(' ');
}

/**
 * Bytes moved between the heap and a GPU marker's device over `records`, for
 * `--stats`: uploaded (in the pauses and ahead of them) and read back by
 * evacuations on the device; null when no collection used a device.
 */
export function formatTransfers(records: readonly GcRecord[]): string | null {
  let up = 0;
  let ahead = 0;
  let back = 0;
  let onGpu = 0;
  let young = 0;
  let device = false;
  for (const r of records) {
    if (r.marker.uploadBytes !== undefined || r.evacuation) device = true;
    up += r.marker.uploadBytes ?? 0;
    ahead += r.marker.aheadBytes ?? 0;
    if (r.kind === 'young') young++;
    if (r.evacuation?.where === 'gpu') {
      onGpu++;
      back += r.evacuation.readbackBytes ?? 0;
    }
  }
  if (!device) return null;
  const evac = records.some((r) => r.evacuation) ? `, ${onGpu} of ${young} young evacuations on the GPU reading back ${statSize(back)}` : '';
  return `gpu transfers: uploaded ${statSize(up)} in pauses and ${statSize(ahead)} ahead${evac}`;
}

/** The `--stats` summary (GC part), several lines. The CLI adds mutator time. */
export function formatGcStats(s: GcStats): string {
  const lines = [
    `gc: ${s.youngCollections} young, ${s.fullCollections} full collections`,
    `gc pause: total ${statMs(s.totalPauseMs)}, max ${statMs(s.maxPauseMs)}`,
    `allocated: ${statSize(s.bytesAllocated)}, promoted: ${statSize(s.bytesPromoted)}`,
  ];
  const l = s.layout;
  if (l.name === 'refgraph') {
    lines.push(
      `refgraph: ${statSize(l.graphBytes)} of graphs, ${l.edgeWrites} edge writes, ` +
        `${l.vertexAppends} vertex appends, maintenance ${statMs(l.maintenanceMs)} in collections`,
    );
  } else {
    lines.push(`layout: ${l.name}`);
  }
  return lines.join('\n');
}
